/**
 * How far a joint turns beyond its rotation limit, measured against the limit's own clamp (any limit shape): what
 * the demo's checks record for the tentacle's links and the aim's spine.
 */
import type { Quaternion } from "@babylonjs/core/Maths/math.vector";
import type { RotationLimit } from "../../src/joints/limits/rotation-limit";
import { Quat, angleBetween, copyQuat } from "../../src/math/quat";

const local = new Quat();
const clamped = new Quat();

/** Degrees between the local rotation `q` (relative to the joint's parent) and `limit`'s clamp of it; 0 inside. */
export function limitExcess(limit: RotationLimit, q: Quaternion): number {
  copyQuat(local, q);
  copyQuat(clamped, q);
  if (!limit.apply(clamped)) return 0;
  return (angleBetween(local, clamped) * 180) / Math.PI;
}
