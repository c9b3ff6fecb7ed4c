/**
 * A hand's palm read from its rig: the palm's middle, its normal (out of the palm) and the fingers' direction,
 * measured once in a pose and carried by the hand's rotation after. From the finger bones when the hand has them
 * (the thumb found by name), else from the forearm, the palm toward the body's middle (the arms hang at spawn).
 * Then where a hand must be, and how turned, to lay its palm on a ball.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { bonePos, boneRotation, worldPos } from "../kit";
import { fingerChains } from "./grip";

/** A palm in the pose measured, world directions; `rotation` the hand bone's world rotation then. */
export interface Palm {
  /** The hand bone. */
  bone: Bone;
  /** The palm's surface point (its middle) minus the wrist (the hand bone's origin). */
  offset: Vector3;
  /** Unit normal out of the palm. */
  normal: Vector3;
  /** Unit direction from the wrist along the fingers, ⟂ `normal`. */
  fingers: Vector3;
  /** The hand bone's world rotation (Babylon's decomposition, an IK target's convention). */
  rotation: Quaternion;
  /** True when the finger bones gave the normal (false: the hanging arm's guess). */
  fromFingers: boolean;
  /** The finger and thumb joints (linked nodes), and their local rotations as measured (the rest pose: open). */
  joints: TransformNode[];
  open: Quaternion[];
  /** The finger chains (base to last joint) without the thumb: what curls over a ball (`palm-wrap.ts`). */
  fingerChains: TransformNode[][];
}

/**
 * The palm of `hand` as posed now. `right`: the character's right (shoulder to shoulder, horizontal); `isRight`:
 * which hand; `up`: the world's. The palm's surface lies 0.22 palm lengths off the bones' line (the hand's
 * half thickness, as the grips measure it); a hand without fingers is taken 0.055 of `height` long.
 */
export function measurePalm(
  hand: Bone,
  forearm: Bone,
  skeletonNodes: Set<TransformNode>,
  isRight: boolean,
  forward: Vector3,
  right: Vector3,
  height: number,
): Palm {
  const wrist = bonePos(hand);
  const node = hand.getTransformNode();
  const chains = node !== null ? fingerChains(node, skeletonNodes) : [];
  const thumb = chains.find((ch) => /thumb/i.test(ch[0]!.name)) ?? null;
  const fingers = chains.filter((ch) => ch !== thumb);
  let along: Vector3;
  let length: number;
  let normal: Vector3 | null = null;
  if (fingers.length >= 2) {
    const bases = fingers.map((ch) => worldPos(ch[0]!));
    const knuckles = bases.reduce((a, b) => a.add(b), Vector3.Zero()).scale(1 / bases.length);
    along = knuckles.subtract(wrist);
    length = along.length();
    along.scaleInPlace(1 / length);
    if (thumb !== null) {
      // across the knuckles, from the thumb's side to the pinky's: for a right hand palm down, fingers forward,
      // that is the character's right, and right × forward is down in a left-handed world (the sign says which)
      const t = worldPos(thumb[0]!);
      const byThumb = [...bases].sort((a, b) => Vector3.Distance(a, t) - Vector3.Distance(b, t));
      const across = byThumb[byThumb.length - 1]!.subtract(byThumb[0]!);
      const handed = Math.sign(Vector3.Dot(Vector3.Cross(forward, right), Vector3.Up())) || 1;
      normal = Vector3.Cross(across, along).scaleInPlace((isRight ? 1 : -1) * handed);
    }
  } else {
    along = wrist.subtract(bonePos(forearm));
    along.normalize();
    length = 0.055 * height;
  }
  // without a thumb: the hanging arm's palm faces the thigh, toward the body's middle
  normal ??= right.scale(isRight ? -1 : 1);
  normal.subtractInPlace(along.scale(Vector3.Dot(normal, along))).normalize();
  const offset = along.scale(0.5 * length).addInPlace(normal.scale(0.22 * length));
  const joints = chains.flat();
  return {
    bone: hand,
    offset,
    normal,
    fingers: along,
    rotation: boneRotation(hand),
    fromFingers: thumb !== null,
    joints,
    open: joints.map((j) => j.rotationQuaternion?.clone() ?? j.rotation.toQuaternion()),
    fingerChains: fingers,
  };
}

/**
 * Opens the fingers `weight` of the way from the clip's pose (a fist in an idle) to the measured one, after the
 * animations: a palm laid on a ball with the fingers eased over it rather than its knuckles.
 */
export function openFingers(palm: Palm, weight: number): void {
  if (weight <= 0) return;
  palm.joints.forEach((j, i) => {
    j.rotationQuaternion ??= j.rotation.toQuaternion();
    Quaternion.SlerpToRef(j.rotationQuaternion, palm.open[i]!, weight, j.rotationQuaternion);
  });
}

/** The palm's surface point and normal now, carried by the hand bone's rotation since it was measured. */
export function palmNow(palm: Palm, point: Vector3, normal: Vector3): void {
  const turn = boneRotation(palm.bone).multiplyInPlace(Quaternion.Inverse(palm.rotation));
  palm.offset.rotateByQuaternionToRef(turn, point).addInPlace(bonePos(palm.bone));
  palm.normal.rotateByQuaternionToRef(turn, normal);
}

/**
 * Where the hand bone goes (`position`) and how it turns (`rotation`) to lay the palm on the ball at `centre` of
 * `radius`, touching it from `toCentre` (unit, from the palm to the centre: the palm's normal then), the fingers
 * as near `fingers` as that allows.
 */
export function palmOnBall(
  palm: Palm,
  centre: Vector3,
  radius: number,
  toCentre: Vector3,
  fingers: Vector3,
  position: Vector3,
  rotation: Quaternion,
): void {
  // the turn taking the palm's normal onto `toCentre`, then about it taking the fingers nearest `fingers`
  const swing = Quaternion.FromUnitVectorsToRef(palm.normal, toCentre, new Quaternion());
  const f = palm.fingers.applyRotationQuaternion(swing);
  const want = fingers.subtract(toCentre.scale(Vector3.Dot(fingers, toCentre)));
  const twist = Math.atan2(Vector3.Dot(Vector3.Cross(f, want), toCentre), Vector3.Dot(f, want));
  const turn = Quaternion.RotationAxis(toCentre, twist).multiplyInPlace(swing);
  turn.multiplyToRef(palm.rotation, rotation);
  // the palm's point on the ball, the wrist back from it by the turned offset
  centre.subtractToRef(toCentre.scale(radius), position);
  position.subtractInPlace(palm.offset.applyRotationQuaternion(turn));
}
