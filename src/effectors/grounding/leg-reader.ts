import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { BabylonRig } from "../../babylon/babylon-rig.js";
import type { GroundingLeg } from "./grounding-leg.js";

const bv = new Vector3();
const bv2 = new Vector3();

/**
 * Into `leg`, from `rig`'s pose (the animation's): the hip (`ids`' first bone), the foot (its last) and the reach,
 * the sum of the bones' lengths between them. Every grounder's legs, of any length, are read here.
 */
export function readLegInputs(rig: BabylonRig, ids: Int32Array, leg: GroundingLeg): void {
  rig.getWorldPosition(ids[0]!, bv);
  const t = leg.thighPosition;
  t.x = bv.x;
  t.y = bv.y;
  t.z = bv.z;
  // the leg's reach, read from this frame's pose (a clip may scale or stretch the leg)
  let length = 0;
  for (let k = 1; k < ids.length; k++) {
    rig.getWorldPosition(ids[k]!, bv2);
    const dx = bv2.x - bv.x;
    const dy = bv2.y - bv.y;
    const dz = bv2.z - bv.z;
    length += Math.sqrt(dx * dx + dy * dy + dz * dz);
    bv.x = bv2.x;
    bv.y = bv2.y;
    bv.z = bv2.z;
  }
  leg.legLength = length;
  const f = leg.footPosition;
  f.x = bv.x;
  f.y = bv.y;
  f.z = bv.z;
}
