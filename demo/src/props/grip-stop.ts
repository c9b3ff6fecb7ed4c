/**
 * The grip's curl stopped at the cup's wall, every frame: the HandPoser's pose was wrapped once, around the
 * cup where it stood at build; after the cup is dragged the hand meets its grip a few degrees off, and a fixed
 * pose then sinks a finger into the wall. Before the poser applies the pose (after the solve, the hand where
 * the IK put it), each finger's curl is eased back from the wrapped pose toward the open hand until none of
 * its joints (nor its tip) is inside the wall.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { FullBodyBipedIK } from "../../../src/babylon/full-body-biped-ik";
import type { Grip } from "./grip";

/** One finger: its bones (base to last), the pose nodes the poser reads, their wrapped and open rotations. */
interface Finger {
  bones: TransformNode[];
  pose: TransformNode[];
  wrapped: Quaternion[];
  open: Quaternion[];
}

// scratch: the finger's frame (cup space), a joint's local matrix, world to cup; a joint, the one before, the tip
const [world, local, inv] = [new Matrix(), new Matrix(), new Matrix()];
const [joint, prev, tip] = [new Vector3(), new Vector3(), new Vector3()];

/**
 * Keeps the grip's fingers out of a vertical cylinder (`cup`, centred on its origin, `radius`, `height`) by
 * `skin`. Runs on `ik.solver.onPostUpdate` before the InteractionSystem's poser; `held()` true: the cup is in
 * the hand (moving with it), the curl stays as it was at the pick-up.
 */
export function stopGripAtWall(
  ik: FullBodyBipedIK,
  hand: Bone,
  grip: Grip,
  cup: TransformNode,
  radius: number,
  height: number,
  skin: number,
  held: () => boolean,
): () => void {
  if (grip.pose === null) return () => undefined;
  const byName = new Map(grip.pose.getDescendants(false).map((n) => [n.name, n as TransformNode]));
  const fingers: Finger[] = grip.fingers.map((bones, i) => {
    const pose = bones.map((b) => byName.get(b.name)!);
    return { bones, pose, wrapped: pose.map((p) => p.rotationQuaternion!.clone()), open: grip.open[i]! };
  });
  const id = ik.rig.idOf(hand);
  const wall = radius + skin;
  /** True when a joint or the tip of `f` at its pose nodes' rotations is inside the wall (cup space). */
  const inside = (f: Finger): boolean => {
    ik.rig.worldMatrixToRef(id, world);
    world.multiplyToRef(inv, world);
    const n = f.bones.length;
    for (let i = 0; i < n; i++) {
      const b = f.bones[i]!;
      Matrix.ComposeToRef(b.scaling, f.pose[i]!.rotationQuaternion!, b.position, local);
      local.multiplyToRef(world, world);
      prev.copyFrom(joint);
      world.getTranslationToRef(joint);
      if (hits(joint)) return true;
    }
    // the tip: past the last joint by 0.8 of the last segment, as the wrap estimated it
    if (n >= 2) joint.subtractToRef(prev, tip).scaleInPlace(0.8).addInPlace(joint);
    return n >= 2 && hits(tip);
  };
  const hits = (p: Vector3) => Math.hypot(p.x, p.z) < wall && Math.abs(p.y) < height / 2;
  const setCurl = (f: Finger, s: number) => {
    for (let i = 0; i < f.pose.length; i++)
      Quaternion.SlerpToRef(f.open[i]!, f.wrapped[i]!, s, f.pose[i]!.rotationQuaternion!);
  };
  const observer = ik.solver.onPostUpdate.add(
    () => {
      if (held()) return;
      cup.computeWorldMatrix(true).invertToRef(inv);
      for (const f of fingers) {
        setCurl(f, 1);
        if (!inside(f)) continue;
        // the largest curl with the finger outside the wall (the open hand is outside it)
        let lo = 0;
        let hi = 1;
        for (let k = 0; k < 7; k++) {
          const mid = 0.5 * (lo + hi);
          setCurl(f, mid);
          if (inside(f)) hi = mid;
          else lo = mid;
        }
        setCurl(f, lo);
      }
    },
    undefined,
    true,
  );
  return () => ik.solver.onPostUpdate.remove(observer);
}
