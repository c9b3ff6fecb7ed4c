/**
 * The library's own vector and quaternion math: allocation-free, out-parameter style, no Babylon import.
 * @module
 */
export * as vec3 from "./vec3.js";
export * as quat from "./quat.js";
export * as direction from "./direction.js";
export { Vec3, type ReadonlyVec3 } from "./vec3.js";
export { Quat, type ReadonlyQuat } from "./quat.js";
export { NumberRef } from "./number-ref.js";
