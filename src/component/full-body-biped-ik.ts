import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { BabylonRig } from "../mapping/babylon-rig.js";
import {
  type BipedReferences,
  type BipedReferencesInput,
  type BoneReference,
  resolveBipedReferences,
} from "../mapping/biped-references.js";
import { FBBIKError } from "../solver/errors.js";
import type { SolverWarning } from "../solver/full-body.js";
import { buildBipedSolver, resolveRootNode } from "./build-solver.js";
import { FBBIKSolver } from "./fbbik-solver.js";
import { type SceneUpdatable, SceneUpdater } from "./scene-updater.js";

/** Warning cause and message per {@link BabylonRig.detachedState}. */
const DETACHED: readonly (readonly [string, string])[] = [
  ["", ""],
  ["detached:skeleton", "The skeleton is not in the scene (disposed, or its asset container removed): the IK is skipped until it is back. Dispose the IK with the character."],
  ["detached:node", "A TransformNode of the skeleton was disposed: the IK is skipped. Dispose the IK with the character."],
  ["detached:mesh", "The mesh the skeleton deforms was disposed: the IK is skipped. Dispose the IK with the character."],
];

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
  /**
   * A problem, reported once per cause (bad input, a disposed target…). Warnings raised while `create`
   * attaches (a straight limb, a guess of the detection) happen before you can subscribe: read them from
   * {@link warningsRaised}.
   */
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
    const built = buildBipedSolver(skeleton, references, rootNode, options, setupWarnings, (w) => {
      this.warnings.push(w);
      this.onWarningObservable.notifyObservers(w);
    });
    this.rig = built.rig;
    // the root the rig resolved (the model's top node unless given)
    this.references.root = built.rig.characterRoot;
    this.rootNode = built.rootNode;
    this.solver = new FBBIKSolver(built.inner, built.rig, built.mapping);
    this.rig.watchDisposal();
    SceneUpdater.for(scene).add(this);
  }

  /**
   * Attaches FullBodyBipedIK to `skeleton`: detects the biped references (or takes them from `options`),
   * builds the solver and, with `autoUpdate`, solves every frame after the animations. Throws
   * {@link FBBIKError} naming every problem when the rig cannot work.
   */
  static create(scene: Scene, skeleton: Skeleton, options: FullBodyBipedIKOptions = {}): FullBodyBipedIK {
    const { references, warnings } = resolveBipedReferences(skeleton, options.references);
    const rootNode = resolveRootNode(skeleton, references, options.rootNode);
    return new FullBodyBipedIK(scene, skeleton, references, rootNode, options, warnings);
  }

  /**
   * Checks whether FullBodyBipedIK can work on `skeleton` (with `options`) without attaching it: every
   * problem that would make {@link create} throw (missing, duplicated or misplaced references, bones not in
   * a parent chain, zero-length bones) and every warning it would raise (straight limbs, a root node too
   * near the shoulder or thigh line, guesses of the detection), in words.
   */
  static validate(skeleton: Skeleton, options: FullBodyBipedIKOptions = {}): { problems: string[]; warnings: string[] } {
    const warnings: string[] = [];
    try {
      const resolved = resolveBipedReferences(skeleton, options.references);
      const rootNode = resolveRootNode(skeleton, resolved.references, options.rootNode);
      buildBipedSolver(skeleton, resolved.references, rootNode, options, resolved.warnings, (w) => warnings.push(w.message));
      return { problems: [], warnings };
    } catch (e) {
      if (e instanceof FBBIKError) return { problems: [...e.problems], warnings };
      throw e;
    }
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
    if (this.disposed) return;
    if (!this.enabled) {
      // offsets added for this frame must not pile up while the IK is off
      this.solver._afterUpdate();
      return;
    }
    const detached = this.rig.detachedState();
    if (detached !== 0) {
      // the character is gone (or out of the scene): nothing to solve until it is back
      this.solver.inner.warn(DETACHED[detached]![0], DETACHED[detached]![1]);
      this.solver._afterUpdate();
      return;
    }
    const frame = this.scene.getFrameId();
    if (frame === this.lastFrame) this.rig.restoreAnimatedPose();
    this.lastFrame = frame;
    try {
      // FinalIK's OnPreUpdate comes before anything is read: what it changes on the bones is seen
      this.solver.onPreUpdate.notifyObservers();
      this.rig.read();
      if (this.rigSolvable()) this.solver.inner.update();
      this.rig.write();
    } catch (e) {
      // a frame's failure must not escape into the render loop; the bones keep the animated pose
      this.rig.restoreAnimatedPose();
      this.solver.inner.warn(`exception:${String(e)}`, `The IK update failed and was skipped for this frame: ${String(e)}`);
    }
    this.solver._afterUpdate();
  }

  /**
   * Whether the pose just read can be solved; warns once per cause when it cannot (a bone scaled to 0, or
   * moved under another bone of the skeleton: the frame is skipped and the bones keep the animated pose) or
   * when a non-uniform bone scale shears bones the IK turns (solved anyway).
   */
  private rigSolvable(): boolean {
    const rig = this.rig;
    const blocked = rig.collapsedBone >= 0 ? rig.problem("collapsed", rig.collapsedBone) : rig.reparentedBone >= 0 ? rig.problem("reparented", rig.reparentedBone) : null;
    if (blocked !== null) {
      this.solver.inner.warn(blocked[0], blocked[1]);
      return false;
    }
    if (rig.shearedBone >= 0) {
      const sheared = rig.problem("sheared", rig.shearedBone);
      this.solver.inner.warn(sheared[0], sheared[1]);
    }
    return true;
  }

  /** @internal */
  _beforeAnimations(): void {
    if (this.disposed || !this.enabled || !this.fixTransforms) return;
    if (this.rig.detachedState() !== 0) return;
    try {
      this.solver.inner.fixTransforms();
    } catch (e) {
      // like update(): a failure is reported once and never escapes into Babylon's frame
      this.solver.inner.warn(`exception:fix:${String(e)}`, `FixTransforms failed and was skipped for this frame: ${String(e)}`);
    }
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
    this.rig.dispose();
    this.solver._dispose();
    this.onWarningObservable.clear();
    const inner = this.solver.inner;
    for (const o of [inner.onPreUpdate, inner.onPreRead, inner.onPreSolve, inner.onPostSolve, inner.onPostUpdate, inner.onWarning]) o.clear();
    inner.onPreIteration.clear();
    inner.onPostIteration.clear();
    inner.onPreBend.clear();
  }
}
