/**
 * Options as a plain-JavaScript user mistypes them, for every public create and constructor that takes an options
 * object: a key the component does not know warns once, naming the component, the key and what it may have meant;
 * a value of the wrong type throws an FBBIKError at create (the setup policy: nothing attached); options written
 * as the docs/API.md examples write them warn nothing. UAL, in the repository.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  AimIK,
  Amplifier,
  BodyTilt,
  CCDIK,
  ClimbSequencer,
  EffectorHandles,
  EffectorOffset,
  FABRIK,
  FABRIKRoot,
  FBBIKColliders,
  FBBIKError,
  FBBIKHeadEffector,
  FullBodyBipedEffector as E,
  FullBodyBipedIK,
  GrounderFBBIK,
  GrounderIK,
  GrounderQuadruped,
  GrounderSpineEffector,
  HavokGroundRaycast,
  HitPointBone,
  HitPointEffector,
  HitReaction,
  Inertia,
  InteractionObject,
  InteractionSystem,
  InteractionTarget,
  JacobianIK,
  LimbIK,
  LookAtIK,
  MovingGroundRaycast,
  Recoil,
  StaticGroundRaycast,
  TwistRelaxer,
  alignRestPose,
  bipedNameMap,
  createTrackerTarget,
  kneeEulerLimit,
  resolveBipedReferences,
} from "../../src/index.js";
import type { BipedReferences } from "../../src/babylon/biped-references.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";

/** What a case made: the warnings it carries (besides Babylon's Logger), and how to take it off again. */
interface Made {
  warningsRaised?: readonly { message: string }[];
  dispose?(): void;
}

/** One create or constructor: how to call it, options as the docs write them, a typo and a wrongly typed value. */
interface Case {
  name: string;
  make(options: object): Made | undefined;
  good: () => object;
  typo: { options: () => object; key: string; hint: string };
  wrong: () => object;
  /** The option the wrong value is at, by path (default: the first key of `wrong`). */
  wrongAt?: string;
}

let m: LoadedModel;
let scene: Scene;
/** The IK the hooked components attach to (on the loaded character). */
let ik: FullBodyBipedIK;
/** The twin's skeleton and bones: the family's components and the FullBodyBipedIK cases. */
let twin: Skeleton;
let tr: BipedReferences;
let ground: TransformNode;
const fromIk: string[] = [];

/** A node at the origin. */
const node = (name: string) => new TransformNode(name, scene);
const bones = (...b: (Bone | undefined | null)[]) => b as Bone[];

/** A ClimbSequencer on a new InteractionSystem of the IK (the system carries the warnings, and is disposed). */
function climbing(options: object): Made {
  const system = new InteractionSystem(ik);
  try {
    new ClimbSequencer(system, options);
  } catch (e) {
    system.dispose();
    throw e;
  }
  return system;
}

/**
 * A grounder made on the twin's LimbIK legs (and arms, for `count` 4), disposed with them; its warnings go to its
 * first leg. The limbs are disposed too when the grounder throws.
 */
function withLegs(count: 2 | 4, make: (limbs: LimbIK[]) => { dispose(): void }): Made {
  const ends = [
    [tr.leftThigh, tr.leftCalf, tr.leftFoot],
    [tr.rightThigh, tr.rightCalf, tr.rightFoot],
    [tr.leftUpperArm, tr.leftForearm, tr.leftHand],
    [tr.rightUpperArm, tr.rightForearm, tr.rightHand],
  ] as const;
  const limbs = ends.slice(0, count).map(([a, b, c]) => LimbIK.create(scene, a, b, c));
  const free = () => limbs.forEach((l) => l.dispose());
  try {
    const g = make(limbs);
    const dispose = () => {
      g.dispose();
      free();
    };
    return { warningsRaised: limbs[0]!.warningsRaised, dispose };
  } catch (e) {
    free();
    throw e;
  }
}

const CASES: Case[] = [
  {
    name: "FullBodyBipedIK",
    make: (o) => FullBodyBipedIK.create(scene, twin, o),
    good: () => ({ enableFadeSeconds: 0.3, inspector: false, forward: new Vector3(0, 0, 1) }),
    typo: { options: () => ({ iteration: 4 }), key: "iteration", hint: "solver.iterations" },
    wrong: () => ({ autoUpdate: "false" }),
  },
  {
    name: "CCDIK",
    make: (o) => CCDIK.create(scene, bones(tr.rightThigh, tr.rightCalf, tr.rightFoot), o),
    good: () => ({ target: node("t"), maxIterations: 10, tolerance: 0.001 }),
    typo: { options: () => ({ maxIteration: 4 }), key: "maxIteration", hint: '"maxIterations"' },
    wrong: () => ({ maxIterations: "4" }),
  },
  {
    name: "FABRIK",
    make: (o) => FABRIK.create(scene, bones(tr.rightThigh, tr.rightCalf, tr.rightFoot), o),
    good: () => ({ target: node("t"), enableFadeSeconds: 0.2 }),
    typo: { options: () => ({ tolerence: 0.01 }), key: "tolerence", hint: '"tolerance"' },
    wrong: () => ({ tolerance: "0.01" }),
  },
  {
    name: "FABRIKRoot",
    make: (o) => FABRIKRoot.create(scene, tr.pelvis, [bones(tr.leftThigh, tr.leftCalf, tr.leftFoot)], o),
    good: () => ({ targets: [node("t")], maxIterations: 4 }),
    typo: { options: () => ({ target: node("t") }), key: "target", hint: '"targets"' },
    wrong: () => ({ maxIterations: "4" }),
  },
  {
    name: "LimbIK",
    make: (o) => LimbIK.create(scene, tr.leftUpperArm, tr.leftForearm, tr.leftHand, o),
    good: () => ({ target: node("t"), bendGoal: node("g") }),
    typo: { options: () => ({ bendGoalWieght: 1 }), key: "bendGoalWieght", hint: "solver.bendGoalWeight" },
    wrong: () => ({ target: "hand" }),
  },
  {
    name: "AimIK",
    make: (o) => AimIK.create(scene, bones(tr.rightUpperArm, tr.rightForearm, tr.rightHand), o),
    good: () => ({ target: node("t"), axis: new Vector3(0, 1, 0), poleAxis: new Vector3(0, 0, 1) }),
    typo: { options: () => ({ axs: new Vector3(0, 1, 0) }), key: "axs", hint: '"axis"' },
    wrong: () => ({ axis: "y" }),
  },
  {
    name: "LookAtIK",
    make: (o) => LookAtIK.create(scene, { spine: tr.spine, head: tr.head! }, o),
    good: () => ({ target: node("t"), forward: new Vector3(0, 0, 1) }),
    typo: { options: () => ({ foward: new Vector3(0, 0, 1) }), key: "foward", hint: '"forward"' },
    wrong: () => ({ forward: 1 }),
  },
  {
    name: "TwistRelaxer",
    make: (o) => TwistRelaxer.create(scene, tr.leftForearm, o),
    good: () => ({ parent: tr.leftUpperArm, child: tr.leftHand, weight: 1, parentChildCrossfade: 0.3 }),
    typo: {
      options: () => ({ parentChildCrossFade: 0.3 }),
      key: "parentChildCrossFade",
      hint: '"parentChildCrossfade"',
    },
    wrong: () => ({ weight: "1" }),
  },
  {
    name: "JacobianIK",
    make: (o) => JacobianIK.create(scene, bones(tr.leftThigh, tr.leftCalf, tr.leftFoot), o),
    good: () => ({ effectors: [{ bone: tr.leftFoot, target: node("t") }], maxIterations: 20 }),
    typo: { options: () => ({ maxIteration: 4 }), key: "maxIteration", hint: '"maxIterations"' },
    wrong: () => ({ tolerance: "0.1" }),
  },
  {
    name: "JacobianIK effector",
    make: (o) => {
      const j = JacobianIK.create(scene, bones(tr.leftThigh, tr.leftCalf, tr.leftFoot));
      try {
        j.addEffector({ bone: tr.leftFoot, ...o });
      } catch (e) {
        j.dispose();
        throw e;
      }
      return j;
    },
    good: () => ({ target: node("t"), weight: 1, rotationWeight: 0.5 }),
    typo: { options: () => ({ wieght: 1 }), key: "wieght", hint: '"weight"' },
    wrong: () => ({ priority: "1" }),
  },
  {
    name: "EffectorHandles",
    make: (o) => EffectorHandles.create(ik, o),
    good: () => ({ effectors: [E.LeftHand], bendGoals: true }),
    typo: { options: () => ({ sise: 0.1 }), key: "sise", hint: '"size"' },
    wrong: () => ({ bendGoals: 1 }),
  },
  {
    name: "FBBIKColliders",
    make: (o) => FBBIKColliders.create(ik, o),
    good: () => ({ clearance: 0.01, enableFadeSeconds: 0.3 }),
    typo: { options: () => ({ clearence: 0.01 }), key: "clearence", hint: '"clearance"' },
    wrong: () => ({ clearance: "0.01" }),
  },
  {
    name: "GrounderFBBIK",
    make: (o) => GrounderFBBIK.create(ik, o),
    good: () => ({ maxStep: 0.5, footSpeed: 2.5, rotateSolver: false }),
    typo: { options: () => ({ maxstep: 0.5 }), key: "maxstep", hint: '"maxStep"' },
    wrong: () => ({ maxStep: "0.5" }),
  },
  {
    name: "GrounderIK",
    make: (o) => withLegs(2, ([l, r]) => GrounderIK.create([l!, r!], tr.pelvis, o)),
    good: () => ({ maxStep: 0.5, characterRoot: node("root"), rootRotationWeight: 0.3 }),
    typo: { options: () => ({ rootRotationWieght: 0.5 }), key: "rootRotationWieght", hint: '"rootRotationWeight"' },
    wrong: () => ({ characterRoot: "root" }),
  },
  {
    name: "GrounderQuadruped",
    // the arms as forelegs, under the last spine bone
    make: (o) =>
      withLegs(4, ([l, r, la, ra]) =>
        GrounderQuadruped.create([l!, r!], tr.pelvis, [la!, ra!], tr.spine[tr.spine.length - 1]!, o),
      ),
    good: () => ({ maxLegOffset: 0.3, head: tr.head, minRootRotation: -10 }),
    typo: { options: () => ({ maxForelegOffset: 0.5 }), key: "maxForelegOffset", hint: '"maxForeLegOffset"' },
    wrong: () => ({ head: "head" }),
  },
  {
    name: "FBBIKHeadEffector",
    make: (o) => FBBIKHeadEffector.create(ik, o),
    good: () => ({ target: node("headset"), bodyWeight: 0.5, fixHead: true }),
    typo: { options: () => ({ bodyWeigth: 0.5 }), key: "bodyWeigth", hint: '"bodyWeight"' },
    wrong: () => ({ fixHead: "true" }),
  },
  {
    name: "InteractionSystem",
    make: (o) => new InteractionSystem(ik, o),
    good: () => ({ handPosers: false }),
    typo: { options: () => ({ handPoser: true }), key: "handPoser", hint: '"handPosers"' },
    wrong: () => ({ handPosers: 1 }),
  },
  {
    name: "ClimbSequencer",
    make: climbing,
    good: () => ({ moveTime: 1, liftHeight: 0.1, bodyOffset: null }),
    typo: { options: () => ({ moveTme: 1 }), key: "moveTme", hint: '"moveTime"' },
    wrong: () => ({ moveTime: "1" }),
  },
  {
    name: "InteractionObject",
    make: (o) => void new InteractionObject(node("cup"), o),
    good: () => ({ fadeInTime: 0.3, findTargets: false }),
    typo: { options: () => ({ fadeInTme: 0.3 }), key: "fadeInTme", hint: '"fadeInTime"' },
    wrong: () => ({ findTargets: "yes" }),
  },
  {
    name: "InteractionTarget",
    make: (o) => void new InteractionTarget(E.LeftHand, node("grip"), o),
    good: () => ({ twistWeight: 1, rotateOnce: false }),
    typo: { options: () => ({ twistWeigth: 1 }), key: "twistWeigth", hint: '"twistWeight"' },
    wrong: () => ({ rotateOnce: 1 }),
  },
  {
    name: "Recoil",
    make: (o) => new Recoil(ik, o),
    good: () => ({ blendTime: 0.1, twoHanded: true, rotationRandom: { x: 3, y: 3, z: 2 } }),
    typo: { options: () => ({ blendTme: 0.1 }), key: "blendTme", hint: '"blendTime"' },
    wrong: () => ({ twoHanded: "yes" }),
  },
  {
    name: "Inertia",
    make: (o) => new Inertia(ik, o),
    good: () => ({ weight: 0.5, bodies: [] }),
    typo: { options: () => ({ wieght: 0.5 }), key: "wieght", hint: '"weight"' },
    wrong: () => ({ weight: "0.5" }),
  },
  {
    name: "EffectorOffset",
    make: (o) => new EffectorOffset(ik, o),
    good: () => ({ weight: 0.7, handsMaintainRelativePositionWeight: 0.4 }),
    typo: { options: () => ({ node_: node("n") }), key: "node_", hint: '"node"' },
    wrong: () => ({ node: "n" }),
  },
  {
    name: "Amplifier",
    make: (o) => new Amplifier(ik, o),
    good: () => ({ enabled: true, bodies: [] }),
    typo: { options: () => ({ enabeld: true }), key: "enabeld", hint: '"enabled"' },
    wrong: () => ({ enabled: "no" }),
  },
  {
    name: "BodyTilt",
    make: (o) => new BodyTilt(ik, o),
    good: () => ({ tiltSensitivity: 1, tiltSpeed: 6 }),
    typo: { options: () => ({ tiltSpeeed: 6 }), key: "tiltSpeeed", hint: '"tiltSpeed"' },
    wrong: () => ({ tiltSensitivity: "1" }),
  },
  {
    name: "HitReaction",
    make: (o) => new HitReaction(ik, o),
    good: () => ({ effectorHitPoints: [], boneHitPoints: [] }),
    typo: { options: () => ({ effectorHitPoint: [] }), key: "effectorHitPoint", hint: '"effectorHitPoints"' },
    wrong: () => ({ boneHitPoints: 3 }),
  },
  {
    name: "HitPointEffector",
    make: (o) => void new HitPointEffector(o as never),
    good: () => ({ name: "chest", crossFadeTime: 0.1, effectorLinks: [{ effector: E.Body }] }),
    typo: { options: () => ({ colider: null }), key: "colider", hint: '"collider"' },
    wrong: () => ({ crossFadeTime: "0.1" }),
  },
  {
    name: "HitPointBone",
    make: (o) => void new HitPointBone(o as never),
    good: () => ({ name: "spine", boneLinks: [{ bone: tr.spine[0]! }] }),
    typo: { options: () => ({ crossFadeTim: 0.1 }), key: "crossFadeTim", hint: '"crossFadeTime"' },
    wrong: () => ({ name: 5 }),
  },
  {
    name: "StaticGroundRaycast",
    make: (o) => void StaticGroundRaycast.fromMeshes([ground as never], o),
    good: () => ({ cellSize: 0.5 }),
    typo: { options: () => ({ cellsize: 0.5 }), key: "cellsize", hint: '"cellSize"' },
    wrong: () => ({ cellSize: "0.5" }),
  },
  {
    name: "MovingGroundRaycast",
    make: (o) => void MovingGroundRaycast.fromMeshes([ground as never], o),
    good: () => ({ cellSize: 0.5 }),
    typo: { options: () => ({ celSize: 0.5 }), key: "celSize", hint: '"cellSize"' },
    wrong: () => ({ cellSize: "0.5" }),
  },
  {
    name: "HavokGroundRaycast",
    make: (o) => void new HavokGroundRaycast({ raycast: () => {} }, o),
    good: () => ({ membership: 1, collideWith: 2, queryTriggers: false }),
    typo: { options: () => ({ colideWith: 2 }), key: "colideWith", hint: '"collideWith"' },
    wrong: () => ({ queryTriggers: "no" }),
  },
  {
    name: "createTrackerTarget",
    make: (o) => void createTrackerTarget(node("tracker"), tr.head!, o),
    good: () => ({ name: "head target", position: "tracker" }),
    typo: { options: () => ({ postion: "tracker" }), key: "postion", hint: '"position"' },
    wrong: () => ({ name: 5 }),
  },
  {
    name: "kneeEulerLimit",
    make: (o) => void kneeEulerLimit(tr.leftThigh, tr.leftCalf, tr.leftFoot, { forward: new Vector3(0, 0, 1), ...o }),
    good: () => ({ minBend: 1, maxBend: 150 }),
    typo: { options: () => ({ maxbend: 150 }), key: "maxbend", hint: '"maxBend"' },
    wrong: () => ({ maxBend: "150" }),
  },
  {
    name: "bipedNameMap",
    make: (o) => void bipedNameMap(m.skeleton, twin, o),
    good: () => ({ sourceReferences: {}, targetReferences: {} }),
    typo: { options: () => ({ sourceReference: {} }), key: "sourceReference", hint: '"sourceReferences"' },
    wrong: () => ({ targetReferences: "DEF-hips" }),
  },
  {
    name: "alignRestPose",
    make: (o) => void alignRestPose(m.skeleton, twin, o)(),
    good: () => ({ targetReferences: {} }),
    typo: { options: () => ({ targetReference: {} }), key: "targetReference", hint: '"targetReferences"' },
    wrong: () => ({ sourceReferences: 1 }),
  },
  {
    // called directly, its overrides are its options: it returns their warnings with detection's
    name: "resolveBipedReferences",
    make: (o) => ({ warningsRaised: resolveBipedReferences(twin, o).warnings.map((message) => ({ message })) }),
    good: () => ({ leftHand: tr.leftHand, rightHand: tr.rightHand.name }),
    typo: { options: () => ({ leftHnad: tr.leftHand }), key: "leftHnad", hint: '"leftHand"' },
    wrong: () => ({ leftHand: 5 }),
  },
];

/** A link to the right hand, and one with a misspelt key, as a modifier's effectorLinks hold them. */
const rightHand = () => [{ effector: E.RightHand, weight: 1 }];
const misspeltLink = () => [{ effector: E.RightHand, wieght: 1 }];

/** The nested options: references, array entries and links, checked key by key and named by their path. */
const NESTED: Case[] = [
  {
    name: "FullBodyBipedIK references",
    make: (o) => FullBodyBipedIK.create(scene, twin, o),
    good: () => ({ references: { leftHand: tr.leftHand, rightHand: tr.rightHand.name, root: null } }),
    // the likeliest typo of a custom rig: main ignored it and detected the left hand by name, without a word
    typo: {
      options: () => ({ references: { leftHnad: tr.leftForearm } }),
      key: "references.leftHnad",
      hint: '"leftHand"',
    },
    wrong: () => ({ references: { leftHand: 5 } }),
    wrongAt: "references.leftHand",
  },
  {
    name: "bipedNameMap references",
    make: (o) => void bipedNameMap(m.skeleton, twin, o),
    good: () => ({ sourceReferences: { pelvis: m.skeleton.bones[0]!.name }, targetReferences: {} }),
    typo: {
      options: () => ({ targetReferences: { pelivs: tr.pelvis } }),
      key: "targetReferences.pelivs",
      hint: '"pelvis"',
    },
    wrong: () => ({ sourceReferences: { head: true } }),
    wrongAt: "sourceReferences.head",
  },
  {
    name: "JacobianIK effectors",
    make: (o) => JacobianIK.create(scene, bones(tr.leftThigh, tr.leftCalf, tr.leftFoot), o),
    good: () => ({
      effectors: [{ bone: tr.leftFoot, target: node("t"), weight: 1 }],
      joints: [undefined, { locked: true }],
    }),
    // once, by its path: not again as an effector's option
    typo: {
      options: () => ({ effectors: [{ bone: tr.leftFoot, wieght: 1 }] }),
      key: "effectors[0].wieght",
      hint: '"weight"',
    },
    wrong: () => ({ joints: [{ locked: "yes" }] }),
    wrongAt: "joints[0].locked",
  },
  {
    name: "Recoil offsets",
    make: (o) => new Recoil(ik, o),
    good: () => ({ offsets: [{ offset: { x: 0, y: 0, z: -0.1 }, additivity: 1, effectorLinks: rightHand() }] }),
    typo: {
      options: () => ({ offsets: [{ offset: { x: 0, y: 0, z: -0.1 }, effectorLinks: misspeltLink() }] }),
      key: "offsets[0].effectorLinks[0].wieght",
      hint: '"weight"',
    },
    // an effector by its enum's name: a number is expected
    wrong: () => ({ offsets: [{ offset: { x: 0, y: 0, z: -0.1 }, effectorLinks: [{ effector: "RightHand" }] }] }),
    wrongAt: "offsets[0].effectorLinks[0].effector",
  },
  {
    name: "Inertia bodies",
    make: (o) => new Inertia(ik, o),
    good: () => ({ bodies: [{ transform: ik.references.pelvis, effectorLinks: rightHand(), speed: 10 }] }),
    typo: {
      options: () => ({ bodies: [{ transform: ik.references.pelvis, effectorLinks: rightHand(), sped: 10 }] }),
      key: "bodies[0].sped",
      hint: '"speed"',
    },
    wrong: () => ({ bodies: [{ transform: ik.references.pelvis, effectorLinks: rightHand(), gravity: "1" }] }),
    wrongAt: "bodies[0].gravity",
  },
  {
    name: "Amplifier bodies",
    make: (o) => new Amplifier(ik, o),
    good: () => ({
      bodies: [{ transform: ik.references.pelvis, relativeTo: ik.references.spine[0]!, effectorLinks: rightHand() }],
    }),
    typo: {
      options: () => ({
        bodies: [{ transform: ik.references.pelvis, relativeto: ik.references.spine[0]!, effectorLinks: rightHand() }],
      }),
      key: "bodies[0].relativeto",
      hint: '"relativeTo"',
    },
    wrong: () => ({ bodies: [3] }),
    wrongAt: "bodies[0]",
  },
  {
    name: "HitPointEffector effectorLinks",
    make: (o) => void new HitPointEffector({ name: "chest", ...o } as never),
    good: () => ({ effectorLinks: [{ effector: E.Body, weight: 0.5 }] }),
    typo: {
      options: () => ({ effectorLinks: [{ efector: E.Body }] }),
      key: "effectorLinks[0].efector",
      hint: '"effector"',
    },
    wrong: () => ({ effectorLinks: [{ effector: E.Body, weight: "1" }] }),
    wrongAt: "effectorLinks[0].weight",
  },
  {
    name: "HitPointBone boneLinks",
    make: (o) => void new HitPointBone({ name: "spine", ...o } as never),
    good: () => ({ boneLinks: [{ bone: ik.references.spine[0]!, weight: 1 }] }),
    typo: {
      options: () => ({ boneLinks: [{ bone: ik.references.spine[0]!, wieght: 1 }] }),
      key: "boneLinks[0].wieght",
      hint: '"weight"',
    },
    wrong: () => ({ boneLinks: [{ bone: "spine" }] }),
    wrongAt: "boneLinks[0].bone",
  },
  {
    name: "FBBIKHeadEffector bendBones",
    make: (o) => FBBIKHeadEffector.create(ik, o),
    good: () => ({
      bendBones: [ik.references.spine[0]!, { bone: ik.references.spine[1] ?? ik.references.spine[0]!, weight: 0.5 }],
    }),
    typo: {
      options: () => ({ bendBones: [{ bone: ik.references.spine[0]!, wieght: 1 }] }),
      key: "bendBones[0].wieght",
      hint: '"weight"',
    },
    wrong: () => ({ bendBones: [{ bone: ik.references.spine[0]!, weight: "1" }] }),
    wrongAt: "bendBones[0].weight",
  },
  {
    name: "GrounderFBBIK spine",
    make: (o) => GrounderFBBIK.create(ik, o),
    good: () => ({ spine: [new GrounderSpineEffector(E.LeftShoulder, 1, 0)] }),
    // a JavaScript user's object literal for the class
    typo: {
      options: () => ({ spine: [{ effectorType: E.LeftShoulder, horizontalWieght: 1, verticalWeight: 0 }] }),
      key: "spine[0].horizontalWieght",
      hint: '"horizontalWeight"',
    },
    wrong: () => ({ spine: [{ effectorType: "LeftShoulder", horizontalWeight: 1, verticalWeight: 0 }] }),
    wrongAt: "spine[0].effectorType",
  },
  {
    name: "ClimbSequencer steps",
    make: climbing,
    good: () => ({ steps: [{ time: 0, limb: E.LeftHand, hold: node("rung") }] }),
    typo: {
      options: () => ({ steps: [{ tme: 0, limb: E.LeftHand, hold: node("rung") }] }),
      key: "steps[0].tme",
      hint: '"time"',
    },
    wrong: () => ({ steps: [{ time: "0", limb: E.LeftHand, hold: node("rung") }] }),
    wrongAt: "steps[0].time",
  },
];

beforeAll(async () => {
  m = await loadModel("UAL");
  scene = m.scene;
  scene.render();
  ik = FullBodyBipedIK.create(scene, m.skeleton);
  ik.onWarningObservable.add((w) => void fromIk.push(w.message));
  const t = m.container.instantiateModelsToScene((n) => `twin_${n}`, false, { doNotInstantiate: true });
  twin = t.skeletons[0]!;
  tr = resolveBipedReferences(twin).references;
  ground = CreateBox("ground", { size: 1 }, scene);
});
afterAll(() => m.dispose());

let logged: string[] = [];
beforeEach(() => {
  logged = [];
  fromIk.length = 0;
  ik.solver.inner.resetWarnings();
  vi.spyOn(Logger, "Warn").mockImplementation((msg: unknown) => void logged.push(String(msg)));
});
afterEach(() => vi.restoreAllMocks());

/** Makes the case with `options`: what it threw, and every warning naming an option it raised. */
function attempt(c: Case, options: object): { threw: unknown; warned: string[] } {
  let threw: unknown = null;
  let made: Made | undefined;
  try {
    made = c.make(options);
  } catch (e) {
    threw = e;
  }
  const all = [...logged, ...fromIk, ...(made?.warningsRaised ?? []).map((w) => w.message)];
  made?.dispose?.();
  // a component of the family both keeps its warnings and logs them when nobody observes: one warning
  const once = new Set(all.map((w) => w.replace(/^babylon-fbbik: /, "")));
  return { threw, warned: [...once].filter((w) => /option/.test(w)) };
}

describe("options a JavaScript user mistypes", () => {
  describe.each([...CASES, ...NESTED])("$name", (c) => {
    it("options as the docs write them warn nothing", () => {
      const r = attempt(c, c.good());
      expect(r.threw).toBeNull();
      expect(r.warned).toEqual([]);
    });
    it("an unknown key warns once, with the component and the nearest name", () => {
      const r = attempt(c, c.typo.options());
      expect(r.threw).toBeNull();
      expect(r.warned).toHaveLength(1);
      expect(r.warned[0]).toContain(`"${c.typo.key}"`);
      expect(r.warned[0]).toContain(c.name.split(" ")[0]);
      expect(r.warned[0]).toContain(c.typo.hint);
    });
    it("a value of the wrong type throws an FBBIKError naming it", () => {
      const options = c.wrong();
      const r = attempt(c, options);
      expect(r.threw).toBeInstanceOf(FBBIKError);
      expect((r.threw as FBBIKError).message).toContain(`"${c.wrongAt ?? Object.keys(options)[0]}"`);
    });
    it("an array where an object goes (`target: [node]`) throws an FBBIKError naming it", () => {
      const good = c.good() as Record<string, unknown>;
      const key = Object.keys(good).find(
        (k) => typeof good[k] === "object" && good[k] !== null && !Array.isArray(good[k]),
      );
      if (key === undefined) return;
      const r = attempt(c, { ...good, [key]: [good[key]] });
      expect(r.threw).toBeInstanceOf(FBBIKError);
      expect((r.threw as FBBIKError).message).toContain(`option "${key}" is an array of 1`);
    });
  });
});
