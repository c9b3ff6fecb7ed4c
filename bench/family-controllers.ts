/**
 * The family benchmark's two-bone and look-at groups: our IKSolverLimb and IKSolverLookAt on a BabylonRig
 * against Babylon's own BoneIKController and BoneLookController, on the same bones built in code.
 */
import { BoneIKController } from "@babylonjs/core/Bones/boneIKController.js";
import { BoneLookController } from "@babylonjs/core/Bones/boneLookController.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { IKSolverLookAt } from "../src/aim/ik-solver-look-at.js";
import { LimbIK } from "../src/babylon/limb-ik.js";
import { LookAtIK } from "../src/babylon/look-at-ik.js";
import type { RigComponent } from "../src/babylon/rig-component.js";
import { IKSolverLimb } from "../src/limb/ik-solver-limb.js";
import { Quat, inverseRotateVector, rotateVector } from "../src/math/quat.js";
import { Vec3 } from "../src/math/vec3.js";
import { type LoadedModel, loadModel } from "../test/helpers/babylon-scene.js";
import { Random } from "../test/helpers/random.js";
import { type TailRig, buildTail } from "../test/helpers/tail-rig.js";
import {
  type FamilyGroupResult,
  type Impl,
  TARGET_COUNT,
  advanceFrame,
  measureGroup,
  rigOver,
  tailTipWorld,
  toComponent,
} from "./family-harness.js";

/**
 * A component's frame as `scene.render()` drives it (frame id, target, the SceneUpdater's observers:
 * FixTransforms, then read, solve, write) and its base (frame id, target, FixTransforms).
 */
function componentFrame(scene: Scene, ik: RigComponent, setTarget: (frame: number) => void): Pick<Impl, "op" | "base"> {
  return {
    op: (f) => {
      advanceFrame(scene);
      setTarget(f);
      scene.onBeforeAnimationsObservable.notifyObservers(scene);
      scene.onBeforeRenderObservable.notifyObservers(scene);
      scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
    },
    base: (f) => {
      advanceFrame(scene);
      setTarget(f);
      ik._beforeAnimations();
    },
  };
}

const LIMB_SEGMENT = 0.3;
const LIMB_CURL = 0.4;

/** `TARGET_COUNT` targets around `origin` at 20–90 % of `reach`, every direction. */
function sphereTargets(origin: Vector3, reach: number, seed: number): Float64Array {
  const rnd = new Random(seed);
  const out = new Float64Array(3 * TARGET_COUNT);
  for (let i = 0; i < TARGET_COUNT; i++) {
    const u = rnd.next() * 2 - 1;
    const a = rnd.next() * Math.PI * 2;
    const r = Math.sqrt(1 - u * u);
    const d = reach * (0.2 + 0.7 * rnd.next());
    out[3 * i] = origin.x + d * r * Math.cos(a);
    out[3 * i + 1] = origin.y + d * u;
    out[3 * i + 2] = origin.z + d * r * Math.sin(a);
  }
  return out;
}

/**
 * IKSolverLimb against Babylon's BoneIKController on the same synthetic arm (a shoulder, upper arm, forearm
 * and hand built in code, bones along +Y as BoneIKController expects, the elbow bent at rest), the same
 * pole (our bend goal) and 600 reachable targets. Error: the hand's distance from the target, % of the arm.
 */
export function limbGroup(): FamilyGroupResult {
  const build = () => buildTail({ count: 4, segment: LIMB_SEGMENT, curl: LIMB_CURL });
  const reach = 2 * LIMB_SEGMENT;
  const pole = new Vector3(0.3, 0.3, -0.6);
  const impls: Impl[] = [];
  const disposers: Array<() => void> = [];
  let targets: Float64Array | null = null;
  let frameTail: TailRig | null = null;
  for (const frameKind of [true, false]) {
    const tail = build();
    const { rig, ids } = rigOver(tail);
    if (targets === null) targets = sphereTargets(tail.bones[1]!.getAbsolutePosition(tail.mesh), reach, 28);
    const t = targets;
    const ct = toComponent(rig, t);
    const solver = new IKSolverLimb(rig, ids[1]!, ids[2]!, ids[3]!, { parent: ids[0]! });
    solver.ikRotationWeight = 0;
    solver.bendModifier = "goal";
    solver.bendGoalWeight = 1;
    rig.worldToComponentPoint(pole, solver.bendGoal);
    const setTarget = (f: number): void => {
      const o = 3 * (f % TARGET_COUNT);
      solver.ikPosition.x = ct[o]!;
      solver.ikPosition.y = ct[o + 1]!;
      solver.ikPosition.z = ct[o + 2]!;
    };
    const hand = new Vec3();
    const handWorld = new Vector3();
    const componentError = (f: number): number => {
      rig.getPosition(ids[3]!, hand);
      const o = 3 * (f % TARGET_COUNT);
      return (
        (100 * Math.hypot(hand.x - ct[o]!, hand.y - ct[o + 1]!, hand.z - ct[o + 2]!)) / (reach / rig.componentScale)
      );
    };
    const worldError = (f: number): number => {
      tailTipWorld(tail, handWorld);
      const o = 3 * (f % TARGET_COUNT);
      return (100 * Math.hypot(handWorld.x - t[o]!, handWorld.y - t[o + 1]!, handWorld.z - t[o + 2]!)) / reach;
    };
    if (frameKind) {
      frameTail = tail;
      // the LimbIK component on this arm, driven as scene.render() drives it
      const ik = LimbIK.create(tail.scene, tail.bones[1]!, tail.bones[2]!, tail.bones[3]!, { bendModifier: "goal" });
      ik.solver.ikRotationWeight = 0;
      ik.solver.bendGoalWeight = 1;
      ik.bendGoalPosition.copyFrom(pole);
      const frame = componentFrame(tail.scene, ik, (f) => {
        const o = 3 * (f % TARGET_COUNT);
        ik.targetPosition.set(t[o]!, t[o + 1]!, t[o + 2]!);
      });
      impls.push({
        label: "ours LimbIK, frame",
        name: "ours: LimbIK component, whole Babylon frame (FixTransforms, read, solve, write)",
        ...frame,
        error: worldError,
      });
    } else {
      const base = (f: number): void => {
        rig.read();
        setTarget(f);
      };
      impls.push({
        label: "ours IKSolverLimb, solver",
        name: "ours: IKSolverLimb on a BabylonRig, solver alone (base: rig.read())",
        op: (f) => {
          base(f);
          solver.solve();
        },
        base,
        error: componentError,
      });
    }
    disposers.push(() => {
      rig.dispose();
      tail.dispose();
    });
  }

  // Babylon's BoneIKController on the forearm (its parent is the upper arm), the same pole
  const tail = build();
  tail.scene.render();
  const t = targets!;
  const ctl = new BoneIKController(tail.mesh, tail.bones[2]!);
  ctl.poleTargetPosition.copyFrom(pole);
  // in this left-handed scene BoneIKController bends the elbow away from its pole: turned by π about the
  // shoulder-target line it bends toward it, as our bend goal does (checked below: the same elbow)
  ctl.poleAngle = Math.PI;
  const handWorld = new Vector3();
  impls.push({
    label: "Babylon BoneIKController",
    name: "Babylon: BoneIKController.update() (frame = target set + update)",
    op: (f) => {
      const o = 3 * (f % TARGET_COUNT);
      ctl.targetPosition.set(t[o]!, t[o + 1]!, t[o + 2]!);
      ctl.update();
    },
    base: null,
    error: (f) => {
      tailTipWorld(tail, handWorld);
      const o = 3 * (f % TARGET_COUNT);
      return (100 * Math.hypot(handWorld.x - t[o]!, handWorld.y - t[o + 1]!, handWorld.z - t[o + 2]!)) / reach;
    },
  });
  disposers.push(() => tail.dispose());
  checkSameElbow(impls[0]!, impls[2]!, frameTail!, tail, reach);
  const results = measureGroup(impls, null, "% of arm");
  for (const d of disposers) d();
  return {
    group: "LimbIK, two-bone arm",
    iterations: null,
    setup:
      `a synthetic arm (shoulder, two ${LIMB_SEGMENT} bones along +Y, hand; ${LIMB_CURL} rad bend per joint at ` +
      `rest), ${TARGET_COUNT} targets at 20–90 % of its reach in every direction, the same pole for both ` +
      "(our bendGoal, weight 1; BoneIKController's poleAngle π, so both put the elbow at the same place, " +
      "checked on 20 targets); no hand rotation",
    ours: results.slice(0, 2),
    peer: results.slice(2),
  };
}

/** Throws unless our LimbIK and BoneIKController put the elbow at the same place (the same problem solved). */
function checkSameElbow(ours: Impl, peer: Impl, oursTail: TailRig, peerTail: TailRig, reach: number): void {
  const a = new Vector3();
  const b = new Vector3();
  for (let f = 0; f < 20; f++) {
    ours.op(f);
    peer.op(f);
    for (const t of [oursTail, peerTail]) {
      t.mesh.computeWorldMatrix(true);
      t.skeleton.computeAbsoluteMatrices(true);
    }
    oursTail.bones[2]!.getAbsolutePositionToRef(oursTail.mesh, a);
    peerTail.bones[2]!.getAbsolutePositionToRef(peerTail.mesh, b);
    if (Vector3.Distance(a, b) > 1e-4 * reach) {
      throw new Error(
        `target ${f}: our elbow at ${a.asArray()}, BoneIKController's at ${b.asArray()}: not the same bend`,
      );
    }
  }
}

const NECK_SEGMENT = 0.15;
const NECK_CURL = 0.1;

/** Targets ahead of `origin`: yaw within ±70°, pitch within ±40°, 0.5–3 away (+Z is forward). */
function lookTargets(origin: Vector3, seed: number): Float64Array {
  const rnd = new Random(seed);
  const out = new Float64Array(3 * TARGET_COUNT);
  for (let i = 0; i < TARGET_COUNT; i++) {
    const yaw = ((rnd.next() * 2 - 1) * 70 * Math.PI) / 180;
    const pitch = ((rnd.next() * 2 - 1) * 40 * Math.PI) / 180;
    const d = 0.5 + 2.5 * rnd.next();
    out[3 * i] = origin.x + d * Math.cos(pitch) * Math.sin(yaw);
    out[3 * i + 1] = origin.y + d * Math.sin(pitch);
    out[3 * i + 2] = origin.z + d * Math.cos(pitch) * Math.cos(yaw);
  }
  return out;
}

/** Angle in degrees between `d` and the direction from `from` to target `o` of `t`. */
function angleTo(
  d: { x: number; y: number; z: number },
  from: { x: number; y: number; z: number },
  t: Float64Array,
  o: number,
): number {
  const x = t[o]! - from.x;
  const y = t[o + 1]! - from.y;
  const z = t[o + 2]! - from.z;
  const c = (d.x * x + d.y * y + d.z * z) / (Math.hypot(d.x, d.y, d.z) * Math.hypot(x, y, z));
  return (Math.acos(c > 1 ? 1 : c < -1 ? -1 : c) * 180) / Math.PI;
}

/**
 * IKSolverLookAt (head only, head weight 1, no clamp) against Babylon's BoneLookController on the same
 * neck and head (built in code; the head's +Z faces forward), 600 targets ahead. Error: the angle between
 * the head's forward and the direction to the target.
 */
export function lookAtGroup(): FamilyGroupResult {
  const build = () => buildTail({ count: 3, segment: NECK_SEGMENT, curl: NECK_CURL });
  const impls: Impl[] = [];
  const disposers: Array<() => void> = [];
  let targets: Float64Array | null = null;
  const forwardLocal = new Vector3(0, 0, 1);
  for (const frameKind of [true, false]) {
    const tail = build();
    const { rig, ids } = rigOver(tail);
    if (targets === null) targets = lookTargets(tail.bones[1]!.getAbsolutePosition(tail.mesh), 38);
    const t = targets;
    const ct = toComponent(rig, t);
    const head = ids[1]!;
    const solver = new IKSolverLookAt(rig, { head });
    solver.headWeight = 1;
    solver.clampWeightHead = 0;
    // the head's forward in its own frame, read at setup as the solver does
    const rest = new Quat();
    rig.getRotation(head, rest);
    const axis = inverseRotateVector(new Vec3(), rest, new Vec3(0, 0, 1));
    const setTarget = (f: number): void => {
      const o = 3 * (f % TARGET_COUNT);
      solver.ikPosition.x = ct[o]!;
      solver.ikPosition.y = ct[o + 1]!;
      solver.ikPosition.z = ct[o + 2]!;
    };
    const q = new Quat();
    const d = new Vec3();
    const p = new Vec3();
    const componentError = (f: number): number => {
      rig.getRotation(head, q);
      rotateVector(d, q, axis);
      return angleTo(d, rig.getPosition(head, p), ct, 3 * (f % TARGET_COUNT));
    };
    const wd = new Vector3();
    const wp = new Vector3();
    const worldError = (f: number): number => {
      tail.mesh.computeWorldMatrix(true);
      tail.skeleton.computeAbsoluteMatrices(true);
      tail.bones[1]!.getDirectionToRef(forwardLocal, tail.mesh, wd);
      tail.bones[1]!.getAbsolutePositionToRef(tail.mesh, wp);
      return angleTo(wd, wp, t, 3 * (f % TARGET_COUNT));
    };
    if (frameKind) {
      // the LookAtIK component on this head, driven as scene.render() drives it
      const ik = LookAtIK.create(tail.scene, { head: tail.bones[1]! });
      ik.solver.headWeight = 1;
      ik.solver.clampWeightHead = 0;
      const frame = componentFrame(tail.scene, ik, (f) => {
        const o = 3 * (f % TARGET_COUNT);
        ik.targetPosition.set(t[o]!, t[o + 1]!, t[o + 2]!);
      });
      impls.push({
        label: "ours LookAtIK, frame",
        name: "ours: LookAtIK component, whole Babylon frame (FixTransforms, read, solve, write)",
        ...frame,
        error: worldError,
      });
    } else {
      const base = (f: number): void => {
        rig.read();
        setTarget(f);
      };
      impls.push({
        label: "ours IKSolverLookAt, solver",
        name: "ours: IKSolverLookAt on a BabylonRig, solver alone (base: rig.read())",
        op: (f) => {
          base(f);
          solver.solve();
        },
        base,
        error: componentError,
      });
    }
    disposers.push(() => {
      rig.dispose();
      tail.dispose();
    });
  }

  const tail = build();
  tail.scene.render();
  const t = targets!;
  const target = new Vector3();
  const ctl = new BoneLookController(tail.mesh, tail.bones[1]!, target);
  const wd = new Vector3();
  const wp = new Vector3();
  impls.push({
    label: "Babylon BoneLookController",
    name: "Babylon: BoneLookController.update() (frame = target set + update)",
    op: (f) => {
      const o = 3 * (f % TARGET_COUNT);
      target.set(t[o]!, t[o + 1]!, t[o + 2]!);
      ctl.update();
    },
    base: null,
    error: (f) => {
      tail.mesh.computeWorldMatrix(true);
      tail.skeleton.computeAbsoluteMatrices(true);
      tail.bones[1]!.getDirectionToRef(forwardLocal, tail.mesh, wd);
      tail.bones[1]!.getAbsolutePositionToRef(tail.mesh, wp);
      return angleTo(wd, wp, t, 3 * (f % TARGET_COUNT));
    },
  });
  disposers.push(() => tail.dispose());
  const results = measureGroup(impls, null, "°");
  for (const dispose of disposers) dispose();
  return {
    group: "LookAtIK, head",
    iterations: null,
    setup:
      `a neck and head built in code (${NECK_SEGMENT} bones, ${NECK_CURL} rad bend; the head's +Z forward), ` +
      `${TARGET_COUNT} targets ahead (yaw ±70°, pitch ±40°, 0.5–3 away); ours head only, headWeight 1, ` +
      "clampWeightHead 0",
    ours: results.slice(0, 2),
    peer: results.slice(2),
  };
}

/**
 * LimbIK against BoneIKController on a real character: Xbot's left arm (glTF: bones linked to TransformNodes,
 * a mirrored `__root__`, a 0.01-scaled armature), 600 targets at 30–95 % of the arm's length around the
 * shoulder, in every direction. BoneIKController is given the skinned mesh, as its documentation asks, and
 * keeps its default pole; ours keeps the animated bend plane. Only the hand's distance from the target is
 * compared (the bends differ). Null when Xbot is not available (it is read from ../shared/assets/models).
 */
export async function xbotLimbGroup(): Promise<FamilyGroupResult | null> {
  const load = async () => {
    try {
      const model = await loadModel("Xbot");
      model.scene.render();
      return model;
    } catch {
      return null;
    }
  };
  const ours = await load();
  const peer = await load();
  if (ours === null || peer === null) return null;
  const bone = (m: LoadedModel, n: string) => m.skeleton.bones.find((b) => b.name === `mixamorig:${n}`)!;
  const worldOf = (m: LoadedModel, n: string, out: Vector3): Vector3 => {
    const node = bone(m, n).getTransformNode()!;
    node.computeWorldMatrix(true);
    return out.copyFrom(node.absolutePosition);
  };
  const v = new Vector3();
  const shoulder = worldOf(ours, "LeftArm", new Vector3());
  const elbow = worldOf(ours, "LeftForeArm", new Vector3());
  const length = Vector3.Distance(shoulder, elbow) + Vector3.Distance(elbow, worldOf(ours, "LeftHand", v));
  const rnd = new Random(48);
  const t = new Float64Array(3 * TARGET_COUNT);
  for (let i = 0; i < TARGET_COUNT; i++) {
    const u = rnd.next() * 2 - 1;
    const a = rnd.next() * Math.PI * 2;
    const r = Math.sqrt(1 - u * u);
    const d = length * (0.3 + 0.65 * rnd.next());
    t[3 * i] = shoulder.x + d * r * Math.cos(a);
    t[3 * i + 1] = shoulder.y + d * u;
    t[3 * i + 2] = shoulder.z + d * r * Math.sin(a);
  }
  const handError = (m: LoadedModel, f: number): number => {
    // a real render: Babylon brings the linked nodes and the bones up to date, as the user would see them
    m.scene.render();
    worldOf(m, "LeftHand", v);
    const o = 3 * (f % TARGET_COUNT);
    return (100 * Math.hypot(v.x - t[o]!, v.y - t[o + 1]!, v.z - t[o + 2]!)) / length;
  };
  const ik = LimbIK.create(ours.scene, bone(ours, "LeftArm"), bone(ours, "LeftForeArm"), bone(ours, "LeftHand"));
  ik.solver.ikRotationWeight = 0;
  const frame = componentFrame(ours.scene, ik, (f) => {
    const o = 3 * (f % TARGET_COUNT);
    ik.targetPosition.set(t[o]!, t[o + 1]!, t[o + 2]!);
  });
  const mesh = peer.scene.meshes.find((m) => m.skeleton === peer.skeleton)!;
  const ctl = new BoneIKController(mesh, bone(peer, "LeftForeArm"));
  const impls: Impl[] = [
    {
      label: "ours LimbIK, frame",
      name: "ours: LimbIK component on Xbot's left arm, whole Babylon frame",
      ...frame,
      error: (f) => handError(ours, f),
    },
    {
      label: "Babylon BoneIKController",
      name: "Babylon: BoneIKController.update() on Xbot's left forearm (frame = target set + update)",
      op: (f) => {
        const o = 3 * (f % TARGET_COUNT);
        ctl.targetPosition.set(t[o]!, t[o + 1]!, t[o + 2]!);
        ctl.update();
      },
      base: null,
      error: (f) => handError(peer, f),
    },
  ];
  const results = measureGroup(impls, null, "% of arm");
  ik.dispose();
  ours.dispose();
  peer.dispose();
  return {
    group: "LimbIK, Xbot's arm (glTF)",
    iterations: null,
    setup:
      `Xbot's left arm (glTF, linked TransformNodes, mirrored __root__), ${TARGET_COUNT} targets at 30–95 % of ` +
      "the arm's length around the shoulder; BoneIKController on the skinned mesh with its default pole; " +
      "errors measured after a real scene.render()",
    ours: results.slice(0, 1),
    peer: results.slice(1),
  };
}
