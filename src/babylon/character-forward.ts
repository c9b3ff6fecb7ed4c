import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { rotateVector } from "../math/quat.js";
import { Vec3, add, cross, length, normalize, projectOnPlane, sub } from "../math/vec3.js";
import type { BipedBones } from "../solver/biped-bones.js";
import { BabylonRig } from "./babylon-rig.js";
import { currentWorldMatrix } from "./world-matrix.js";
import { type BipedReferences, referencedBones, resolveBipedReferences } from "./biped-references.js";

/** The character's forward in component space: the given world forward, else from the toes, else null. */
export function estimateForward(
  rig: BabylonRig,
  world: Vector3 | null,
  toes: (Bone | null)[],
  bones: Pick<BipedBones, "leftFoot" | "rightFoot" | "leftThigh" | "rightThigh" | "pelvis" | "spine">,
): Vec3 | null {
  if (world !== null) return normalize(new Vec3(), rig.worldToComponentVector(world, new Vec3()));
  const up = rotateVector(new Vec3(), rig.rotations[0]!, new Vec3(0, 1, 0));
  const sum = new Vec3();
  let found = 0;
  [bones.leftFoot, bones.rightFoot].forEach((foot, i) => {
    const toe = toes[i];
    if (toe === null || toe === undefined) return;
    const d = sub(new Vec3(), rig.positions[rig.idOf(toe)]!, rig.positions[foot]!);
    projectOnPlane(d, d, up);
    if (length(d) > 0) {
      add(sum, sum, normalize(d, d));
      found++;
    }
  });
  if (found > 0 && length(sum) > 0) return normalize(sum, sum);
  // no toes: the solver takes left × up, which is forward only in a right-handed frame; in a left-handed
  // one (a .babylon file in a left-handed scene) forward is up × left
  const scene = rig.skeleton.getScene();
  if (scene.useRightHandedSystem !== rig.mirrored) return null;
  const left = sub(new Vec3(), rig.positions[bones.leftThigh]!, rig.positions[bones.rightThigh]!);
  const upward = sub(new Vec3(), rig.positions[bones.spine[bones.spine.length - 1]!]!, rig.positions[bones.pelvis]!);
  const forward = cross(new Vec3(), upward, left);
  return length(forward) > 0 ? normalize(forward, forward) : null;
}

/** The first child of each foot, taken as its toe (null when a foot has none). */
export function toeBones(references: BipedReferences): (Bone | null)[] {
  return [references.leftFoot, references.rightFoot].map((f) => f.children[0] ?? null);
}

/**
 * A skeleton the biped detection recognises: its references, the way the character faces in the world,
 * estimated as FullBodyBipedIK does (from the toes, else from the hips and spine), and its up (from between the
 * thighs to the top of the spine, as FullBodyBipedIK takes it; unit, world). Null when the skeleton is no
 * detectable biped or the estimate fails. Setup-time: it builds a throwaway rig.
 */
export function detectBipedFacing(
  skeleton: Skeleton,
  mesh: AbstractMesh | null,
): { references: BipedReferences; forward: Vector3; up: Vector3 } | null {
  let references: BipedReferences;
  try {
    references = resolveBipedReferences(skeleton).references;
  } catch {
    return null;
  }
  const toes = toeBones(references);
  const rig = new BabylonRig(skeleton, [...referencedBones(references), ...toes.filter((t): t is Bone => t !== null)], {
    characterRoot: references.root ?? undefined,
    mesh,
  });
  const id = (b: Bone): number => rig.idOf(b);
  const forward = estimateForward(rig, null, toes, {
    leftFoot: id(references.leftFoot),
    rightFoot: id(references.rightFoot),
    leftThigh: id(references.leftThigh),
    rightThigh: id(references.rightThigh),
    pelvis: id(references.pelvis),
    spine: references.spine.map(id),
  });
  const world = forward !== null ? rig.componentToWorldVector(forward, new Vector3()) : null;
  const thighs = rig.positions[id(references.leftThigh)]!;
  const other = rig.positions[id(references.rightThigh)]!;
  const top = rig.positions[id(references.spine[references.spine.length - 1] ?? references.pelvis)]!;
  // a Vec3, not a literal: the per-frame callers of this conversion would allocate (ARCHITECTURE.md, "Doubles across
  // calls")
  const between = new Vec3(
    top.x - (thighs.x + other.x) / 2,
    top.y - (thighs.y + other.y) / 2,
    top.z - (thighs.z + other.z) / 2,
  );
  const up = rig.componentToWorldVector(between, new Vector3());
  rig.dispose();
  if (world === null || !(world.length() > 0) || !(up.length() > 0)) return null;
  return { references, forward: world.normalize(), up: up.normalize() };
}

/**
 * The axis of `rig`'s character root, in the root's own frame, nearest the way the character faces: ±x or ±z,
 * into `out`; +z (the glTF convention) without a root or a forward (`forward`: component space, as
 * {@link estimateForward} gives it). Snapped to an axis, so a character facing its root's +z gets exactly +z.
 */
export function rootFacingAxisToRef(rig: BabylonRig, forward: Vec3 | null, out: Vector3): Vector3 {
  out.set(0, 0, 1);
  const root = rig.characterRoot;
  if (forward === null || root === null) return out;
  return nodeFacingAxisToRef(root, rig.componentToWorldVector(forward, new Vector3()), out);
}

/**
 * The axis of `node`, in its own frame, nearest the world direction `world`: ±x or ±z, into `out`; +z when `world`
 * runs along the node's own y. Snapped, so a node facing `world` along its +z gives exactly +z.
 */
export function nodeFacingAxisToRef(node: TransformNode, world: Vector3, out: Vector3): Vector3 {
  out.set(0, 0, 1);
  const local = Vector3.TransformNormal(world, currentWorldMatrix(node).clone().invert());
  const x = local.x;
  const z = local.z;
  // facing along the root's own y (a root turned off the character's up): no horizontal axis to take
  if (!(Math.abs(x) > 1e-6 || Math.abs(z) > 1e-6)) return out;
  if (Math.abs(x) > Math.abs(z)) out.set(Math.sign(x), 0, 0);
  else out.set(0, 0, Math.sign(z));
  return out;
}
