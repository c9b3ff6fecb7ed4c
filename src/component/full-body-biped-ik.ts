import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { BabylonRig } from "../mapping/babylon-rig.js";
import { BipedMapping } from "../mapping/biped-mapping.js";
import {
  type BipedReferences,
  type BipedReferencesInput,
  type BoneReference,
  referencedBones,
  resolveBipedReferences,
} from "../mapping/biped-references.js";
import { rotateVector } from "../math/quat.js";
import { Vec3, add, length, normalize, projectOnPlane, sub } from "../math/vec3.js";
import type { BipedBones } from "../solver/biped-bones.js";
import { FBBIKError } from "../solver/errors.js";
import type { SolverWarning } from "../solver/full-body.js";
import { BabylonBipedSolver, FBBIKSolver } from "./fbbik-solver.js";
import { type SceneUpdatable, SceneUpdater } from "./scene-updater.js";

/** Options of {@link FullBodyBipedIK.create}. */
export interface FullBodyBipedIKOptions {
  /** Bones to use instead of the detected ones (by object or name); anything left out is detected. */
  references?: BipedReferencesInput;
  /** The spine bone (or pelvis) that stands for the body; default: detected as FinalIK does. */
  rootNode?: BoneReference;
  /** Solve after the scene's animations every frame (default true). Otherwise call `update()` yourself. */
  autoUpdate?: boolean;
  /** Restore the mapped bones' default local pose before the animations every frame (default true). */
  fixTransforms?: boolean;
  /** For skeletons without linked TransformNodes: the mesh the skeleton deforms (default: the first one using it). */
  mesh?: AbstractMesh;
  /**
   * The character's forward in world space, used only to bend limbs that are straight in the pose the IK
   * is attached in (elbows back, knees forward). Default: from the toes when the feet have child bones,
   * else estimated from the rig.
   */
  forward?: Vector3;
}

/**
 * FinalIK's FullBodyBipedIK for a Babylon skeleton: nine effectors (body, shoulders, thighs, hands,
 * feet) that pull the whole body, solved every frame on top of the running animation.
 *
 * ```ts
 * const ik = FullBodyBipedIK.create(scene, skeleton);
 * ik.solver.leftHandEffector.position.copyFrom(cup.absolutePosition);
 * ik.solver.leftHandEffector.positionWeight = 1;
 * ```
 */
export class FullBodyBipedIK implements SceneUpdatable {
  /** The scene. */
  readonly scene: Scene;
  /** The skeleton. */
  readonly skeleton: Skeleton;
  /** The bones the IK is built on. */
  readonly references: BipedReferences;
  /** The rig adapter (reads and writes the skeleton in component space). */
  readonly rig: BabylonRig;
  /** The solver, its effectors, chains and mappings. */
  readonly solver: FBBIKSolver;
  /** The root node bone the body chain stands for. */
  readonly rootNode: Bone;
  /** A problem, reported once per cause (bad input, a disposed target, a straight limb at attach…). */
  readonly onWarningObservable = new Observable<SolverWarning>();
  /** When false the IK neither fixes transforms nor solves. */
  enabled = true;
  /** Solve after the animations every frame. */
  autoUpdate: boolean;
  /** Restore the mapped bones' default local pose before the animations every frame. */
  fixTransforms: boolean;
  private disposed = false;
  private lastFrame = -1;
  private readonly warnings: SolverWarning[] = [];

  private constructor(
    scene: Scene,
    skeleton: Skeleton,
    references: BipedReferences,
    rootNode: Bone | null,
    options: FullBodyBipedIKOptions,
    setupWarnings: string[],
  ) {
    this.scene = scene;
    this.skeleton = skeleton;
    this.references = references;
    this.autoUpdate = options.autoUpdate ?? true;
    this.fixTransforms = options.fixTransforms ?? true;
    const toes = [references.leftFoot, references.rightFoot].map((f) => f.children[0] ?? null);
    this.rig = new BabylonRig(skeleton, [...referencedBones(references), ...toes.filter((t): t is Bone => t !== null)], {
      characterRoot: references.root,
      mesh: options.mesh ?? null,
    });
    const rig = this.rig;
    const id = (b: Bone): number => rig.idOf(b);
    const bones: BipedBones = {
      root: 0,
      pelvis: id(references.pelvis),
      spine: references.spine.map(id),
      head: references.head !== null ? id(references.head) : -1,
      leftThigh: id(references.leftThigh),
      leftCalf: id(references.leftCalf),
      leftFoot: id(references.leftFoot),
      rightThigh: id(references.rightThigh),
      rightCalf: id(references.rightCalf),
      rightFoot: id(references.rightFoot),
      leftUpperArm: id(references.leftUpperArm),
      leftForearm: id(references.leftForearm),
      leftHand: id(references.leftHand),
      rightUpperArm: id(references.rightUpperArm),
      rightForearm: id(references.rightForearm),
      rightHand: id(references.rightHand),
    };
    const inner = new BabylonBipedSolver(rig);
    inner.onWarning.add((w) => {
      this.warnings.push(w);
      this.onWarningObservable.notifyObservers(w);
    });
    for (const message of setupWarnings) inner.warn(`setup:${message}`, message);
    inner.forward = this.estimateForward(options.forward ?? null, toes, bones);
    // without an explicit root node the solver detects it as FinalIK does
    inner.setToReferences(bones, rootNode !== null ? id(rootNode) : undefined);
    this.rootNode = rig.bones[inner.rootNode]!;
    const mapping = new BipedMapping(inner, {
      leftClavicle: references.leftClavicle !== null ? id(references.leftClavicle) : -1,
      rightClavicle: references.rightClavicle !== null ? id(references.rightClavicle) : -1,
    });
    inner.setMapping(mapping);
    this.solver = new FBBIKSolver(inner, rig, mapping);
    SceneUpdater.for(scene).add(this);
  }

  /**
   * Attaches FullBodyBipedIK to `skeleton`: detects the biped references (or takes them from `options`),
   * builds the solver and, with `autoUpdate`, solves every frame after the animations. Throws
   * {@link FBBIKError} naming every problem when the rig cannot work.
   */
  static create(scene: Scene, skeleton: Skeleton, options: FullBodyBipedIKOptions = {}): FullBodyBipedIK {
    const { references, warnings } = resolveBipedReferences(skeleton, options.references);
    let rootNode: Bone | null = null;
    if (options.rootNode !== undefined) {
      const r = options.rootNode;
      rootNode = typeof r === "string" ? (skeleton.bones.find((b) => b.name === r) ?? null) : r;
      if (rootNode === null) throw new FBBIKError([`rootNode: no bone named "${String(r)}" in skeleton ${skeleton.name}`]);
      if (rootNode !== references.pelvis && !references.spine.includes(rootNode)) {
        throw new FBBIKError([
          `rootNode ${rootNode.name} has to be the pelvis or one of the spine bones (${[references.pelvis, ...references.spine].map((b) => b.name).join(", ")})`,
        ]);
      }
    }
    return new FullBodyBipedIK(scene, skeleton, references, rootNode, options, warnings);
  }

  /** The character's forward in component space: the given world forward, else the toes, else null. */
  private estimateForward(world: Vector3 | null, toes: (Bone | null)[], bones: BipedBones): Vec3 | null {
    const rig = this.rig;
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
    return found > 0 && length(sum) > 0 ? normalize(sum, sum) : null;
  }

  /** Warnings raised so far (each cause once). */
  get warningsRaised(): readonly SolverWarning[] {
    return this.warnings;
  }

  /**
   * Solves once now: reads the animated pose, solves, writes the bones. Called after the animations every
   * frame when `autoUpdate`; a second call in the same frame starts again from the animated pose.
   */
  update(): void {
    if (this.disposed || !this.enabled) return;
    const frame = this.scene.getFrameId();
    if (frame === this.lastFrame) this.rig.restoreAnimatedPose();
    this.lastFrame = frame;
    try {
      this.rig.read();
      this.solver.inner.update();
      this.rig.write();
    } catch (e) {
      // a frame's failure must not escape into the render loop; the bones keep the animated pose
      this.rig.restoreAnimatedPose();
      this.solver.inner.warn(`exception:${String(e)}`, `The IK update failed and was skipped for this frame: ${String(e)}`);
    }
    this.solver._afterUpdate();
  }

  /** @internal */
  _beforeAnimations(): void {
    if (this.disposed || !this.enabled || !this.fixTransforms) return;
    this.solver.inner.fixTransforms();
  }

  /** @internal */
  _beforeRender(): void {
    if (!this.autoUpdate) return;
    if (this.scene.getFrameId() === this.lastFrame) return;
    this.update();
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Stops the IK: removes its observers and leaves the bones as the animation left them. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    SceneUpdater.for(this.scene).remove(this);
    this.rig.restoreAnimatedPose();
    this.solver._dispose();
    this.onWarningObservable.clear();
    const inner = this.solver.inner;
    for (const o of [inner.onPreUpdate, inner.onPreRead, inner.onPreSolve, inner.onPostSolve, inner.onPostUpdate, inner.onWarning]) o.clear();
    inner.onPreIteration.clear();
    inner.onPostIteration.clear();
    inner.onPreBend.clear();
  }
}
