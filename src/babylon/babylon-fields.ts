/**
 * Babylon's vectors and quaternions written field by field, as their `set` does, without the call: a double
 * handed to a call V8 does not inline is boxed (ARCHITECTURE.md, "Doubles across calls").
 * @module
 */
import type { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { ReadonlyQuat } from "../math/quat.js";
import type { ReadonlyVec3 } from "../math/vec3.js";

/** `out` set to `v`; returns `out`. */
export function setVector3Fields(out: Vector3, v: ReadonlyVec3): Vector3 {
  out._x = v.x;
  out._y = v.y;
  out._z = v.z;
  out._isDirty = true;
  return out;
}

/** `out` set to the Babylon vector `v`, its fields read directly (Babylon's `copyFrom` hands them on to a call). */
export function copyVector3Fields(out: Vector3, v: Vector3): Vector3 {
  out._x = v._x;
  out._y = v._y;
  out._z = v._z;
  out._isDirty = true;
  return out;
}

/** `out` set to `q`; returns `out`. */
export function setQuaternionFields(out: Quaternion, q: ReadonlyQuat): Quaternion {
  out._x = q.x;
  out._y = q.y;
  out._z = q.z;
  out._w = q.w;
  out._isDirty = true;
  return out;
}
