/**
 * What the grounders share around the {@link Grounding} core: the solver built from the options (FinalIK's
 * defaults scaled to the character), the root read each frame with the character's scale since create, the
 * character's height, and the writes of the pelvis's move and the feet's turns into a rig.
 * @module
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { BabylonRig } from "../../babylon/babylon-rig.js";
import { type MeshAdoption, adoptionChangeToRef } from "../../babylon/mesh-adoption.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";
import { axisLengths, currentWorldMatrix, transformVector } from "../../babylon/world-matrix.js";
import { Vec3, add } from "../../math/vec3.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";
import type { GroundingRaycast } from "./grounding-common.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { BabylonGroundRaycast } from "./babylon-ground-raycast.js";
import { Grounding } from "./grounding.js";
import type { GrounderOptions } from "./grounder-options.js";

/** The height FinalIK's default lengths are meant for (world units). */
export const GROUNDER_REFERENCE_HEIGHT = 1.8;

const unitZ = new Vec3(0, 0, 1);
const tv = new Vec3();
const bonePosition = new Vec3();
const bv = new Vector3();
const change = moduleMatrix();
const lengths = new Vec3();

/**
 * A {@link Grounding} for `legCount` feet with the options' settings, FinalIK's default lengths scaled by `unit`
 * (`height / 1.8`) for those left out; warnings go to `warn`, the settings named after `prefix`.
 */
export function createGrounding(
  legCount: number,
  raycast: GroundingRaycast,
  options: GrounderOptions,
  unit: number,
  warn: (cause: string, message: string) => void,
  prefix: string,
): Grounding {
  const g = new Grounding(legCount, raycast);
  g.onWarning = warn;
  g.warningPrefix = prefix;
  g.lengthUnit = unit;
  g.maxStep = options.maxStep ?? 0.5 * unit;
  g.footRadius = options.footRadius ?? 0.15 * unit;
  g.rootSphereCastRadius = options.rootSphereCastRadius ?? 0.1 * unit;
  g.heightOffset = options.heightOffset ?? 0;
  g.footCenterOffset = options.footCenterOffset ?? 0;
  if (options.quality !== undefined) g.quality = options.quality;
  if (options.footSpeed !== undefined) g.footSpeed = options.footSpeed;
  if (options.prediction !== undefined) g.prediction = options.prediction;
  if (options.footRotationWeight !== undefined) g.footRotationWeight = options.footRotationWeight;
  if (options.footRotationSpeed !== undefined) g.footRotationSpeed = options.footRotationSpeed;
  if (options.maxFootRotationAngle !== undefined) g.maxFootRotationAngle = options.maxFootRotationAngle;
  if (options.rotateSolver !== undefined) g.rotateSolver = options.rotateSolver;
  if (options.pelvisSpeed !== undefined) g.pelvisSpeed = options.pelvisSpeed;
  if (options.pelvisDamper !== undefined) g.pelvisDamper = options.pelvisDamper;
  if (options.lowerPelvisWeight !== undefined) g.lowerPelvisWeight = options.lowerPelvisWeight;
  if (options.liftPelvisWeight !== undefined) g.liftPelvisWeight = options.liftPelvisWeight;
  if (options.pelvisReachWeight !== undefined) g.pelvisReachWeight = options.pelvisReachWeight;
  if (options.overstepFallsDown !== undefined) g.overstepFallsDown = options.overstepFallsDown;
  if (options.sphereProbeRays !== undefined) g.sphereProbeRays = options.sphereProbeRays;
  g.keepValidSettings();
  return g;
}

/**
 * The grounder's root read into its solver each frame (position, up, forward) and the character's scale since
 * create (`Grounding.lengthScale`: the root's world scale along its up axis over the one it had then).
 */
export class GrounderRoot {
  /** The node whose scale the lengths are relative to, and its world scale along its up axis then. */
  private scaleRoot: TransformNode | null;
  private createdScale: number;

  /** Measures `root`'s scale now (the lengths as set are for it). */
  constructor(root: TransformNode | null) {
    this.scaleRoot = root;
    this.createdScale = upScale(root);
  }

  /**
   * The root moved from `from` to `to` with the rig's mesh (`adoption`): the scale it had at create is carried into
   * `to`'s frame, where the bones stand alike, so a character scaled since keeps its {@link Grounding.lengthScale}
   * (measured anew on `to`, it would restart at 1). Setup-time.
   */
  follow(adoption: MeshAdoption, from: TransformNode | null, to: TransformNode | null): void {
    if (from === to || from !== this.scaleRoot) return;
    this.scaleRoot = to;
    if (to === null) {
      this.createdScale = 1;
      return;
    }
    // a unit along the former root's up, in the new root's units: the reference shrinks or grows by as much
    const k = axisLengths(adoptionChangeToRef(adoption, from, to, change).m, lengths).y;
    const created = this.createdScale / k;
    this.createdScale = created > 0 && created < Infinity ? created : upScale(to);
  }

  /**
   * Writes `root`'s pose into `g` (the world origin, +Y up, +Z forward without one); `forward` is the root's local
   * axis the character faces (null: +z).
   */
  read(g: Grounding, root: TransformNode | null, forward: ReadonlyVec3 | null): void {
    if (root === null || root.isDisposed()) {
      g.rootPosition.x = g.rootPosition.y = g.rootPosition.z = 0;
      g.rootUp.x = 0;
      g.rootUp.y = 1;
      g.rootUp.z = 0;
      g.rootForward.x = 0;
      g.rootForward.y = 0;
      g.rootForward.z = 1;
      g.lengthScale = 1;
      return;
    }
    // the cached matrix when it is current: forcing it would make Babylon redo an unmoved character
    const m = currentWorldMatrix(root).m;
    g.rootPosition.x = m[12]!;
    g.rootPosition.y = m[13]!;
    g.rootPosition.z = m[14]!;
    g.rootUp.x = m[4]!;
    g.rootUp.y = m[5]!;
    g.rootUp.z = m[6]!;
    transformVector(m, forward ?? unitZ, g.rootForward);
    if (root !== this.scaleRoot) {
      // another root: the lengths are relative to its scale when it took over
      this.scaleRoot = root;
      this.createdScale = upScale(root);
    }
    // written out (doubles across calls); a tilted root's Float32 axes round up to 5e-8 off: not a change of scale
    const ratio = Math.sqrt(m[4]! * m[4]! + m[5]! * m[5]! + m[6]! * m[6]!) / this.createdScale;
    if (ratio > 0 && ratio < Infinity) g.lengthScale = ratio > 1 - 1e-6 && ratio < 1 + 1e-6 ? 1 : ratio;
  }
}

/**
 * A root's world scale along its up axis (the length of its world matrix's second column), what the character's
 * height follows; 1 without a root, or when not finite and > 0.
 */
function upScale(root: TransformNode | null): number {
  if (root === null || root.isDisposed()) return 1;
  const s = axisLengths(currentWorldMatrix(root).m, lengths).y;
  return s > 0 && s < Infinity ? s : 1;
}

/**
 * The vertical extent of the skeleton's joints in the world: its linked nodes, else `rig`'s bones
 * ({@link GROUNDER_REFERENCE_HEIGHT} when it has none).
 */
export function skeletonHeight(skeleton: Skeleton, rig: BabylonRig): number {
  let lo = Infinity;
  let hi = -Infinity;
  const bones = skeleton.bones;
  if (bones.length > 0 && bones.every((b) => b.getTransformNode() !== null)) {
    for (const b of bones) {
      const y = b.getTransformNode()!.computeWorldMatrix(true).m[13]!;
      lo = Math.min(lo, y);
      hi = Math.max(hi, y);
    }
  } else {
    for (let i = 1; i < rig.count; i++) {
      rig.getWorldPosition(i, bv);
      lo = Math.min(lo, bv.y);
      hi = Math.max(hi, bv.y);
    }
  }
  const h = hi - lo;
  return h > 0 && Number.isFinite(h) ? h : GROUNDER_REFERENCE_HEIGHT;
}

/** Moves bone `id` of `rig` by the world vector `offset` (nothing for a zero offset or the rig's root). */
export function moveBoneInWorld(rig: BabylonRig, id: number, offset: ReadonlyVec3): void {
  if (id <= 0 || (offset.x === 0 && offset.y === 0 && offset.z === 0)) return;
  rig.worldToComponentVector(offset, tv);
  add(tv, rig.getPosition(id, bonePosition), tv);
  rig.setPosition(id, tv);
}

/**
 * The grounder's Babylon picking raycast: on the meshes of `options.predicate`, else on the enabled, visible,
 * pickable meshes that are not the character's; null when `options.raycast` replaces it.
 */
export function createGroundRaycast(
  scene: Scene,
  options: GrounderOptions,
  isCharacterMesh: (mesh: AbstractMesh) => boolean,
): BabylonGroundRaycast | null {
  if (options.raycast !== undefined) return null;
  const predicate =
    options.predicate ??
    ((mesh: AbstractMesh) => mesh.isEnabled() && mesh.isVisible && mesh.isPickable && !isCharacterMesh(mesh));
  return new BabylonGroundRaycast(scene, predicate);
}
