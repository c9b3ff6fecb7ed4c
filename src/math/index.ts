/**
 * The library's own vector and quaternion math: allocation-free, out-parameter style, no Babylon import.
 * @module
 */
/** Functions on {@link Vec3} (`vec3.add(out, a, b)`…), each writing into its first argument. */
export * as vec3 from "./vec3.js";
/** Functions on {@link Quat} (`quat.multiply(out, a, b)`…), each writing into its first argument. */
export * as quat from "./quat.js";
/** FinalIK's direction helpers (`orthoNormalize`, `slerpVectors`, `clampDirection`), allocation-free. */
export * as direction from "./direction.js";
export { Vec3, type ReadonlyVec3 } from "./vec3.js";
export { Quat, type ReadonlyQuat } from "./quat.js";
export { NumberRef } from "./number-ref.js";
