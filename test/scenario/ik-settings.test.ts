/**
 * Saving and loading a FullBodyBipedIK's settings (`serialize`, `applySettings`, `Parse`): every public setting is
 * in the one list, settings move between characters and give the same pose bit for bit, bad input is warned once
 * and skipped.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { FBBIK_EFFECTOR_KEYS, FBBIK_LIMB_KEYS } from "../../src/babylon/fbbik-settings.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { IKSettingsObject, IKSettingValue } from "../../src/babylon/ik-settings.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { at, expectRoundTrip, leaves, paths, settingLike, varied } from "../helpers/saved-settings.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** What is not a setting, with why: runtime state, per-frame values, private validity copies. */
const NOT_SETTINGS: Record<string, readonly string[]> = {
  // how the app runs the IK, not how it is tuned; and the update's own state
  ik: ["enabled", "autoUpdate", "skipping", "disposed", "lastFrame", "ordering"],
  solver: ["settled"],
  // state of the solve (the last valid values of clamped settings, counters, per-frame flags)
  inner: [
    "iterationsUsed",
    "initiated",
    "rigSize",
    "solvedLastUpdate",
    "updates",
    "validIterations",
    "toleranceSquared",
    "iterationBound",
    "frameActive",
    "anyPush",
    "rootNode",
    "validSpineStiffness",
    "validPullBodyVertical",
    "validPullBodyHorizontal",
    "pelvisFrameRead",
  ],
  // FBIKChain: measured lengths and forces of the solve; the body chain has no parent chain nor end effector, so
  // only its pin acts
  chainState: [
    "length",
    "distance",
    "rootLength",
    "pullParentSum",
    "reachForce",
    "initiated",
    "foldedOnRoot",
    "name",
    "validPull",
    "validPush",
    "validPushParent",
    "validReach",
    "validBendWeight",
    "leafChildren",
    "maxChildNodes",
    "sqrMag1",
    "sqrMagDif",
  ],
  bodyChain: ["pull", "push", "pushParent", "reach", "reachSmoothing", "pushSmoothing"],
  // the limb chains' pin is the body chain's only
  limbChain: ["pin"],
  effector: ["setPositionWeight", "setRotationWeight", "eased", "weighted"],
  effectorInner: [
    "firstUpdate",
    "posW",
    "rotW",
    "childrenActive",
    "mrpW",
    "active",
    "name",
    "chainIndex",
    "nodeIndex",
    "isEndEffector",
    "usePlaneNodes",
  ],
  bend: ["name"],
  // clampF is FinalIK's fixed constant, not on the Babylon bend constraint; the rest is measured at setup or per frame
  bendInner: [
    "clampF",
    "initiated",
    "straightAtInitiate",
    "naturalSide",
    "limbOrientationsSet",
    "foldMemoryOn",
    "coneClampWeight",
    "coneCos",
    "axisMove",
    "clipAxisRead",
    "lastRotationWeight",
  ],
  spine: ["rootNodeIndex", "useFABRIK"],
  limbMapping: ["writing", "reaching"],
};

async function ual(scene?: LoadedModel["scene"]): Promise<LoadedModel> {
  const m = await loadModel("UAL", scene === undefined ? {} : { scene });
  open.push(m);
  return m;
}

describe("FullBodyBipedIK settings", () => {
  it("lists every public setting of the IK, its solver, effectors, chains and mappings", async () => {
    const m = await ual();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const s = ik.solver;
    const saved = ik.serialize();
    const missing: string[] = [];
    /** The object's settings not saved at `path` nor excluded (`extra`: what its facade saves instead). */
    const check = (label: string, o: object, path: string, excluded: readonly string[], facade: string[] = []) => {
      const known = new Set([...leaves(path === "" ? saved : at(saved, path)), ...facade, ...excluded]);
      if (path === "") {
        known.delete("version");
        known.delete("customType");
      }
      for (const n of settingLike(o)) if (!known.has(n)) missing.push(`${label}.${n}`);
    };
    const solverKeys = leaves(saved.solver);
    check("ik", ik, "", NOT_SETTINGS.ik!);
    check("solver", s, "solver", NOT_SETTINGS.solver!);
    check("solver.inner", s.inner, "solver", NOT_SETTINGS.inner!);
    check("bodyChain", s.bodyChain, "bodyChain", [...NOT_SETTINGS.chainState!, ...NOT_SETTINGS.bodyChain!]);
    s.effectors.forEach((e, i) => {
      const path = `effectors.${FBBIK_EFFECTOR_KEYS[i]}`;
      check(path, e, path, NOT_SETTINGS.effector!);
      check(`${path}.inner`, e.inner, path, NOT_SETTINGS.effectorInner!);
    });
    FBBIK_LIMB_KEYS.forEach((key, i) => {
      const c = s.limbChains[i]!;
      const path = `chains.${key}`;
      check(path, c, path, NOT_SETTINGS.bend!);
      check(`${path}.inner`, c.inner, path, [...NOT_SETTINGS.chainState!, ...NOT_SETTINGS.limbChain!]);
      check(`${path}.bendConstraint`, c.bendConstraint, `${path}.bendConstraint`, NOT_SETTINGS.bend!);
      const bendInner = c.bendConstraint.inner;
      check(`${path}.bendConstraint.inner`, bendInner, `${path}.bendConstraint`, NOT_SETTINGS.bendInner!);
      check(`mappings.${key}`, s.limbMappings[i]!, `mappings.${key}`, NOT_SETTINGS.limbMapping!);
    });
    check("mappings.spine", s.spineMapping, "mappings.spine", NOT_SETTINGS.spine!);
    check("mappings.head", s.headMapping!, "mappings.head", []);
    expect(solverKeys.length).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });

  it("moves every setting to a fresh IK on another model (UAL → Mannequin) and back, through JSON", async () => {
    const a = await ual();
    const b = await loadModel("Mannequin");
    open.push(b);
    const ikA = FullBodyBipedIK.create(a.scene, a.skeleton);
    const ikB = FullBodyBipedIK.create(b.scene, b.skeleton);
    const text = expectRoundTrip(ikA, ikB, setByProperty);
    // and back: Mannequin's settings loaded on UAL's fresh IK
    const c = await ual(a.scene);
    const ikC = FullBodyBipedIK.Parse(JSON.parse(JSON.stringify(ikB.serialize())), a.scene, c.skeleton);
    expect(JSON.stringify(ikC.serialize())).toBe(text);
    expect(
      [...ikA.warningsRaised, ...ikB.warningsRaised, ...ikC.warningsRaised].filter((w) =>
        w.cause.startsWith("settings:"),
      ),
    ).toEqual([]);
  });

  it("gives a fresh IK loaded with the settings the same solved pose, bit for bit", async () => {
    const a = await ual();
    const b = await ual(a.scene);
    const c = await ual(a.scene);
    const ikA = FullBodyBipedIK.create(a.scene, a.skeleton);
    const ikB = FullBodyBipedIK.create(a.scene, b.skeleton);
    // the control: same targets, default settings
    const ikC = FullBodyBipedIK.create(a.scene, c.skeleton);
    a.scene.render();
    const tuned = varied(ikA.serialize());
    // a solve that uses the FABRIK pass and the body's pin
    (tuned.solver as Record<string, IKSettingValue>).fabrikPass = true;
    (tuned.solver as Record<string, IKSettingValue>).ikPositionWeight = 1;
    setByProperty(ikA, tuned);
    ikB.applySettings(JSON.parse(JSON.stringify(ikA.serialize())));
    for (const ik of [ikA, ikB, ikC]) {
      const s = ik.solver;
      const hand = ik.references.leftHand.getTransformNode()!;
      const foot = ik.references.rightFoot.getTransformNode()!;
      hand.computeWorldMatrix(true);
      foot.computeWorldMatrix(true);
      s.leftHandEffector.position.copyFrom(hand.absolutePosition).addInPlace(new Vector3(0.25, 0.35, 0.2));
      s.rightFootEffector.position.copyFrom(foot.absolutePosition).addInPlace(new Vector3(0, 0.3, 0.15));
      s.bodyEffector.position.copyFrom(ik.references.pelvis.getTransformNode()!.absolutePosition);
      s.bodyEffector.position.y -= 0.1;
    }
    for (let f = 0; f < 30; f++) a.scene.render();
    const pose = (ik: FullBodyBipedIK) =>
      ik.skeleton.bones.flatMap((bone) => {
        const n = bone.getTransformNode()!;
        return [...n.position.asArray(), ...n.rotationQuaternion!.asArray()];
      });
    const [pa, pb, pc] = [pose(ikA), pose(ikB), pose(ikC)];
    const differing = (x: number[], y: number[]) => x.filter((v, i) => !Object.is(v, y[i])).length;
    expect(differing(pa, pb)).toBe(0);
    // the settings matter for this pose: default settings give another one
    expect(differing(pa, pc)).toBeGreaterThan(20);
  });

  it("warns each load's unknown keys and bad values once, skips them, never throws", async () => {
    const m = await ual();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const before = ik.serialize();
    const bad = {
      version: 99,
      solver: { ikPositionWeight: 2, iterations: 4.5, spineStiffness: 0.25, fabrikPass: "yes" },
      effectors: { leftHand: { positionWeight: null, rotationWeight: 0.5 }, tail: { positionWeight: 1 } },
      chains: { leftArm: { pull: -0.1, bendConstraint: 3 } },
      nope: 1,
    };
    const causes = () => ik.warningsRaised.map((w) => w.cause).filter((c) => c.startsWith("settings:"));
    expect(() => ik.applySettings(bad)).not.toThrow();
    const after = ik.serialize();
    expect(after.solver).toEqual({ ...(before.solver as object), spineStiffness: 0.25 });
    expect(at(after, "effectors.leftHand.rotationWeight")).toBe(0.5);
    expect(at(after, "effectors.leftHand.positionWeight")).toBe(0);
    expect(at(after, "chains.leftArm")).toEqual(at(before, "chains.leftArm"));
    expect(causes()).toEqual(BAD_CAUSES);
    // each load reports its own problems (a second bad file from the Inspector is not silent), each once
    ik.applySettings(bad);
    expect(causes()).toEqual([...BAD_CAUSES, ...BAD_CAUSES]);
    for (const junk of [null, "x", 3, [1, 2]]) expect(() => ik.applySettings(junk)).not.toThrow();
    expect(causes().slice(2 * BAD_CAUSES.length)).toEqual(Array(4).fill("settings:not-an-object"));
    // what a frame warns stays once per cause: a load forgets only the settings' causes
    ik.solver.ikPositionWeight = Number.NaN;
    m.scene.render();
    ik.applySettings(bad);
    m.scene.render();
    expect(ik.warningsRaised.filter((w) => w.cause === "ikPositionWeight")).toHaveLength(1);
  });

  it("says what was wrong: NaN as NaN, a group not an object, a version not a number, JSON text", async () => {
    const m = await ual();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const messages = (parsed: unknown): string[] => {
      ik.solver.inner.resetWarnings();
      const before = ik.warningsRaised.length;
      ik.applySettings(parsed);
      return ik.warningsRaised.slice(before).map((w) => w.message.replace("FullBodyBipedIK: ", ""));
    };
    expect(messages({ version: "1", solver: { spineStiffness: Number.NaN }, effectors: null })).toEqual([
      'the settings to load have version "1", not a number; loading the settings it knows.',
      "setting solver.spineStiffness = NaN is not a finite number in [0, 1]; skipped.",
      "settings effectors = null are not an object of settings; skipped.",
    ]);
    expect(messages(JSON.stringify(ik.serialize()))).toEqual([
      "the settings to load are a string (JSON text? JSON.parse it first); nothing was loaded.",
    ]);
  });

  it("saves everything the Inspector changes (but enabled)", async () => {
    const m = await ual();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const unsaved: string[] = [];
    for (const setting of ik.inspector.settings) {
      if (setting.name === "enabled") continue;
      const before = JSON.stringify(ik.serialize());
      const v = setting.get();
      setting.set(typeof v === "boolean" ? !v : v === 0.3 ? 0.7 : 0.3);
      if (JSON.stringify(ik.serialize()) === before) unsaved.push(setting.name);
    }
    expect(unsaved).toEqual([]);
  });
});

/** What the bad settings of the test warn, in order. */
const BAD_CAUSES = [
  "settings:version",
  "settings:bad:solver.ikPositionWeight",
  "settings:bad:solver.iterations",
  "settings:bad:solver.fabrikPass",
  "settings:bad:effectors.leftHand.positionWeight",
  "settings:unknown:effectors.tail",
  "settings:bad:chains.leftArm.pull",
  // a group of settings given a number: the key is known, its value is bad
  "settings:bad:chains.leftArm.bendConstraint",
  "settings:unknown:nope",
];

/** Writes saved settings straight into the objects' properties, by the same paths (not through applySettings). */
function setByProperty(ik: FullBodyBipedIK, saved: IKSettingsObject): void {
  const s = ik.solver;
  const objects: Record<string, object> = {
    "": ik,
    solver: s,
    bodyChain: s.bodyChain,
    "mappings.spine": s.spineMapping,
  };
  if (s.headMapping !== null) objects["mappings.head"] = s.headMapping;
  FBBIK_EFFECTOR_KEYS.forEach((k, i) => {
    objects[`effectors.${k}`] = s.effectors[i]!;
  });
  FBBIK_LIMB_KEYS.forEach((k, i) => {
    objects[`chains.${k}`] = s.limbChains[i]!;
    objects[`chains.${k}.bendConstraint`] = s.limbChains[i]!.bendConstraint;
    objects[`mappings.${k}`] = s.limbMappings[i]!;
  });
  for (const p of paths(saved)) {
    if (p === "version" || p === "customType") continue;
    const cut = p.lastIndexOf(".");
    const target = objects[cut < 0 ? "" : p.slice(0, cut)];
    if (target === undefined) throw new Error(`no object for ${p}`);
    (target as Record<string, unknown>)[p.slice(cut + 1)] = at(saved, p);
  }
}
