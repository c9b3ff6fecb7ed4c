/**
 * Every component class the package exports on characters walking at once (all-components-frame-heap.test.ts).
 * UAL walking a circle (Walk_Loop) carries a FullBodyBipedIK with handles, a head effector, a grounder on static
 * and moving ground, an interaction started, paused, resumed and ended, all six offset modifiers (a hit and a shot
 * now and then), colliders and TwistRelaxer's forearms, under an IKLevelOfDetail switching it between Full and Cheap; its twin in the same
 * scene carries the family (LimbIK, AimIK, LookAtIK, CCDIK with joint limits and colliders, FABRIK, FABRIKRoot,
 * JacobianIK); a third UAL walks on LimbIK legs grounded by GrounderIK, one foot on a step; RiggedFigure.babylon
 * (plain Bones) an FBBIK with a grounder and modifiers, a LookAtIK and a limited CCDIK; a fourth UAL on BipedIK,
 * its feet grounded by GrounderIK. Components fade off and on
 * over enableFadeSeconds, reversed mid-fade.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { AimIK } from "../../src/babylon/aim-ik.js";
import { BipedIK } from "../../src/babylon/biped-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { CCDIK, FABRIK, FABRIKRoot } from "../../src/babylon/chain-ik.js";
import { EffectorHandles } from "../../src/babylon/effector-handles.js";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { JacobianIK } from "../../src/babylon/jacobian-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { TwistRelaxer } from "../../src/babylon/twist-relaxer.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { Curve } from "../../src/math/curve.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { GrounderIK } from "../../src/effectors/grounding/grounder-ik.js";
import { MovingGroundRaycast } from "../../src/effectors/grounding/moving-ground-raycast.js";
import { nearestGroundRaycast } from "../../src/effectors/grounding/nearest-ground-raycast.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { InteractionCurveType } from "../../src/effectors/interaction/interaction-curves.js";
import { InteractionObject } from "../../src/effectors/interaction/interaction-object.js";
import { InteractionSystem } from "../../src/effectors/interaction/interaction-system.js";
import { Amplifier } from "../../src/effectors/modifiers/amplifier.js";
import { BodyTilt } from "../../src/effectors/modifiers/body-tilt.js";
import { EffectorOffset } from "../../src/effectors/modifiers/effector-offset.js";
import { HitPointBone, HitPointEffector, HitReaction } from "../../src/effectors/modifiers/hit-reaction.js";
import { Inertia } from "../../src/effectors/modifiers/inertia.js";
import { OffsetPose } from "../../src/effectors/modifiers/offset-pose.js";
import { Recoil } from "../../src/effectors/modifiers/recoil.js";
import { RotationLimitAngle } from "../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitEuler } from "../../src/joints/limits/rotation-limit-euler.js";
import { RotationLimitHinge } from "../../src/joints/limits/rotation-limit-hinge.js";
import { RotationLimitPolygonal } from "../../src/joints/limits/rotation-limit-polygonal.js";
import { Vec3 } from "../../src/math/vec3.js";
import { FullBodyBipedEffector as E } from "../../src/solver/biped-bones.js";
import { BakedClip, renderReplaying } from "../helpers/baked-clip.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { bonePos } from "../helpers/model-limbs.js";
import { height, worldPos } from "../helpers/scene-probes.js";

/** Frames of the schedule: fades, an interaction, hits, shots and levels each come round once per period. */
export const PERIOD = 240;
/** 0.3 s of fade is 19 frames of 16 ms. */
const FADE = { enableFadeSeconds: 0.3 };

/** Seeded uniform numbers whose state stays a small integer (a large one would be a heap number itself). */
class SmallRandom {
  private seed = 7;
  readonly next = (): number => {
    this.seed = (this.seed * 75 + 74) % 65537;
    return this.seed / 65537;
  };
}

/** The events of a frame, as flags: anything else a frame does is steady (targets moving, fades running). */
export const Happening = {
  /** Fourteen components' `enabled` flipped (a fade starts or turns back). */
  Fade: 1,
  /** A's FullBodyBipedIK switched off or on. */
  IKSwitch: 2,
  /** A's level of detail switched (Cheap or Full), some frames after its Cheap distance changed. */
  Level: 4,
  /** An interaction started. */
  Start: 8,
  /** The paused interaction resumed. */
  Resume: 16,
  /** The interaction paused at its event. */
  Pause: 32,
  /** The interaction reached its end. */
  Stop: 64,
  /** HitReaction.hit(). */
  Hit: 128,
  /** Recoil.fire(). */
  Shot: 256,
} as const;

/** The names of the flags in `flags`, joined by "+" ("steady" for none). */
export function happeningNames(flags: number): string {
  const names = Object.entries(Happening)
    .filter(([, bit]) => (flags & bit) !== 0)
    .map(([name]) => name);
  return names.length === 0 ? "steady" : names.join("+");
}

/** `count` places on a circle of `radius` about `centre` (made beforehand: Babylon's setters may box doubles). */
function ring(centre: Vector3, radius: number, count: number, y = 0): Vector3[] {
  return Array.from({ length: count }, (_, i) => {
    const a = (2 * Math.PI * i) / count;
    return centre.add(new Vector3(radius * Math.cos(a), y * Math.sin(3 * a), radius * Math.sin(a)));
  });
}

/** A node at `at` (world), under `parent` when given. */
function nodeAt(scene: Scene, name: string, at: Vector3, parent?: TransformNode): TransformNode {
  const n = new TransformNode(name, scene);
  if (parent !== undefined) n.parent = parent;
  n.setAbsolutePosition(at);
  return n;
}

function bone(bones: readonly Bone[], name: string): Bone {
  const b = bones.find((x) => x.name === name);
  if (b === undefined) throw new Error(`no bone ${name}`);
  return b;
}

/** The scene of every component, with the frame that moves it and the parts a test checks. */
export async function allComponentsScene(events = { hits: true, shots: true, interaction: true, fades: true }) {
  const open: LoadedModel[] = [];
  const m = await loadModel("UAL", { clips: (c) => c === "Walk_Loop" });
  open.push(m);
  const scene = m.scene;
  const h = height(m);
  const twin = m.container.instantiateModelsToScene((n) => `twin_${n}`, false, { doNotInstantiate: true });
  const twinRoot = twin.rootNodes[0] as TransformNode;
  twinRoot.position.set(2 * h, 0, 3 * h);
  const walker = m.container.instantiateModelsToScene((n) => `walker_${n}`, false, { doNotInstantiate: true });
  (walker.rootNodes[0] as TransformNode).position.set(-2 * h, 0, 3 * h);
  for (const g of [...m.container.animationGroups, ...twin.animationGroups, ...walker.animationGroups]) g.start(true);
  const clip = BakedClip.bake(scene, 167);
  clip.apply(0);
  scene.render();

  // --- A: the full body and everything hooked on it
  const ik = FullBodyBipedIK.create(scene, m.skeleton, FADE);
  const r = ik.references;
  const root = m.root;
  const ground = CreateGround("ground", { width: 20 * h, height: 20 * h }, scene);
  const platform = CreateBox("platform", { width: 0.6 * h, depth: 0.6 * h, height: 0.1 * h }, scene);
  platform.position.set(1.2 * h, -0.04 * h, 0);
  const grounder = GrounderFBBIK.create(ik, {
    raycast: nearestGroundRaycast(
      StaticGroundRaycast.fromMeshes([ground]).raycast,
      MovingGroundRaycast.fromMeshes([platform]).raycast,
    ),
    ...FADE,
  });
  const handles = EffectorHandles.create(ik, { effectors: [E.LeftFoot, E.LeftHand] });
  const layer = handles.utilityLayer.utilityLayerScene;
  const leftHand = handles.find("left hand");
  handles.select(leftHand);
  handles.grab("position");
  // Babylon's gizmos allocate on their own while on a handle (handles-frame-heap.test.ts)
  handles.select(null);
  // dragged into the chest: the colliders push the hand out every frame, so their pass is warm (V8 runs a rare
  // path unoptimised, where every double it computes is a heap number)
  leftHand.mesh.parent = root;
  leftHand.mesh.setAbsolutePosition(Vector3.Lerp(worldPos(r.spine.at(-1)!), worldPos(r.leftHand), 0.2));
  scene.render();
  const headset = nodeAt(scene, "headset", worldPos(r.head!), root);
  headset.rotationQuaternion = Quaternion.Identity();
  const head = FBBIKHeadEffector.create(ik, { target: headset, ...FADE });
  const headsets = ring(headset.position.clone(), 0.02, 16);
  const system = new InteractionSystem(ik);
  const cup = nodeAt(scene, "cup", Vector3.Lerp(worldPos(r.rightHand), worldPos(r.rightUpperArm), 0.3), root);
  const reach = new Curve([
    { time: 0, value: 0 },
    { time: 0.4, value: 1 },
    { time: 0.8, value: 1 },
    { time: 1.2, value: 0 },
  ]);
  const hold = new InteractionObject(cup, {
    weightCurves: [
      { type: InteractionCurveType.PositionWeight, curve: reach },
      { type: InteractionCurveType.RotationWeight, curve: reach },
      { type: InteractionCurveType.Pull, curve: reach },
    ],
    events: [{ time: 0.4, pause: true }],
  });
  const chest = r.spine.at(-1)!;
  const box = CreateBox("chest", { size: 0.2 * h }, scene);
  box.parent = root;
  box.setAbsolutePosition(worldPos(chest));
  const hit = new HitReaction(ik, {
    ...FADE,
    effectorHitPoints: [
      new HitPointEffector({ collider: box, effectorLinks: [{ effector: E.Body }, { effector: E.LeftShoulder }] }),
    ],
    boneHitPoints: [new HitPointBone({ collider: box, boneLinks: [{ bone: r.spine[0]! }] })],
  });
  const recoil = new Recoil(ik, {
    ...FADE,
    rotationRandom: { x: 3, y: 3, z: 2 },
    handRotationOffset: { x: -8, y: 3, z: 1 },
    random: new SmallRandom().next,
    offsets: [{ offset: new Vector3(0, 0.01 * h, -0.03 * h), effectorLinks: [{ effector: E.RightHand }] }],
  });
  const offset = new EffectorOffset(ik, { ...FADE, weight: 0.7, handsMaintainRelativePositionWeight: 0.4 });
  offset.bodyOffset.set(0, -0.02 * h, 0.01 * h);
  const post = new TransformNode("post", scene);
  const amplifier = new Amplifier(ik, {
    ...FADE,
    bodies: [{ transform: chest, relativeTo: post, effectorLinks: [{ effector: E.Body, weight: 0.02 }] }],
  });
  const inertia = new Inertia(ik, {
    ...FADE,
    bodies: [{ transform: r.pelvis, effectorLinks: [{ effector: E.Body }], gravity: -0.1 * h }],
  });
  const pose = (side: number) =>
    new OffsetPose([{ effector: E.Body, offset: new Vector3(0.03 * side * h, -0.01 * h, 0) }]);
  const tilt = new BodyTilt(ik, { ...FADE, tiltSensitivity: 1, poseLeft: pose(-1), poseRight: pose(1) });
  const torso = BoneCollider.fromWorld(chest, worldPos(r.pelvis), worldPos(r.head!), 0.12 * h);
  const colliders = FBBIKColliders.create(ik, { colliders: [torso], clearance: 0.01 * h, ...FADE });
  const arms = TwistRelaxer.createForArms(ik, FADE);
  const lod = IKLevelOfDetail.for(scene);
  Object.assign(lod, { budgetMs: Infinity, fullScreenSize: 0, offScreenSize: 0 });

  // --- B: the family on the twin, in the same scene
  const tb = twin.skeletons[0]!;
  const tr = resolveBipedReferences(tb).references;
  const look = LookAtIK.create(scene, { spine: tr.spine, head: tr.head! }, FADE);
  const barrel = new TransformNode("barrel", scene);
  barrel.parent = tr.rightHand.getTransformNode()!;
  barrel.position.set(0, 0.1, 0);
  const aim = AimIK.create(scene, [tr.rightUpperArm, tr.rightForearm, tr.rightHand], {
    aimTransform: barrel,
    ...FADE,
  });
  const limb = LimbIK.create(scene, tr.leftUpperArm, tr.leftForearm, tr.leftHand, FADE);
  limb.solver.ikRotationWeight = 0.5;
  const jacobian = JacobianIK.create(scene, [tr.leftThigh, tr.leftCalf, tr.leftFoot], {
    effectors: [{ bone: tr.leftFoot, target: nodeAt(scene, "step", worldPos(tr.leftFoot)) }],
    ...FADE,
  });
  jacobian.solver.ikPositionWeight = 0.8;
  const ball = nodeAt(scene, "ball", worldPos(tr.rightCalf).add(new Vector3(0, 0, 0.1 * h)));
  const kick = nodeAt(scene, "kick", worldPos(tr.rightFoot).add(new Vector3(0, 0.2 * h, 0.2 * h)));
  const ccd = CCDIK.create(scene, [tr.rightThigh, tr.rightCalf, tr.rightFoot], {
    target: kick,
    colliders: [BoneCollider.sphere(ball, 0.05 * h)],
    ...FADE,
  });
  ccd.solver.setLimit(0, new RotationLimitAngle(new Vec3(0, -1, 0), 60, 20));
  ccd.solver.setLimit(1, new RotationLimitEuler(new Vec3(-2.5, 0, 0), new Vec3(0, 0, 0)));
  ccd.solver.subSteps = 2;
  const finger = (side: string, name: string) => [1, 2, 3].map((k) => bone(tb.bones, `DEF-${name}.0${k}.${side}`));
  // a target that moves with the hand within the finger's reach: one left where it was set is out of reach in
  // most frames, and the solve it then skips runs too rarely for V8 to optimise (it boxed 330 B a solve)
  const index = finger("R", "f_index");
  const hand = tr.rightHand.getTransformNode()!;
  const indexBase = worldPos(index[0]!);
  const indexTip = worldPos(index[2]!);
  const point = nodeAt(scene, "point", Vector3.Lerp(indexBase, indexTip, 0.8), hand);
  const points = ring(
    point.position.clone(),
    (0.15 * Vector3.Distance(indexBase, indexTip)) / hand.absoluteScaling.x,
    32,
  );
  const fabrik = FABRIK.create(scene, index, { target: point, tolerance: 0.001 * h, ...FADE });
  fabrik.solver.setLimit(1, new RotationLimitHinge(new Vec3(1, 0, 0), -90, 10));
  // the finger's root: a default square reach cone of 45° about the bone (+Y), twist ±10°
  fabrik.solver.setLimit(0, new RotationLimitPolygonal(new Vec3(0, 1, 0), undefined, 10));
  const fingers = ["f_index", "f_middle", "f_ring"].map((n) => finger("L", n));
  const palm = FABRIKRoot.create(scene, tr.leftHand, fingers, { maxIterations: 4, ...FADE });
  palm.solver.rootPin = 1;
  // a third UAL walking in place on LimbIK legs, grounded by GrounderIK over the ground and a step under one foot
  const wr = resolveBipedReferences(walker.skeletons[0]!).references;
  const walkerLegs = (["left", "right"] as const).map((side) => {
    const leg = LimbIK.create(scene, wr[`${side}Thigh`], wr[`${side}Calf`], wr[`${side}Foot`], FADE);
    leg.solver.ikPositionWeight = leg.solver.ikRotationWeight = 0;
    return leg;
  });
  const stair = CreateBox("stair", { width: 0.3 * h, depth: 0.4 * h, height: 0.12 * h }, scene);
  stair.position.copyFrom(worldPos(wr.leftFoot));
  stair.position.y = 0.06 * h - 0.04 * h;
  const walkerGrounder = GrounderIK.create(walkerLegs, wr.pelvis, {
    raycast: StaticGroundRaycast.fromMeshes([ground, stair]).raycast,
  });

  // a fourth UAL on BipedIK: every part weighted, its feet grounded by GrounderIK, its pelvis offset
  const bipedModel = m.container.instantiateModelsToScene((n) => `biped_${n}`, false, { doNotInstantiate: true });
  (bipedModel.rootNodes[0] as TransformNode).position.set(2 * h, 0, -3 * h);
  for (const g of bipedModel.animationGroups) g.start(true);
  const biped = BipedIK.create(scene, bipedModel.skeletons[0]!, FADE);
  const bs = biped.solvers;
  const br = biped.references;
  for (const part of [bs.leftHand, bs.rightHand, bs.spine, bs.aim, bs.lookAt]) part.solver.ikPositionWeight = 1;
  bs.pelvis.positionOffset.set(0, -0.03 * h, 0);
  bs.pelvis.solver.rotationWeight = 0.5;
  const bipedGrounder = GrounderIK.create([bs.leftFoot, bs.rightFoot], br.pelvis, {
    raycast: StaticGroundRaycast.fromMeshes([ground]).raycast,
  });
  const bipedHands = [br.leftHand, br.rightHand].map((b) =>
    ring(worldPos(b).add(new Vector3(0, 0, 0.1 * h)), 0.05 * h, 32),
  );
  const bipedTop = worldPos(br.spine[br.spine.length - 1]!);
  const bipedLooks = ring(bipedTop.add(new Vector3(0, 0.2 * h, h)), 0.3 * h, 32);
  const bipedSpines = ring(bipedTop, 0.02 * h, 32);

  // --- C: RiggedFigure.babylon (plain Bones) in a scene of its own
  const c = await loadModel("RiggedFigureBabylon");
  open.push(c);
  const ys = c.skeleton.bones.map((b) => bonePos(c, b).y);
  const ch = Math.max(...ys) - Math.min(...ys);
  const cClip = BakedClip.bake(c.scene, 60);
  cClip.apply(0);
  c.scene.render();
  const cIk = FullBodyBipedIK.create(c.scene, c.skeleton, FADE);
  const cr = cIk.references;
  const deck = CreateBox("deck", { width: 4 * ch, depth: 4 * ch, height: 0.1 * ch }, c.scene) as Mesh;
  deck.position.y = -0.05 * ch;
  GrounderFBBIK.create(cIk, { raycast: MovingGroundRaycast.fromMeshes([deck]).raycast, ...FADE });
  const cOffset = new EffectorOffset(cIk, FADE);
  cOffset.leftHandOffset.set(0, 0.05 * ch, 0.05 * ch);
  const cLook = LookAtIK.create(c.scene, { head: cr.head! }, FADE);
  const cArm = CCDIK.create(c.scene, [cr.rightUpperArm, cr.rightForearm, cr.rightHand], FADE);
  cArm.solver.setLimit(1, new RotationLimitHinge(new Vec3(0, 0, 1), -120, 0));
  const cLod = IKLevelOfDetail.for(c.scene);
  cLod.budgetMs = Infinity;

  // --- the motion, made beforehand
  const turn0 = (root.rotationQuaternion ??= Quaternion.Identity()).clone();
  const places = ring(Vector3.Zero(), 1.2 * h, PERIOD);
  const turns = places.map((_, i) =>
    Quaternion.RotationYawPitchRoll((-2 * Math.PI * i) / PERIOD, 0, 0).multiply(turn0),
  );
  const headTwin = worldPos(tr.head!);
  const lookAts = ring(headTwin.add(new Vector3(0, 0, h)), 0.3 * h, 32, 0.1 * h);
  const aims = ring(worldPos(tr.rightHand).add(new Vector3(0.3 * h, 0, 0.5 * h)), 0.2 * h, 32, 0.1 * h);
  const grips = ring(worldPos(tr.leftHand).add(new Vector3(0, 0.1 * h, 0.1 * h)), 0.05 * h, 32);
  const balls = ring(ball.position.clone(), 0.03 * h, 32);
  const decks = ring(deck.position.clone(), 0, 32, 0.02 * ch);
  const platforms = ring(platform.position.clone(), 0, 32, 0.03 * h);
  const tips = fingers.map((f) => worldPos(f[2]!));
  const cHead = bonePos(c, cr.head!);
  const cLooks = ring(cHead.add(new Vector3(0, 0, ch)), 0.3 * ch, 32);
  const cReaches = ring(bonePos(c, cr.rightHand).add(new Vector3(0, 0.1 * ch, 0.2 * ch)), 0.05 * ch, 32);
  const fading = [
    head,
    grounder,
    offset,
    colliders,
    arms.left,
    hit,
    inertia,
    look,
    aim,
    limb,
    ccd,
    palm,
    cIk,
    cArm,
    ...walkerLegs,
    bs.leftHand,
    bs.pelvis,
  ];
  const flip = (xs: { enabled: boolean }[]): void => {
    for (let i = 0; i < xs.length; i++) xs[i]!.enabled = !xs[i]!.enabled;
  };
  const force = new Vector3(0.01 * h, 0, 0.03 * h);
  const at = worldPos(chest);

  // the events the schedule runs at frame k of the period (Happening flags)
  const scheduled = (k: number): number =>
    // off at 0, reversed at 8 and 12, on at 40 (whole); A's own IK off and on at 170 and 200
    (events.fades && (k === 0 || k === 8 || k === 12 || k === 40) ? Happening.Fade : 0) |
    (events.fades && (k === 170 || k === 200) ? Happening.IKSwitch : 0) |
    // paused from about 45 to 150: a path that runs only while paused is warm too
    (events.interaction && k === 20 ? Happening.Start : 0) |
    (events.interaction && k === 150 ? Happening.Resume : 0) |
    (events.hits && k % 12 === 6 ? Happening.Hit : 0) |
    (events.shots && k % 7 === 0 ? Happening.Shot : 0);
  // what the interaction does of itself (its pause event, its end), seen through the system's observables
  let inner = 0;
  system.onInteractionPauseObservable.add(() => {
    inner |= Happening.Pause;
  });
  system.onInteractionStopObservable.add(() => {
    inner |= Happening.Stop;
  });
  let last = 0;
  // the level switches in a frame of the level of detail's choosing: its event says so
  lod.onLevelChangedObservable.add((e) => {
    if (e.ik === ik) inner |= Happening.Level;
  });

  const frame = (f: number): void => {
    const k = f % PERIOD;
    const now = scheduled(k);
    inner = 0;
    if (now & Happening.Fade) flip(fading);
    if (now & Happening.IKSwitch) ik.enabled = !ik.enabled;
    // Cheap from about 100 to 150 (its output cross-fades)
    if (k === 100) lod.cheapDistance = 0;
    if (k === 150) lod.cheapDistance = Infinity;
    if (now & Happening.Start) system.startInteraction(E.RightHand, hold, false);
    if (now & Happening.Resume) system.resumeInteraction(E.RightHand);
    if (now & Happening.Hit) hit.hit(box, force, at);
    if (now & Happening.Shot) recoil.fire(1);
    root.position.copyFrom(places[k]!);
    root.rotationQuaternion!.copyFrom(turns[k]!);
    headset.position.copyFrom(headsets[f % 16]!);
    look.targetPosition.copyFrom(lookAts[f % 32]!);
    aim.targetPosition.copyFrom(aims[f % 32]!);
    limb.targetPosition.copyFrom(grips[f % 32]!);
    ball.position.copyFrom(balls[f % 32]!);
    point.position.copyFrom(points[f % 32]!);
    platform.position.copyFrom(platforms[f % 32]!);
    deck.position.copyFrom(decks[f % 32]!);
    cLook.targetPosition.copyFrom(cLooks[f % 32]!);
    cArm.targetPosition.copyFrom(cReaches[f % 32]!);
    bs.leftHand.targetPosition.copyFrom(bipedHands[0]![f % 32]!);
    bs.rightHand.targetPosition.copyFrom(bipedHands[1]![f % 32]!);
    bs.spine.targetPosition.copyFrom(bipedSpines[f % 32]!);
    bs.aim.targetPosition.copyFrom(bipedLooks[(f + 8) % 32]!);
    bs.lookAt.targetPosition.copyFrom(bipedLooks[f % 32]!);
    for (let i = 0; i < 3; i++) palm.targetPositions[i]!.copyFrom(tips[i]!);
    renderReplaying(scene, clip, f);
    layer.onBeforeRenderObservable.notifyObservers(layer);
    renderReplaying(c.scene, cClip, f);
    last = now | inner;
  };
  return {
    frame,
    /** The Happening flags of the frame run last: the schedule's events and the interaction's own. */
    happened: (): number => last,
    ik,
    head,
    system,
    lod,
    hit,
    recoil,
    tilt,
    amplifier,
    walkerGrounder,
    biped,
    bipedGrounder,
    dispose: () => {
      for (const x of open) x.dispose();
    },
  };
}
