/**
 * A bone-only rig's move to another mesh its skeleton skins once its own was disposed or left the scene (clothes,
 * armour staying on), and what follows it: everything that kept the rig's character root or mesh (a grounder's root
 * and scale at create, the level of detail's node, the IK's `references.root` and Inspector settings) follows it
 * through {@link BabylonRig.onMeshAdoptedObservable}.
 * @module
 */
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { InspectorSettings } from "./inspector-settings.js";
import { currentWorldMatrix } from "./world-matrix.js";
import { moduleMatrix } from "./module-matrix.js";

/**
 * What moved when a bone-only rig took another mesh its skeleton skins ({@link BabylonRig.onMeshAdoptedObservable}).
 */
export interface MeshAdoption {
  /** The mesh component space lived in until now (disposed, or out of the scene). */
  readonly formerMesh: TransformNode | null;
  /** The character root until now: the former mesh, or a node that stays (given, or above the meshes). */
  readonly formerRoot: TransformNode | null;
  /** The mesh component space lives in now. */
  readonly mesh: AbstractMesh;
  /** The character root now (the former one unless that was the former mesh, or disposed). */
  readonly root: TransformNode | null;
  /** Component space's world matrix at the rig's last read, in the former mesh. */
  readonly formerSpace: Matrix;
  /** Component space's world matrix now, in the new mesh. */
  readonly space: Matrix;
}

const formerWorld = moduleMatrix();
const newWorld = moduleMatrix();
const inverse = moduleMatrix();
const change = moduleMatrix();

/** `node` after `adoption`: the new root when it was the former root, the new mesh when it was the former mesh. */
export function followAdoption(adoption: MeshAdoption, node: TransformNode | null): TransformNode | null {
  if (node === null) return null;
  if (node === adoption.formerRoot) return adoption.root;
  return node === adoption.formerMesh ? adoption.mesh : node;
}

/**
 * Moves `settings` from the mesh and root the rig left to the ones it took, where they were shown (the Inspector's
 * user finds the IK on the mesh that shows the character, not on the disposed one); other hosts keep them.
 */
export function followAdoptionInInspector(adoption: MeshAdoption, settings: InspectorSettings): void {
  for (const host of [...settings.attachedTo]) {
    // a host is a node or the skeleton; only a node can be the former mesh or root
    const next = followAdoption(adoption, host as unknown as TransformNode);
    if (next === (host as unknown)) continue;
    settings.detach(host);
    if (next !== null) settings.attach(next);
  }
}

/**
 * Into `out`, the change from `from`'s frame to `to`'s (Babylon's row vectors: `p · out`) that keeps a point or
 * direction where it stands relative to the bones: the bones stand alike in component space before and after.
 * Identity when both are the meshes (a bone-only skeleton's bones live in each mesh's own frame alike); a disposed
 * `from` is taken where it was last computed (Babylon unparents a disposed node).
 */
export function adoptionChangeToRef(
  adoption: MeshAdoption,
  from: TransformNode | null,
  to: TransformNode | null,
  out: Matrix,
): Matrix {
  if (from === adoption.formerMesh && to === adoption.mesh) return Matrix.IdentityToRef(out);
  // from's frame → world → former component space → (the same bones) new component space → world → to's frame
  if (from === null) Matrix.IdentityToRef(formerWorld);
  else formerWorld.copyFrom(from.isDisposed() ? from.worldMatrixFromCache : currentWorldMatrix(from));
  adoption.formerSpace.invertToRef(inverse);
  formerWorld.multiplyToRef(inverse, out);
  out.multiplyToRef(adoption.space, formerWorld);
  if (to === null) Matrix.IdentityToRef(newWorld);
  else newWorld.copyFrom(currentWorldMatrix(to));
  newWorld.invertToRef(inverse);
  return formerWorld.multiplyToRef(inverse, out);
}

/**
 * Carries `axis`, a direction in `from`'s frame (a character's forward in its root's), into `to`'s frame through
 * {@link adoptionChangeToRef}, in place, unit length; an axis the change maps onto an axis of `to` comes out exactly
 * that axis (a forward snapped to ±x or ±z stays snapped). Unchanged when the result is not a direction.
 */
export function carryAxis(
  adoption: MeshAdoption,
  from: TransformNode | null,
  to: TransformNode | null,
  axis: Vector3,
): void {
  const d = Vector3.TransformNormal(axis, adoptionChangeToRef(adoption, from, to, change));
  const l = d.length();
  if (!(l > 0 && l < Infinity)) return;
  d.scaleInPlace(1 / l);
  // float32 matrices round a quarter turn to 1e-7 off the axis
  const snap = (v: number): number => (Math.abs(v) < 1e-5 ? 0 : Math.abs(Math.abs(v) - 1) < 1e-5 ? Math.sign(v) : v);
  axis.set(snap(d.x), snap(d.y), snap(d.z));
}
