import type { BabylonRig } from "./babylon-rig.js";
import type { Quat, ReadonlyQuat } from "../math/quat.js";
import { conjugateMultiply, multiply } from "../math/quat.js";

/**
 * A rotation about world axes → the same rotation about the rig's component-space axes (conjugation by
 * component space's rotation, then by its Y mirror when component space is mirrored: the rotation is in
 * Babylon's convention, see BabylonRig.worldToComponentRotation), so that
 * `multiply(rot, out, rig.rotations[id])` turns a bone in the world by `world`. `out` may be `world`.
 */
export function worldDeltaToComponent(rig: BabylonRig, world: ReadonlyQuat, out: Quat): Quat {
  const c = rig.componentRotation;
  conjugateMultiply(out, c, world);
  multiply(out, out, c);
  if (rig.mirrored) {
    out.x = -out.x;
    out.z = -out.z;
  }
  return out;
}
