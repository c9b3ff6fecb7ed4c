/**
 * Saving and loading the settings of the grounder, the head effector and the IK family (`serialize`,
 * `applySettings`, `Parse`): every public setting of each component and its solver is in its list or named here
 * as not one, settings move to another character through JSON, LimbIK, CCDIK and the grounder solve the same pose
 * bit for bit, and settings of another kind of component load nothing, warned once.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import "@babylonjs/core/Materials/standardMaterial.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { AimIK } from "../../src/babylon/aim-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { CCDIK, FABRIK, FABRIKRoot } from "../../src/babylon/chain-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { IKSettingsObject } from "../../src/babylon/ik-settings.js";
import { JacobianIK } from "../../src/babylon/jacobian-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { TwistRelaxer } from "../../src/babylon/twist-relaxer.js";
import type { RigComponent } from "../../src/babylon/rig-component.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { GrounderIK } from "../../src/effectors/grounding/grounder-ik.js";
import { GrounderQuadruped } from "../../src/effectors/grounding/grounder-quadruped.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { type LoadedModel, type ModelName, loadModel } from "../helpers/babylon-scene.js";
import {
  type WithSettings,
  at,
  expectRoundTrip,
  leaves,
  paths,
  settingLike,
  varied,
} from "../helpers/saved-settings.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

async function model(name: ModelName, scene?: Scene): Promise<LoadedModel> {
  const m = await loadModel(name, scene === undefined ? {} : { scene });
  open.push(m);
  return m;
}

/** Ground the grounder probes: a floor and a step under the left foot (named so the predicate finds them). */
function ground(scene: Scene): void {
  if (scene.getMeshByName("ground floor") !== null) return;
  CreateGround("ground floor", { width: 20, height: 20 }, scene);
  const step = CreateBox("ground step", { size: 1 }, scene);
  step.scaling.set(0.4, 0.12, 0.4);
  step.position.set(0, 0.06, 0);
}

/** Two LimbIK legs on the skeleton of `bones` (a GrounderIK's). */
function legs(bones: Bone[]): LimbIK[] {
  const r = resolveBipedReferences(bones[0]!.getSkeleton()).references;
  const scene = bones[0]!.getScene();
  return [
    LimbIK.create(scene, r.leftThigh, r.leftCalf, r.leftFoot),
    LimbIK.create(scene, r.rightThigh, r.rightCalf, r.rightFoot),
  ];
}

/** How each kind of component is made on a character (the same bones on every model: the lists match). */
const MAKE = {
  LimbIK: (m: LoadedModel) => {
    const r = resolveBipedReferences(m.skeleton).references;
    return LimbIK.create(m.scene, r.leftUpperArm, r.leftForearm, r.leftHand);
  },
  CCDIK: (m: LoadedModel) => {
    const r = resolveBipedReferences(m.skeleton).references;
    return CCDIK.create(m.scene, [r.leftUpperArm, r.leftForearm, r.leftHand]);
  },
  FABRIK: (m: LoadedModel) => {
    const r = resolveBipedReferences(m.skeleton).references;
    return FABRIK.create(m.scene, [r.rightUpperArm, r.rightForearm, r.rightHand]);
  },
  FABRIKRoot: (m: LoadedModel) => {
    const r = resolveBipedReferences(m.skeleton).references;
    return FABRIKRoot.create(m.scene, r.spine[r.spine.length - 1]!, [
      [r.leftUpperArm, r.leftForearm, r.leftHand],
      [r.rightUpperArm, r.rightForearm, r.rightHand],
    ]);
  },
  AimIK: (m: LoadedModel) => {
    const r = resolveBipedReferences(m.skeleton).references;
    return AimIK.create(m.scene, [r.rightUpperArm, r.rightForearm, r.rightHand]);
  },
  TwistRelaxer: (m: LoadedModel) => {
    const r = resolveBipedReferences(m.skeleton).references;
    return TwistRelaxer.create(m.scene, r.leftForearm);
  },
  LookAtIK: (m: LoadedModel) => {
    const r = resolveBipedReferences(m.skeleton).references;
    return LookAtIK.create(m.scene, { spine: r.spine.slice(-1), head: r.head });
  },
  JacobianIK: (m: LoadedModel) => {
    const r = resolveBipedReferences(m.skeleton).references;
    return JacobianIK.create(m.scene, [r.leftUpperArm, r.leftForearm, r.leftHand], {
      effectors: [{ bone: r.leftHand }],
    });
  },
  GrounderFBBIK: (m: LoadedModel) => {
    ground(m.scene);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    return GrounderFBBIK.create(ik, { predicate: (mesh) => mesh.name.startsWith("ground") });
  },
  GrounderIK: (m: LoadedModel) => {
    ground(m.scene);
    return GrounderIK.create(legs(m.skeleton.bones), resolveBipedReferences(m.skeleton).references.pelvis, {
      predicate: (mesh) => mesh.name.startsWith("ground"),
    });
  },
  GrounderQuadruped: (m: LoadedModel) => {
    // a biped on all fours as far as the grounder can tell: the arms are the forelegs, under the last spine bone
    ground(m.scene);
    const r = resolveBipedReferences(m.skeleton).references;
    const arms = (["left", "right"] as const).map((s) =>
      LimbIK.create(m.scene, r[`${s}UpperArm`], r[`${s}Forearm`], r[`${s}Hand`]),
    );
    return GrounderQuadruped.create(legs(m.skeleton.bones), r.pelvis, arms, r.spine[r.spine.length - 1]!, {
      head: r.head,
      predicate: (mesh) => mesh.name.startsWith("ground"),
    });
  },
  FBBIKHeadEffector: (m: LoadedModel) => {
    const r = resolveBipedReferences(m.skeleton).references;
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    return FBBIKHeadEffector.create(ik, { bendBones: r.spine.slice(0, 2) });
  },
} satisfies Record<string, (m: LoadedModel) => WithSettings>;
type Kind = keyof typeof MAKE;
const KINDS = Object.keys(MAKE) as Kind[];

/** The warnings a component raised about its settings. */
function settingsWarnings(c: WithSettings): string[] {
  const raised =
    c instanceof GrounderIK || c instanceof GrounderQuadruped
      ? c.legs[0]!.warningsRaised
      : "warningsRaised" in c
        ? (c as RigComponent).warningsRaised
        : (c as GrounderFBBIK).ik.warningsRaised;
  return raised.map((w) => w.cause).filter((cause) => cause.includes("settings:"));
}

/** What of a grounder of the family's legs is not a setting (see NOT_SETTINGS.grounderIK). */
const LEG_GROUNDER_STATE = [
  "enabled",
  "disposed",
  "lastFrame",
  "frameWeight",
  "height",
  "updateOrder",
  "order",
  "pelvisId",
  "className",
  "foundIndex",
];

/** What is not a setting, with why (`readonly` and `private` fields are writable at run time: named here too). */
const NOT_SETTINGS: Record<string, readonly string[]> = {
  // how the app runs the component, its place in the scene's order, its bones (the rig's), the update's state;
  // toleranceWorld is the saved `tolerance` behind its accessor
  component: [
    "enabled",
    "autoUpdate",
    "updateOrder",
    "order",
    "kindOrder",
    "disposed",
    "lastFrame",
    "ordering",
    "showInInspector",
    "firstBoneName",
    "lastBoneName",
    "endId",
    "tipId",
    "toleranceWorld",
  ],
  // bone ids (the rig's), sizes measured at setup, counters and state of the solve; a chain solver's `tolerance` is
  // set every frame from the component's (saved), in component space
  solverState: [
    "skipReason",
    "iterationsUsed",
    "lastIterations",
    "lastReach",
    "lastError",
    "lastBetween",
    "tolerance",
    "bone1",
    "bone2",
    "bone3",
    "bone",
    "child",
    "childFollows",
    "parent",
    "root",
    "head",
    "headEntry",
    "aimBone",
    "aimEntry",
    "rootParent",
    "count",
    "size",
    "chainLength",
    "longestBone",
    "naturalSide",
    "iterations",
    "lambda",
    "miss",
    "region",
    "hingeAngle",
    "collisionDepth",
    "depthBeforeSweeps",
  ],
  // switches a FABRIK or CCD solver sets for itself (the public `hingeRoll`, `hingeSwivel`, `limitedReach` are saved)
  solverInner: ["fineSwivels", "rollsForHinges", "swivelsForHinges", "closes", "limitsInReach"],
  // a bone of a chain: its id is the rig's
  link: ["id", "bone"],
  // a JacobianIK effector: its target state and warning label; the solver effector's weight is set each frame
  // from the component effector's (saved), its bone and joint are the rig's
  effector: ["hasPosition", "hasRotation", "label"],
  solverEffector: ["targetOnRoot", "weight", "bone", "joint"],
  // the grounder: the app's switch, the character's size at create, the frame's state, the last valid values of
  // its settings; `quality` is the solver's (saved under solver)
  grounder: [
    "enabled",
    "disposed",
    "lastFrame",
    "pendingFrameTime",
    "frameWeight",
    "rigWeight",
    "height",
    "createdScale",
    "pelvisId",
    "validWeight",
    "validSpineBend",
    "validSpineSpeed",
    "quality",
  ],
  // GrounderIK: the app's switch, the frame's state, the character's size at create, where it runs (its legs'), its
  // class's name, the leg a hook was called for
  grounderIK: LEG_GROUNDER_STATE,
  // GrounderQuadruped: as GrounderIK, and the rig's chest and head
  grounderQuadruped: [...LEG_GROUNDER_STATE, "chestId", "headId"],
  // the character's size at create (`lengthUnit`), the per-frame scale and times, the probe's state
  grounding: ["lengthUnit", "lengthScale", "deltaTime", "frameTime", "rootGrounded", "warningPrefix", "sphereRadius"],
  // the head effector: the app's switch, the frame's state, the rig's head and its scale at create
  head: ["enabled", "active", "disposed", "createdScale", "headId"],
};

/** Each object with settings of a component: a label, the object, where its settings are saved, what is not saved. */
function settingObjects(kind: Kind, c: WithSettings): [string, object, string, readonly string[]][] {
  const state = [...NOT_SETTINGS.solverState!, ...NOT_SETTINGS.solverInner!];
  const link = NOT_SETTINGS.link!;
  if (kind === "GrounderFBBIK") {
    const g = c as GrounderFBBIK;
    return [
      ["grounder", g, "", NOT_SETTINGS.grounder!],
      ["grounder.solver", g.solver, "solver", NOT_SETTINGS.grounding!],
    ];
  }
  if (kind === "GrounderIK") {
    const g = c as GrounderIK;
    return [
      ["grounder", g, "", NOT_SETTINGS.grounderIK!],
      ["grounder.solver", g.solver, "solver", NOT_SETTINGS.grounding!],
    ];
  }
  if (kind === "GrounderQuadruped") {
    const g = c as GrounderQuadruped;
    return [
      ["grounder", g, "", NOT_SETTINGS.grounderQuadruped!],
      ["grounder.solver", g.solver, "solver", NOT_SETTINGS.grounding!],
      ["grounder.forelegSolver", g.forelegSolver, "forelegSolver", NOT_SETTINGS.grounding!],
    ];
  }
  if (kind === "FBBIKHeadEffector") {
    const h = c as FBBIKHeadEffector;
    return [
      ["head", h, "", NOT_SETTINGS.head!],
      ...h.bendBones.map((b, i): [string, object, string, readonly string[]] => [
        `bendBones.${i}`,
        b,
        `bendBones.${i}`,
        [],
      ]),
    ];
  }
  const rc = c as RigComponent & { solver: object };
  const out: [string, object, string, readonly string[]][] = [
    ["component", rc, "", NOT_SETTINGS.component!],
    ["solver", rc.solver, "solver", kind === "AimIK" ? state.filter((n) => n !== "tolerance") : state],
  ];
  const links = (prefix: string, bones: readonly object[]) =>
    bones.forEach((b, i) => out.push([`${prefix}.${i}`, b, `${prefix}.${i}`, link]));
  if (kind === "CCDIK" || kind === "FABRIK" || kind === "AimIK")
    links("solver.links", (rc.solver as { bones: object[] }).bones);
  if (kind === "FABRIKRoot") {
    (rc as FABRIKRoot).solver.chains.forEach((chain, i) => {
      out.push([`solver.chains.${i}`, chain, `solver.chains.${i}`, []]);
      out.push([`solver.chains.${i}.solver`, chain.solver, `solver.chains.${i}.solver`, state]);
      links(`solver.chains.${i}.solver.links`, chain.solver.bones);
    });
  }
  if (kind === "JacobianIK") {
    (rc as JacobianIK).effectors.forEach((e, i) => {
      out.push([`effectors.${i}`, e, `effectors.${i}`, NOT_SETTINGS.effector!]);
      out.push([`effectors.${i}.solverEffector`, e.solverEffector, `effectors.${i}`, NOT_SETTINGS.solverEffector!]);
    });
  }
  return out;
}

/** The object a saved path's group is on, found by walking the component's properties ("links" are `bones`). */
function objectAt(c: object, groupPath: string): Record<string, unknown> {
  let o = c as Record<string, unknown>;
  if (groupPath === "") return o;
  for (const part of groupPath.split(".")) o = o[part === "links" ? "bones" : part] as Record<string, unknown>;
  return o;
}

/** Writes saved settings straight into the properties (not through applySettings); null is an unbounded Infinity. */
function setByProperty(c: object, saved: IKSettingsObject): void {
  for (const p of paths(saved)) {
    if (p === "version" || p === "customType") continue;
    const cut = p.lastIndexOf(".");
    const v = at(saved, p);
    objectAt(c, cut < 0 ? "" : p.slice(0, cut))[p.slice(cut + 1)] = v === null ? Infinity : v;
  }
}

describe("settings of the grounder, the head effector and the IK family", () => {
  it.each(KINDS)(
    "%s: every public setting of the component and its solver is saved or named as not one",
    async (kind) => {
      const m = await model("UAL");
      const c = MAKE[kind](m);
      const saved = c.serialize();
      expect(saved.customType).toBe(kind);
      const missing: string[] = [];
      for (const [label, o, path, excluded] of settingObjects(kind, c)) {
        const known = new Set([...leaves(path === "" ? saved : at(saved, path)), ...excluded]);
        for (const n of settingLike(o)) if (!known.has(n)) missing.push(`${label}.${n}`);
      }
      expect(missing).toEqual([]);
      expect(paths(saved).length).toBeGreaterThan(4);
    },
  );

  it.each(KINDS)(
    "%s: moves every setting to the same component on another model (UAL → Mannequin), through JSON",
    async (kind) => {
      const a = await model("UAL");
      const b = await model("Mannequin");
      const ca = MAKE[kind](a);
      const cb = MAKE[kind](b);
      expectRoundTrip(ca, cb, setByProperty);
      expect([...settingsWarnings(ca), ...settingsWarnings(cb)]).toEqual([]);
    },
  );

  it("loads another kind's settings nowhere, with one warning a load", async () => {
    const m = await model("UAL");
    const limb = MAKE.LimbIK(m);
    const ccd = MAKE.CCDIK(m);
    const before = JSON.stringify(ccd.serialize());
    const tuned = varied(limb.serialize());
    ccd.applySettings(tuned);
    ccd.applySettings(tuned);
    expect(JSON.stringify(ccd.serialize())).toBe(before);
    // each load reports its own problems: a second bad file from the Inspector is not silent
    expect(settingsWarnings(ccd)).toEqual(["settings:type", "settings:type"]);
    expect(ccd.warningsRaised[0]!.message).toBe(
      "CCDIK: the settings to load are a \"LimbIK\"'s, not a CCDIK's; nothing was loaded.",
    );
    // an object without a type (written by hand) loads; bad strings and an unbounded null are checked
    ccd.applySettings({ version: 1, solver: { linkOrder: "sideways", maxAngle: null, optimized: true } });
    expect(ccd.solver.maxAngle).toBe(Number.POSITIVE_INFINITY);
    expect(ccd.solver.optimized).toBe(true);
    expect(ccd.solver.linkOrder).toBe("tipToRoot");
    expect(settingsWarnings(ccd)).toEqual(["settings:type", "settings:type", "settings:bad:solver.linkOrder"]);
    ccd.solver.maxAngle = 0.3;
    ccd.applySettings(JSON.parse(JSON.stringify({ ...ccd.serialize(), solver: { maxAngle: Infinity } })));
    expect(ccd.solver.maxAngle).toBe(Number.POSITIVE_INFINITY);
    // the grounder's warnings go through its IK, with their own causes
    const grounder = MAKE.GrounderFBBIK(m);
    grounder.applySettings(grounder.ik.serialize());
    grounder.applySettings(grounder.ik.serialize());
    expect(settingsWarnings(grounder)).toEqual(["grounder:settings:type", "grounder:settings:type"]);
    // a grounder of the family's legs warns through its first leg, each load again
    const legs = MAKE.GrounderIK(m);
    legs.applySettings(ccd.serialize());
    legs.applySettings(ccd.serialize());
    expect(settingsWarnings(legs)).toEqual(["grounder:settings:type", "grounder:settings:type"]);
  });
});

/** Every bone's local position and rotation quaternion, as numbers. */
function pose(m: LoadedModel): number[] {
  return m.skeleton.bones.flatMap((bone) => {
    const n = bone.getTransformNode()!;
    return [...n.position.asArray(), ...n.rotationQuaternion!.asArray()];
  });
}
const differing = (x: number[], y: number[]) => x.filter((v, i) => !Object.is(v, y[i])).length;

describe("the same settings solve the same pose, bit for bit", () => {
  it.each(["LimbIK", "CCDIK", "GrounderFBBIK", "GrounderIK"] as const)("%s", async (kind) => {
    const a = await model("UAL");
    const b = await model("UAL", a.scene);
    const c = await model("UAL", a.scene);
    a.scene.render();
    const ca = MAKE[kind](a);
    // the control: same targets, default settings
    const cc = MAKE[kind](c);
    const tuned = varied(ca.serialize());
    if (kind === "GrounderFBBIK" || kind === "GrounderIK") {
      // a probe quality and a weight that let the step show
      Object.assign(tuned.solver as object, { quality: 2, footRotationWeight: 1 });
      Object.assign(tuned, { weight: 1 });
    } else {
      Object.assign(tuned.solver as object, { ikPositionWeight: 1 });
    }
    setByProperty(ca, tuned);
    const text = JSON.stringify(ca.serialize());
    const twin = (bone: Bone) => b.skeleton.bones[bone.getIndex()]!;
    const parsed = JSON.parse(text);
    let cb: WithSettings;
    if (kind === "LimbIK") {
      const [upper, middle, end] = (ca as LimbIK).bones.map(twin);
      cb = LimbIK.Parse(parsed, a.scene, upper!, middle!, end!);
    } else if (kind === "CCDIK") {
      cb = CCDIK.Parse(parsed, a.scene, (ca as CCDIK).bones.map(twin));
    } else if (kind === "GrounderIK") {
      const predicate = (mesh: AbstractMesh) => mesh.name.startsWith("ground");
      const pelvis = twin((ca as GrounderIK).pelvis);
      cb = GrounderIK.Parse(parsed, legs(b.skeleton.bones), pelvis, { predicate });
    } else {
      const predicate = (mesh: AbstractMesh) => mesh.name.startsWith("ground");
      cb = GrounderFBBIK.Parse(parsed, FullBodyBipedIK.create(a.scene, b.skeleton), { predicate });
    }
    for (const comp of [ca, cb, cc]) {
      if (comp instanceof GrounderFBBIK || comp instanceof GrounderIK) continue;
      const chain = comp as LimbIK | CCDIK;
      const tip = chain.bones[chain.bones.length - 1]!.getTransformNode()!;
      tip.computeWorldMatrix(true);
      chain.targetPosition.copyFrom(tip.absolutePosition).addInPlace(new Vector3(0.15, 0.25, 0.2));
    }
    for (let f = 0; f < 30; f++) a.scene.render();
    const [pa, pb, pc] = [pose(a), pose(b), pose(c)];
    expect(differing(pa, pb)).toBe(0);
    // the settings matter for this pose: default settings give another one
    expect(differing(pa, pc)).toBeGreaterThan(8);
    expect([...settingsWarnings(ca), ...settingsWarnings(cb)]).toEqual([]);
  });
});

describe("an IK and its grounder, saved together", () => {
  it("load the IK's settings after making the grounder: then what was tuned after it comes back", async () => {
    const a = await model("UAL");
    const b = await model("UAL", a.scene);
    const c = await model("UAL", a.scene);
    ground(a.scene);
    const predicate = (mesh: AbstractMesh) => mesh.name.startsWith("ground");
    a.scene.render();
    const ikA = FullBodyBipedIK.create(a.scene, a.skeleton);
    const grounderA = GrounderFBBIK.create(ikA, { predicate });
    // tuned after the grounder, which set both to 1
    ikA.solver.leftLegMapping.maintainRotationWeight = 0.5;
    ikA.solver.rightLegMapping.maintainRotationWeight = 0.5;
    const [ikText, grounderText] = [JSON.stringify(ikA.serialize()), JSON.stringify(grounderA.serialize())];
    // as docs/API.md says: the grounder first, then the IK's settings
    const ikB = FullBodyBipedIK.create(a.scene, b.skeleton);
    GrounderFBBIK.Parse(JSON.parse(grounderText), ikB, { predicate });
    ikB.applySettings(JSON.parse(ikText));
    // the other order: the grounder's create sets the mappings' weight back to 1
    const ikC = FullBodyBipedIK.Parse(JSON.parse(ikText), a.scene, c.skeleton);
    GrounderFBBIK.Parse(JSON.parse(grounderText), ikC, { predicate });
    for (let f = 0; f < 30; f++) a.scene.render();
    expect(differing(pose(a), pose(b))).toBe(0);
    expect(ikC.solver.leftLegMapping.maintainRotationWeight).toBe(1);
    expect(differing(pose(a), pose(c))).toBeGreaterThan(0);
  });
});
