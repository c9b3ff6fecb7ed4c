import { type IInspectable, InspectableType } from "@babylonjs/core/Misc/iInspectable.js";

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

/**
 * A component's settings in Babylon's Inspector. The Inspector shows an entity's `inspectableCustomProperties`
 * (nodes, meshes, skeletons) and reads and writes each as `entity[propertyName]`, so every host gets one
 * accessor property per setting (non-enumerable, forwarding to the component) and one entry in that list.
 * {@link dispose} takes both off again.
 */
export class InspectorSettings {
  /** The entries added to each host's `inspectableCustomProperties`. */
  readonly inspectables: readonly IInspectable[];
  private readonly hosts: InspectorHost[] = [];
  private readonly descriptors: PropertyDescriptor[];

  /** Settings with property names `prefix + setting.name`, not attached to any host yet. */
  constructor(
    readonly prefix: string,
    readonly settings: readonly InspectorSetting[],
  ) {
    this.inspectables = settings.map((s) => {
      const entry: IInspectable = { label: s.label, propertyName: prefix + s.name, type: s.type };
      if (s.min !== undefined) entry.min = s.min;
      if (s.max !== undefined) entry.max = s.max;
      if (s.step !== undefined) entry.step = s.step;
      return entry;
    });
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
    this.inspectables.forEach((entry, i) => Object.defineProperty(host, entry.propertyName, this.descriptors[i]!));
    // (undefined on a Node or Skeleton until someone sets it, though typed as an array)
    host.inspectableCustomProperties = [...(host.inspectableCustomProperties ?? []), ...this.inspectables];
  }

  /** The entities the settings are shown on. */
  get attachedTo(): readonly InspectorHost[] {
    return this.hosts;
  }

  /** Takes the settings off every host: their entries and properties (only those still this object's). */
  dispose(): void {
    for (const host of this.hosts) {
      const own = new Set<IInspectable>(this.inspectables);
      host.inspectableCustomProperties = (host.inspectableCustomProperties ?? []).filter((e) => !own.has(e));
      this.inspectables.forEach((entry, i) => {
        const d = Object.getOwnPropertyDescriptor(host, entry.propertyName);
        if (d?.get === this.descriptors[i]!.get)
          delete (host as unknown as Record<string, unknown>)[entry.propertyName];
      });
    }
    this.hosts.length = 0;
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
