/**
 * The free scenario's body colliders: FBBIKColliders with a capsule on the chest (spine to shoulders) and one on
 * the pelvis (hip to hip), sized from the character's shoulders, so a hand target dragged into the body leaves the
 * hand on its surface. Off until the panel's checkbox turns it on.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { BoneCollider } from "../../src/babylon/bone-collider";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders";
import { boneWorldMatrix } from "./bone-world";
import { type Character, type Json, arr, bonePos } from "./kit";

/**
 * The torso's and pelvis's radii as shares of the distance between the upper arms (one round capsule for a chest
 * wider than deep): chosen by looking at UAL with a hand target inside the chest, the wrist stopping at its side.
 */
const TORSO = 0.33;
const PELVIS = 0.3;

/** The body colliders on `c`, disabled, and their capsules in the world now (for the checks). */
export function bodyColliders(c: Character): { colliders: FBBIKColliders; world(): Json } {
  const r = c.ik.references;
  const chest = r.spine[r.spine.length - 1]!;
  const shoulders = bonePos(r.leftUpperArm).add(bonePos(r.rightUpperArm)).scale(0.5);
  const span = Vector3.Distance(bonePos(r.leftUpperArm), bonePos(r.rightUpperArm));
  const torso = BoneCollider.fromWorld(chest, bonePos(r.spine[0]!), shoulders, TORSO * span);
  const pelvis = BoneCollider.fromWorld(r.pelvis, bonePos(r.leftThigh), bonePos(r.rightThigh), PELVIS * span);
  // the hand's origin is its wrist: kept a little further out, the palm does not sink in
  const colliders = FBBIKColliders.create(c.ik, { colliders: [torso, pelvis], clearance: 0.015 * c.h });
  colliders.enabled = false;
  const capsule = (x: BoneCollider): Json => {
    const m = boneWorldMatrix(x.bone!);
    // the radius is in the bone's units: times its mean world scale
    const scale = [Vector3.Right(), Vector3.Up(), Vector3.Forward()].reduce(
      (sum, axis) => sum + Vector3.TransformNormal(axis, m).length() / 3,
      0,
    );
    return {
      start: arr(Vector3.TransformCoordinates(x.start, m)),
      end: arr(Vector3.TransformCoordinates(x.end, m)),
      radius: x.radius * scale,
    };
  };
  return {
    colliders,
    world: () => ({
      on: colliders.enabled,
      torso: capsule(torso),
      pelvis: capsule(pelvis),
      clearance: colliders.clearance,
    }),
  };
}
