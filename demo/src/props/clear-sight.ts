/**
 * Handles that must stay in sight: a helper handle (a bend goal) moved off the line from the camera to every
 * handle the user drags, as the scenario's camera sees them (the panel's screen shift included).
 */
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import { applyShift, panelFraction } from "../view-shift";

/** The world point the camera sees from, its screen shift (`targetScreenOffset`) included. */
export function eyeOf(camera: ArcRotateCamera): Vector3 {
  return Matrix.Invert(camera.getViewMatrix(true)).getTranslation();
}

/** A mesh's bounding sphere (world centre and radius). */
function sphere(m: AbstractMesh): { c: Vector3; r: number } {
  m.computeWorldMatrix(true);
  const s = m.getBoundingInfo().boundingSphere;
  return { c: s.centerWorld.clone(), r: s.radiusWorld };
}

/**
 * How far `mover` cuts into the cone from `eye` to the sphere of `kept` (0: clear), in world units: only a mover
 * between the eye and the kept handle can hide it.
 */
export function blocking(eye: Vector3, mover: AbstractMesh, kept: AbstractMesh): number {
  const a = sphere(mover);
  const b = sphere(kept);
  const d = b.c.subtract(eye);
  const t = Vector3.Dot(a.c.subtract(eye), d) / d.lengthSquared();
  if (t <= 0 || t >= 1) return 0;
  const off = Vector3.Distance(a.c, eye.add(d.scale(t)));
  return Math.max(0, a.r + t * b.r - off);
}

/**
 * Lifts each of `movers` by `step` (up to `steps` times) until it hides none of `kept` from the camera as the
 * scenario frames it: the view's shift clear of the panel applied first, as the page applies it each frame.
 * Where no lift clears it, the one that hides least.
 */
export function keepInSight(
  camera: ArcRotateCamera,
  movers: readonly AbstractMesh[],
  kept: readonly AbstractMesh[],
  step: Vector3,
  steps = 6,
): void {
  applyShift(camera, panelFraction(), 0);
  const eye = eyeOf(camera);
  for (const m of movers) {
    const start = m.position.clone();
    let best = { k: 0, worst: Infinity };
    for (let k = 0; k <= steps && best.worst > 0; k++) {
      m.position.copyFrom(start).addInPlace(step.scale(k));
      const worst = Math.max(0, ...kept.map((x) => blocking(eye, m, x)));
      if (worst < best.worst) best = { k, worst };
    }
    m.position.copyFrom(start).addInPlace(step.scale(best.k));
    m.computeWorldMatrix(true);
  }
}
