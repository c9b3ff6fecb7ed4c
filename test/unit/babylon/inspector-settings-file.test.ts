/**
 * The Inspector's "save settings" and "load settings" buttons: what was tuned on the sliders leaves as the JSON
 * `serialize()` gives (a download through Babylon's `Tools.Download`, and the clipboard) and comes back through
 * the FileButton into another IK; a bad file is warned once, never thrown; dispose takes the buttons off.
 */
import type { IInspectable } from "@babylonjs/core/Misc/iInspectable.js";
import { InspectableType } from "@babylonjs/core/Misc/iInspectable.js";
import { Tools } from "@babylonjs/core/Misc/tools.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CCDIK } from "../../../src/babylon/chain-ik.js";
import { FullBodyBipedIK } from "../../../src/babylon/full-body-biped-ik.js";
import type { InspectorSettings } from "../../../src/babylon/inspector-settings.js";
import { LimbIK } from "../../../src/babylon/limb-ik.js";
import { type LoadedModel, loadModel } from "../../helpers/babylon-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  while (open.length > 0) open.pop()!.dispose();
});

async function mannequin(): Promise<LoadedModel> {
  const m = await loadModel("Mannequin");
  open.push(m);
  return m;
}

/** The component's save and load entries, by their property names. */
function buttons(settings: InspectorSettings): { save: IInspectable; load: IInspectable } {
  const find = (suffix: string) => settings.inspectables.find((e) => e.propertyName === settings.prefix + suffix)!;
  return { save: find("saveSettings"), load: find("loadSettings") };
}

/** Clicks "save settings" with Babylon's download helper intercepted: the file's name and text. */
async function clickSave(settings: InspectorSettings): Promise<{ fileName: string; text: string }> {
  const download = vi.spyOn(Tools, "Download").mockImplementation(() => undefined);
  buttons(settings).save.callback!();
  expect(download).toHaveBeenCalledTimes(1);
  const [blob, fileName] = download.mock.calls[0]!;
  download.mockRestore();
  return { fileName, text: await blob.text() };
}

/** Picks `file` in "load settings", and waits for it to be read and loaded. */
async function clickLoad(settings: InspectorSettings, file: File): Promise<void> {
  await (buttons(settings).load.fileCallback as (f: File) => Promise<void>)(file);
}

describe("saving and loading settings from Babylon's Inspector", () => {
  it("every component showing settings has a Button and a .json FileButton on each host, after its settings", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const r = ik.references;
    const limb = LimbIK.create(m.scene, r.leftThigh, r.leftCalf, r.leftFoot);
    const chain = CCDIK.create(m.scene, [r.rightUpperArm, r.rightForearm, r.rightHand]);
    for (const settings of [ik.inspector, limb.inspector, chain.inspector]) {
      const { save, load } = buttons(settings);
      expect(save?.type).toBe(InspectableType.Button);
      expect(typeof save?.callback).toBe("function");
      expect(load?.type).toBe(InspectableType.FileButton);
      expect(load?.accept).toBe(".json");
      expect(typeof load?.fileCallback).toBe("function");
      expect(settings.inspectables.slice(-2)).toEqual([save, load]);
      for (const host of settings.attachedTo) {
        expect(host.inspectableCustomProperties).toContain(save);
        expect(host.inspectableCustomProperties).toContain(load);
      }
    }
    expect(buttons(ik.inspector).save.label).toBe("IK save settings");
    // the Inspector keys its lines by label: two components on one skeleton must not share one
    const labels = m.skeleton.inspectableCustomProperties.map((e) => e.label);
    expect(new Set(labels).size).toBe(labels.length);
  });

  it("save downloads serialize()'s JSON as <component>-<skeleton>.json and copies it to the clipboard", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    ik.solver.iterations = 7;
    ik.solver.leftHandEffector.positionWeight = 0.3;
    const writeText = vi.fn((_text: string) => Promise.resolve());
    vi.stubGlobal("navigator", { clipboard: { writeText } });
    const saved = await clickSave(ik.inspector);
    expect(saved.text).toBe(JSON.stringify(ik.serialize(), null, 2));
    // named after the skeleton ("Rig_Medium"): glTF names every root node "__root__"
    expect(saved.fileName).toBe(`fbbik-${m.skeleton.name}.json`);
    expect(writeText).toHaveBeenCalledWith(saved.text);
    // a family component: its own tag, so two on one skeleton save to two names
    const r = ik.references;
    const chain = CCDIK.create(m.scene, [r.rightUpperArm, r.rightForearm, r.rightHand]);
    const chainSaved = await clickSave(chain.inspector);
    expect(chainSaved.text).toBe(JSON.stringify(chain.serialize(), null, 2));
    expect(chainSaved.fileName).toBe(`${chain.inspector.prefix.slice(0, -1)}-${m.skeleton.name}.json`);
  });

  it("without a clipboard or a DOM (Node), save neither throws nor loses the JSON", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const warnings: string[] = [];
    ik.onWarningObservable.add((w) => warnings.push(w.cause));
    vi.stubGlobal("navigator", undefined);
    // Babylon's download helper reads `window`, which Node has not: warned, once
    expect(() => buttons(ik.inspector).save.callback!()).not.toThrow();
    expect(() => buttons(ik.inspector).save.callback!()).not.toThrow();
    expect(warnings).toEqual(["settings:download"]);
    // a clipboard that refuses (an unfocused page) is not an error either
    vi.stubGlobal("navigator", { clipboard: { writeText: () => Promise.reject(new Error("not focused")) } });
    expect((await clickSave(ik.inspector)).text).toBe(JSON.stringify(ik.serialize(), null, 2));
  });

  it("a saved file picked in load settings gives a second IK the same settings", async () => {
    const a = await mannequin();
    const b = await mannequin();
    const ik = FullBodyBipedIK.create(a.scene, a.skeleton);
    const other = FullBodyBipedIK.create(b.scene, b.skeleton);
    ik.solver.iterations = 7;
    ik.solver.leftHandEffector.positionWeight = 0.3;
    ik.solver.rightArmChain.pull = 0.4;
    ik.enableFadeSeconds = 0.5;
    expect(other.serialize()).not.toEqual(ik.serialize());
    const saved = await clickSave(ik.inspector);
    await clickLoad(other.inspector, new File([saved.text], saved.fileName, { type: "application/json" }));
    expect(other.serialize()).toEqual(ik.serialize());
    expect(other.warningsRaised).toEqual([]);
    // the same for a family component
    const chain = CCDIK.create(a.scene, [
      ik.references.rightUpperArm,
      ik.references.rightForearm,
      ik.references.rightHand,
    ]);
    const twin = CCDIK.create(b.scene, [
      other.references.rightUpperArm,
      other.references.rightForearm,
      other.references.rightHand,
    ]);
    chain.solver.maxIterations = 3;
    chain.tolerance = 0.01;
    expect(twin.serialize()).not.toEqual(chain.serialize());
    const chainSaved = await clickSave(chain.inspector);
    await clickLoad(twin.inspector, new File([chainSaved.text], chainSaved.fileName));
    expect(twin.serialize()).toEqual(chain.serialize());
  });

  it("a file that is not JSON is warned once on the component's channel, loads nothing and throws nothing", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const limb = LimbIK.create(m.scene, ik.references.leftThigh, ik.references.leftCalf, ik.references.leftFoot);
    for (const c of [ik, limb]) {
      const before = c.serialize();
      const bad = new File(["{ not json"], "broken.json");
      await expect(clickLoad(c.inspector, bad)).resolves.toBeUndefined();
      await expect(clickLoad(c.inspector, bad)).resolves.toBeUndefined();
      const causes = c.warningsRaised.map((w) => w.cause);
      expect(causes).toEqual(["settings:file"]);
      expect(c.warningsRaised[0]!.message).toContain("broken.json");
      expect(c.serialize()).toEqual(before);
    }
  });

  it("dispose takes the buttons off every host", async () => {
    const m = await mannequin();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const limb = LimbIK.create(m.scene, ik.references.leftThigh, ik.references.leftCalf, ik.references.leftFoot);
    const isButton = (e: IInspectable) => e.type === InspectableType.Button || e.type === InspectableType.FileButton;
    const hosts = [m.root, m.skeleton];
    for (const host of hosts) expect(host.inspectableCustomProperties.filter(isButton).length).toBeGreaterThan(0);
    limb.dispose();
    expect(m.skeleton.inspectableCustomProperties.filter(isButton)).toEqual([
      buttons(ik.inspector).save,
      buttons(ik.inspector).load,
    ]);
    ik.dispose();
    for (const host of hosts) expect(host.inspectableCustomProperties).toEqual([]);
  });
});
