import { type IInspectable, InspectableType } from "@babylonjs/core/Misc/iInspectable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { type InspectorSettingsFile, loadSettingsFile, saveSettingsFile } from "./inspector-settings-file.js";

/** One setting shown in Babylon's Inspector: how to show it, and how to read and write it. */
export interface InspectorSetting {
  /** The property's name on the hosts (unique among the component's settings). */
  readonly name: string;
  /** The label the Inspector shows. */
  readonly label: string;
  /** A slider for a number, a checkbox for a boolean. */
  readonly type: InspectableType.Slider | InspectableType.Checkbox;
  /** Slider range and step. */
  readonly min?: number;
  /** Slider range and step. */
  readonly max?: number;
  /** Slider range and step. */
  readonly step?: number;
  /** Reads the setting from the component. */
  get(): number | boolean;
  /** Writes the setting to the component. */
  set(value: number | boolean): void;
}

/** What can host Inspector properties: a Babylon Node or Skeleton (both have `inspectableCustomProperties`). */
export interface InspectorHost {
  /** Babylon's list of custom properties the Inspector shows for this entity. */
  inspectableCustomProperties: IInspectable[];
}

/** A host that lives in a scene (a Babylon Node or Skeleton). */
interface SceneHost {
  getScene(): Scene;
}

/** The settings each entry belongs to (kept off the entry, so it stays a plain IInspectable to serialise). */
const owners = new WeakMap<IInspectable, InspectorSettings>();

/**
 * One entry of a host's list. Babylon clones a node's properties with its DeepCopier, which copies a list
 * entry by entry through `clone()` and puts null for an object without one: the Inspector's custom pane then
 * throws on the clone (it reads each entry's `type`). The clone gets the entry itself, and its settings take
 * themselves off every node of the scene they are not attached to right after (a microtask).
 */
class InspectorEntry implements IInspectable {
  label: string;
  propertyName: string;
  type: InspectableType;
  min?: number;
  max?: number;
  step?: number;
  callback?: () => void;
  fileCallback?: (file: File) => Promise<void>;
  accept?: string;

  constructor(s: Omit<InspectorSetting, "type" | "get" | "set"> & { readonly type: InspectableType }, prefix: string) {
    this.label = s.label;
    this.propertyName = prefix + s.name;
    this.type = s.type;
    if (s.min !== undefined) this.min = s.min;
    if (s.max !== undefined) this.max = s.max;
    if (s.step !== undefined) this.step = s.step;
  }

  /** Called by Babylon's DeepCopier when a host is cloned. */
  clone(): IInspectable {
    owners.get(this)?._cloned();
    return this;
  }
}

/**
 * A component's settings in Babylon's Inspector. The Inspector shows an entity's `inspectableCustomProperties`
 * (nodes, meshes, skeletons) and reads and writes each as `entity[propertyName]`, so every host gets one
 * accessor property per setting (non-enumerable, forwarding to the component) and one entry in that list.
 * Given the component's `file`, two buttons follow them: "save settings" and "load settings".
 * {@link dispose} takes all of them off again.
 */
export class InspectorSettings {
  /**
   * The entries added to each host's `inspectableCustomProperties`: one per setting, in order, then (given a
   * `file`) `<prefix>saveSettings`, a Button that downloads `<prefix without its _>-<skeleton's name>.json`
   * and copies it to the clipboard, and `<prefix>loadSettings`, a FileButton (`.json`) that loads one.
   */
  readonly inspectables: readonly IInspectable[];
  /** The settings' entries alone (each with an accessor property on the hosts). */
  private readonly settingEntries: readonly IInspectable[];
  private readonly hosts: InspectorHost[] = [];
  private readonly descriptors: PropertyDescriptor[];
  /** The scenes of the hosts so far, where clones of them appear. */
  private readonly scenes = new Set<Scene>();
  private scrubQueued = false;

  /** Settings with property names `prefix + setting.name`, not attached to any host yet. */
  constructor(
    /** Put before each setting's name to make the host's property name. */
    readonly prefix: string,
    /** The settings, in the Inspector's order. */
    readonly settings: readonly InspectorSetting[],
    /** The component's settings as a whole, for the save and load buttons (none without it). */
    file?: InspectorSettingsFile,
  ) {
    this.settingEntries = settings.map((s) => new InspectorEntry(s, prefix));
    this.inspectables = file === undefined ? this.settingEntries : [...this.settingEntries, ...this.fileButtons(file)];
    for (const entry of this.inspectables) owners.set(entry, this);
    this.descriptors = settings.map((s) => ({
      configurable: true,
      enumerable: false,
      get: () => s.get(),
      set: (v: number | boolean) => s.set(v),
    }));
  }

  /** Shows the settings on `host` (once per host). */
  attach(host: InspectorHost): void {
    if (this.hosts.includes(host)) return;
    this.hosts.push(host);
    const getScene = (host as Partial<SceneHost>).getScene;
    if (typeof getScene === "function") this.scenes.add(getScene.call(host));
    this.settingEntries.forEach((entry, i) => Object.defineProperty(host, entry.propertyName, this.descriptors[i]!));
    // (undefined on a Node or Skeleton until someone sets it, though typed as an array)
    host.inspectableCustomProperties = [...(host.inspectableCustomProperties ?? []), ...this.inspectables];
  }

  /** Takes the settings off `host` (its entries and properties), where {@link attach} showed them. */
  detach(host: InspectorHost): void {
    const i = this.hosts.indexOf(host);
    if (i < 0) return;
    this.hosts.splice(i, 1);
    this.takeOff(host, true);
  }

  /** The "save settings" Button and "load settings" FileButton of `file`'s settings (they read no property). */
  private fileButtons(file: InspectorSettingsFile): InspectorEntry[] {
    const save = new InspectorEntry(
      { name: "saveSettings", label: `${file.label} save settings`, type: InspectableType.Button },
      this.prefix,
    );
    save.callback = () => {
      saveSettingsFile(file, this.prefix);
    };
    const load = new InspectorEntry(
      { name: "loadSettings", label: `${file.label} load settings`, type: InspectableType.FileButton },
      this.prefix,
    );
    load.accept = ".json";
    load.fileCallback = (f) => loadSettingsFile(file, f);
    return [save, load];
  }

  /** The entities the settings are shown on. */
  get attachedTo(): readonly InspectorHost[] {
    return this.hosts;
  }

  /** Takes the settings off every host: their entries and properties (only those still this object's). */
  dispose(): void {
    for (const host of this.hosts) this.takeOff(host, true);
    this.hosts.length = 0;
  }

  /**
   * Takes this object's entries off `host`, and its properties: the accessors when `accessors` (those still
   * this object's), else the plain values a clone copied from them.
   */
  private takeOff(host: InspectorHost, accessors: boolean): void {
    // (undefined on a Node or Skeleton until someone sets it, though typed as an array)
    const list = host.inspectableCustomProperties ?? [];
    const shown = list.some((e) => owners.get(e) === this);
    // a node that never showed these settings keeps whatever it has under the same names
    if (!shown && !accessors) return;
    if (shown) host.inspectableCustomProperties = list.filter((e) => owners.get(e) !== this);
    this.settingEntries.forEach((entry, i) => {
      const d = Object.getOwnPropertyDescriptor(host, entry.propertyName);
      if (d === undefined) return;
      if (accessors ? d.get === this.descriptors[i]!.get : d.get === undefined && d.set === undefined)
        delete (host as unknown as Record<string, unknown>)[entry.propertyName];
    });
  }

  /** @internal A host was cloned: its clone is taken care of once the cloning is over. */
  _cloned(): void {
    if (this.scrubQueued) return;
    this.scrubQueued = true;
    queueMicrotask(() => {
      this.scrubQueued = false;
      this.scrubClones();
    });
  }

  /** Takes the entries and copied values off every node of the hosts' scenes that is not a host now. */
  private scrubClones(): void {
    for (const scene of this.scenes) {
      for (const list of [scene.transformNodes, scene.meshes] as InspectorHost[][])
        for (const node of list) if (!this.hosts.includes(node)) this.takeOff(node, false);
    }
  }
}

/** A [0, 1] weight as a slider. */
export function weightSetting(
  name: string,
  label: string,
  get: () => number,
  set: (v: number) => void,
): InspectorSetting {
  return { name, label, type: InspectableType.Slider, min: 0, max: 1, step: 0.01, get, set: (v) => set(Number(v)) };
}

/** The longest fade the Inspector's seconds sliders offer (a longer one can be set in code). */
const MAX_FADE_SECONDS = 2;

/** A fade's seconds as a slider of 0–2 s. */
export function secondsSetting(
  name: string,
  label: string,
  get: () => number,
  set: (v: number) => void,
): InspectorSetting {
  return {
    name,
    label,
    type: InspectableType.Slider,
    min: 0,
    max: MAX_FADE_SECONDS,
    step: 0.05,
    get,
    set: (v) => set(Number(v)),
  };
}
