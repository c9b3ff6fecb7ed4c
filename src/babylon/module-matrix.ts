/**
 * Module-level scratch matrices that keep Babylon's matrix precision. Babylon makes a matrix in the element type of
 * the moment (Float32Array, or doubles once an engine asked for `useHighPrecisionMatrix`) and converts the ones made
 * before the first engine only when that engine is a WebGL or WebGPU one: a `NullEngine` (a server, a test) leaves
 * them Float32Array, and a world matrix held in one rounds to float32 (6.8e-4 of the height 1e4 from the origin).
 * @module
 */
import { PerformanceConfigurator } from "@babylonjs/core/Engines/performanceConfigurator.js";
import { Matrix } from "@babylonjs/core/Maths/math.vector.js";

/** Babylon's storage field, replaced as its own precision switch does. */
interface MatrixStorage {
  _m: Float32Array | number[];
}

/** Every matrix {@link moduleMatrix} made. */
const made: Matrix[] = [];

/** A new matrix for a module's scratch use, kept in the engine's precision by {@link matchMatrixPrecision}. */
export function moduleMatrix(): Matrix {
  const m = new Matrix();
  made.push(m);
  return m;
}

/**
 * Gives the module matrices the element type of the matrices Babylon makes now (called as each component is
 * created, when its engine has set it): what an engine made last decides, both ways, as for Babylon's new matrices.
 */
export function matchMatrixPrecision(): void {
  const doubles = PerformanceConfigurator.MatrixUse64Bits;
  for (const m of made) {
    if (m.m instanceof Float32Array !== doubles) continue;
    (m as unknown as MatrixStorage)._m = doubles ? Array.from(m.m) : Float32Array.from(m.m);
  }
}
