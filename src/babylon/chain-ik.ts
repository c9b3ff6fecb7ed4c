import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { IKSolverCCD } from "../ccd/ik-solver-ccd.js";
import { IKSolverFABRIK } from "../fabrik/ik-solver-fabrik.js";
import { IKSolverFABRIKRoot } from "../fabrik/ik-solver-fabrik-root.js";
import type { IKSolverJoints, IKSolverJointsOptions } from "../joints/ik-solver-joints.js";
import type { IKPose } from "../solver/pose.js";
import { FBBIKError, setUpAs } from "../solver/errors.js";
import { checkChain } from "./bone-chain.js";
import type { BabylonRig } from "./babylon-rig.js";
import type { BoneCollider } from "./bone-collider.js";
import { BoneColliderSet, colliderBones } from "./bone-collider-set.js";
import { FABRIK_ROOT_FIELDS, jointsGroups } from "./family-settings.js";
import { type IKSettingsGroup, NON_NEGATIVE } from "./ik-settings.js";
import { RIG_COMPONENT_OPTION_KINDS, RigComponent, type RigComponentOptions, type IKTarget } from "./rig-component.js";
import { IKUpdateOrder } from "./scene-updater.js";
import { checkSkeletonScene } from "./skeleton-scene.js";
import type { OptionKinds } from "./option-check.js";

/** Options of {@link CCDIK.create} and {@link FABRIK.create}. */
export interface ChainIKOptions extends RigComponentOptions {
  /** The node the chain's tip follows every frame (position; rotation too when `solver.ikRotationWeight` > 0). */
  target?: IKTarget | null;
  /**
   * Most iterations per frame (default 4 for FABRIK, 10 for CCD). A long FABRIK chain needs more: on a 19-bone
   * tail, 4 leave the tip up to 3.9 % of the chain's length off a reachable static target, 16 up to 0.53 %, 32
   * up to 0.07 % (every frame alike: FixTransforms restores the pose first). With `tolerance`, easy frames stop
   * early.
   */
  maxIterations?: number;
  /** Stop once the tip is within this distance of the target, world units (default 0: all iterations). */
  tolerance?: number;
  /**
   * Colliders the chain's joints and segments are kept outside of (`solver.subSteps` sub-steps per frame,
   * `solver.colliderRadius` clearance). Their bones join the component's rig, so they may hang on any bone of
   * the skeleton (the body a tail swings around); a collider on a node (a ball, a pillar) follows that node.
   */
  colliders?: readonly BoneCollider[];
}

/** The kinds of {@link ChainIKOptions}, for the check at create. */
export const CHAIN_IK_OPTION_KINDS: OptionKinds<ChainIKOptions> = {
  ...RIG_COMPONENT_OPTION_KINDS,
  target: "object|null",
  maxIterations: "number",
  tolerance: "number",
  colliders: "array",
};

/**
 * A chain of bones solved by one of the joint-frame solvers ({@link IKSolverJoints}) on a Babylon skeleton:
 * the tip follows {@link target} (or {@link targetPosition}, world space), on top of the animation. Limits,
 * per-bone weights, iterations and colliders are set on {@link solver}, in component space, which for a
 * character is its own space (its root's scale and handedness taken out).
 */
export abstract class ChainIK<S extends IKSolverJoints> extends RigComponent {
  /** The engine-neutral solver: weights, iterations, tolerance, limits (`solver.setLimit`), colliders. */
  readonly solver: S;
  /** The chain's bones, root first. */
  readonly bones: readonly Bone[];
  /** The tip's id in the rig (its target rotation is read as the tip takes it). */
  private readonly tipId: number;
  /** The node the tip follows, or null to use {@link targetPosition}/{@link targetRotation}. */
  target: IKTarget | null;
  /** World position the tip follows when there is no {@link target} (default: the tip where it was created). */
  readonly targetPosition = new Vector3();
  /** World rotation the tip takes (by `solver.ikRotationWeight`) when there is no {@link target}. */
  readonly targetRotation = new Quaternion();
  /** The colliders on the rig (see {@link addCollider}); the solver's `colliders` while it holds any. */
  readonly colliderSet: BoneColliderSet;
  private toleranceWorld: number;

  protected constructor(
    bones: readonly Bone[],
    options: ChainIKOptions,
    makeSolver: (pose: IKPose, ids: number[], options: IKSolverJointsOptions) => S,
  ) {
    const skeleton = bones[0]?.getSkeleton();
    if (skeleton === undefined) throw new FBBIKError(["no bones given"]);
    checkChain(bones, 2);
    super(skeleton, colliderBones(bones, options.colliders), options, IKUpdateOrder.Chain, CHAIN_IK_OPTION_KINDS);
    this.bones = [...bones];
    const rig: BabylonRig = this.rig;
    const ids = bones.map((b) => rig.idOf(b));
    const parent = rig.parents[ids[0]!]!;
    this.solver = makeSolver(rig, ids, {
      boneName: (id) => rig.getName(id),
      rootParent: parent > 0 ? parent : undefined,
    });
    if (options.maxIterations !== undefined) this.solver.maxIterations = options.maxIterations;
    this.colliderSet = new BoneColliderSet(rig, options.colliders ?? [], (cause, message) => this.warn(cause, message));
    this.solver.colliders = this.colliderSet.colliders.length > 0 ? this.colliderSet : null;
    this.toleranceWorld = options.tolerance ?? 0;
    this.target = options.target ?? null;
    const tip = bones[bones.length - 1]!;
    this.tipId = rig.idOf(tip);
    rig.getWorldPosition(ids[ids.length - 1]!, this.targetPosition);
    rig.getWorldRotation(rig.idOf(tip), this.targetRotation);
    this.attach(bones);
  }

  /**
   * Adds a collider (setup time). Its bone must be in the rig: one of the chain's bones, an ancestor of them,
   * or a bone of a collider given at creation; throws {@link FBBIKError} naming it otherwise. A collider on a
   * node may hang on any node.
   */
  addCollider(collider: BoneCollider): void {
    this.colliderSet.add(collider);
    this.solver.colliders = this.colliderSet;
  }

  /** Removes a collider; false when it was not there. */
  removeCollider(collider: BoneCollider): boolean {
    const removed = this.colliderSet.remove(collider);
    if (this.colliderSet.colliders.length === 0) this.solver.colliders = null;
    return removed;
  }

  /**
   * Takes the bones' pose as it stands now (as the animation or your code left it; this component's output, and
   * between frames the output of the character's other IKs, taken off) as the rest the rotation limits work from:
   * each bone's rotation relative to the one before it.
   * `solver.readRestPose()` alone reads the solver's pose as last solved, not the bones. The limits of a component
   * created mid-clip work from that frame's pose; to have them work from the bind pose:
   * `skeleton.returnToRest(); ik.readRestPose();` (the animation takes the bones back the next frame).
   */
  readRestPose(): void {
    this.withBonesAsTheyStand(() => this.solver.readRestPose());
  }

  /** Stop once the tip is within this distance of the target, world units. */
  get tolerance(): number {
    return this.toleranceWorld;
  }

  set tolerance(value: number) {
    this.toleranceWorld = value;
  }

  /** @internal */
  protected override settingsFinite(): boolean {
    return super.settingsFinite() && Number.isFinite(this.toleranceWorld + jointsSum(this.solver));
  }

  /** The component's settings and its world tolerance, then the solver's and its bones' weights. */
  protected override settingsGroups(): IKSettingsGroup[] {
    return [
      ...super.settingsGroups(),
      { key: "", target: this, fields: { tolerance: NON_NEGATIVE } },
      ...jointsGroups("solver", this.solver as unknown as IKSolverCCD | IKSolverFABRIK),
    ];
  }

  /** @internal */
  protected override solveTargetOwners(): void {
    this.solveTargetOwner(this.target);
  }

  /** @inheritdoc */
  protected solve(): void {
    const s = this.solver;
    if (this.target?.isDisposed())
      this.target = this.letGoOf(this.target, "target", this.targetPosition, this.targetRotation);
    const node = this.target;
    if (!this.readTargetPosition(node, node === null ? this.targetPosition : null, s.ikPosition, "target")) return;
    if (s.ikRotationWeight > 0) {
      this.readTargetRotation(node, node === null ? this.targetRotation : null, s.ikRotation, "target", this.tipId);
    }
    // the tolerance is given in world units; the solver works in component space
    const t = this.toleranceWorld;
    s.tolerance = t > 0 && Number.isFinite(t) ? t / this.rig.componentScale : 0;
    const driver = this._legDriver;
    if (driver !== null) driver._beforeLegSolve(this);
    s.update();
    if (driver !== null) driver._afterLegSolve(this);
  }
}

/**
 * FinalIK's CCDIK on a Babylon bone chain (tails, tentacles, spines, robot arms): cyclic coordinate descent
 * from the link nearest the tip back to the root, per-link weights, rotation limits, MMD's per-iteration
 * angle cap and link order (`solver.maxAngle`, `solver.linkOrder`), and the optimized variant
 * (`solver.optimized`) that keeps long chains from folding at the tip.
 *
 * ```ts
 * const tail = CCDIK.create(scene, tailBones, { target: ball });
 * tail.solver.setLimit(3, new RotationLimitHinge(new Vec3(1, 0, 0), -45, 45));
 * ```
 */
export class CCDIK extends ChainIK<IKSolverCCD> {
  private constructor(bones: readonly Bone[], options: ChainIKOptions) {
    super(bones, options, (pose, ids, o) => new IKSolverCCD(pose, ids, o));
    if (options.maxIterations === undefined) this.solver.maxIterations = 10;
  }

  /** @internal */
  protected override settingsFinite(): boolean {
    // maxAngle is left out: Infinity is its "none"
    return super.settingsFinite() && Number.isFinite(this.solver.toleranceRegion + this.solver.damping);
  }

  /**
   * Attaches CCD IK to `bones` (root first, each the parent or an ancestor of the next, one skeleton) in `scene`,
   * the skeleton's scene. Throws {@link FBBIKError} naming the bone when the chain is not one, or when `scene` is
   * not the skeleton's.
   */
  static create(scene: Scene, bones: readonly Bone[], options: ChainIKOptions = {}): CCDIK {
    return setUpAs("CCDIK", () => {
      checkSkeletonScene(scene, bones[0]);
      return new CCDIK(bones, options);
    });
  }

  /** Creates a CCDIK ({@link create}) and loads the settings `parsed` into it: Babylon's `Parse` (see `serialize`). */
  static Parse(parsed: unknown, scene: Scene, bones: readonly Bone[], options: ChainIKOptions = {}): CCDIK {
    const ik = CCDIK.create(scene, bones, options);
    ik.applySettings(parsed);
    return ik;
  }

  /** "CCDIK". */
  getClassName(): string {
    return "CCDIK";
  }
}

/**
 * FinalIK's FABRIK on a Babylon bone chain: forward and backward reaching on the joint positions, rotation
 * limits applied between the passes, bone lengths kept exactly; the bone before a hinge rolls so that the
 * hinge's plane holds the target (not in FinalIK).
 *
 * ```ts
 * const arm = FABRIK.create(scene, [shoulder, elbow, wrist, hand], { target: handle });
 * ```
 */
export class FABRIK extends ChainIK<IKSolverFABRIK> {
  private constructor(bones: readonly Bone[], options: ChainIKOptions) {
    super(bones, options, (pose, ids, o) => new IKSolverFABRIK(pose, ids, o));
  }

  /** Attaches FABRIK to `bones` in `scene`, the skeleton's (as {@link CCDIK.create}). */
  static create(scene: Scene, bones: readonly Bone[], options: ChainIKOptions = {}): FABRIK {
    return setUpAs("FABRIK", () => {
      checkSkeletonScene(scene, bones[0]);
      return new FABRIK(bones, options);
    });
  }

  /** Creates a FABRIK ({@link create}) and loads the settings `parsed` into it: Babylon's `Parse` (see `serialize`). */
  static Parse(parsed: unknown, scene: Scene, bones: readonly Bone[], options: ChainIKOptions = {}): FABRIK {
    const ik = FABRIK.create(scene, bones, options);
    ik.applySettings(parsed);
    return ik;
  }

  /** "FABRIK". */
  getClassName(): string {
    return "FABRIK";
  }
}

/** Options of {@link FABRIKRoot.create}. */
export interface FABRIKRootOptions extends RigComponentOptions {
  /** Per chain, the node its tip follows (null: its `targetPositions` entry). */
  targets?: readonly (IKTarget | null)[];
  /** Iterations per frame (default 4). */
  maxIterations?: number;
}

/** The kinds of {@link FABRIKRootOptions}, for the check at create. */
export const FABRIK_ROOT_OPTION_KINDS: OptionKinds<FABRIKRootOptions> = {
  ...RIG_COMPONENT_OPTION_KINDS,
  targets: "array",
  maxIterations: "number",
};

/**
 * FinalIK's FABRIKRoot on a Babylon skeleton: several FABRIK chains hanging from one root bone (the fingers
 * of a hand, the tails of a multi-tail). Each chain's tip follows its target; the root moves (never turns)
 * toward the `pull`-weighted centroid of where the chains want it, held back by `solver.rootPin`.
 *
 * ```ts
 * const hand = FABRIKRoot.create(scene, palm, [thumbBones, indexBones, middleBones], { targets: [a, b, c] });
 * hand.solver.rootPin = 0.5;
 * ```
 */
export class FABRIKRoot extends RigComponent {
  /** The engine-neutral solver: `rootPin`, `maxIterations`, and per chain `chains[i].pull` and `.solver`. */
  readonly solver: IKSolverFABRIKRoot;
  /** The shared root bone. */
  readonly root: Bone;
  /** The chains' bones, each root first (the root bone itself not included). */
  readonly chainBones: readonly (readonly Bone[])[];
  /** Per chain, the node its tip follows, or null to use {@link targetPositions}. */
  readonly targets: (IKTarget | null)[];
  /** Per chain, the world position its tip follows when it has no target node (default: the tip at creation). */
  readonly targetPositions: Vector3[];
  /** Per chain, how warnings name its target (built once: a string built every frame is an allocation). */
  private readonly targetLabels: readonly string[];

  private constructor(root: Bone, chains: readonly (readonly Bone[])[], options: FABRIKRootOptions) {
    const skeleton = root.getSkeleton();
    const problems: string[] = [];
    if (chains.length === 0) problems.push("a FABRIK root needs at least one chain");
    for (const c of chains) {
      if (c.length === 0) continue;
      let p = c[0]!.getParent();
      while (p !== null && p !== root) p = p.getParent();
      if (p === null) problems.push(`bone "${c[0]!.name}" does not hang from the root bone "${root.name}"`);
    }
    if (problems.length > 0) throw new FBBIKError(problems);
    for (const c of chains) checkChain(c, 2);
    super(skeleton, [root, ...chains.flat()], options, IKUpdateOrder.Chain, FABRIK_ROOT_OPTION_KINDS);
    this.root = root;
    this.chainBones = chains.map((c) => [...c]);
    const rig = this.rig;
    const rootId = rig.idOf(root);
    // the root bone moves: FixTransforms restores its position too
    rig.storeDefaultLocalState([
      { bone: rootId, position: true },
      ...chains.flat().map((b) => ({ bone: rig.idOf(b), position: false })),
    ]);
    const solvers = chains.map(
      (c) =>
        new IKSolverFABRIK(
          rig,
          c.map((b) => rig.idOf(b)),
          { boneName: (id) => rig.getName(id), rootParent: rig.parents[rig.idOf(c[0]!)]! },
        ),
    );
    this.solver = new IKSolverFABRIKRoot(rig, rootId, solvers);
    if (options.maxIterations !== undefined) this.solver.maxIterations = options.maxIterations;
    this.targets = chains.map((_, i) => options.targets?.[i] ?? null);
    this.targetLabels = chains.map((_, i) => `target ${i}`);
    this.targetPositions = chains.map((c) => rig.getWorldPosition(rig.idOf(c[c.length - 1]!), new Vector3()));
    this.attach([root, ...chains.flat()]);
  }

  /**
   * Attaches FABRIKRoot to `root` and its `chains` (each root first, hanging from `root`, one skeleton) in `scene`,
   * the skeleton's (another scene throws an {@link FBBIKError}).
   */
  static create(scene: Scene, root: Bone, chains: readonly (readonly Bone[])[], options: FABRIKRootOptions = {}) {
    return setUpAs("FABRIKRoot", () => {
      checkSkeletonScene(scene, root);
      return new FABRIKRoot(root, chains, options);
    });
  }

  /**
   * Creates a FABRIKRoot ({@link create}) and loads the settings `parsed` into it: Babylon's `Parse` (see
   * `serialize`).
   */
  static Parse(
    parsed: unknown,
    scene: Scene,
    root: Bone,
    chains: readonly (readonly Bone[])[],
    options: FABRIKRootOptions = {},
  ): FABRIKRoot {
    const ik = FABRIKRoot.create(scene, root, chains, options);
    ik.applySettings(parsed);
    return ik;
  }

  /** "FABRIKRoot". */
  getClassName(): string {
    return "FABRIKRoot";
  }

  /** @internal */
  protected override settingsFinite(): boolean {
    const s = this.solver;
    let sum = s.ikPositionWeight + s.rootPin + s.maxIterations;
    for (let i = 0; i < s.chains.length; i++) sum += s.chains[i]!.pull + jointsSum(s.chains[i]!.solver);
    return super.settingsFinite() && Number.isFinite(sum);
  }

  /** The component's settings, the root's pin and iterations, then each chain's pull and FABRIK settings. */
  protected override settingsGroups(): IKSettingsGroup[] {
    return [
      ...super.settingsGroups(),
      { key: "solver", target: this.solver, fields: FABRIK_ROOT_FIELDS },
      ...this.solver.chains.flatMap((chain, i) => [
        { key: `solver.chains.${i}`, target: chain, fields: { pull: NON_NEGATIVE } },
        ...jointsGroups(`solver.chains.${i}.solver`, chain.solver),
      ]),
    ];
  }

  /** @internal */
  protected override solveTargetOwners(): void {
    for (let i = 0; i < this.targets.length; i++) this.solveTargetOwner(this.targets[i]!);
  }

  /** @inheritdoc */
  protected solve(): void {
    const chains = this.solver.chains;
    for (let i = 0; i < chains.length; i++) {
      const lost = this.targets[i];
      if (lost?.isDisposed())
        this.targets[i] = this.letGoOf(lost, this.targetLabels[i]!, this.targetPositions[i]!, null);
      const node = this.targets[i]!;
      const position = node === null ? this.targetPositions[i]! : null;
      this.readTargetPosition(node, position, chains[i]!.solver.ikPosition, this.targetLabels[i]!);
    }
    this.solver.update();
  }
}

/** The sum of a joint-chain solver's number settings (their finiteness check) and its bones' weights. */
function jointsSum(s: IKSolverJoints): number {
  let sum = s.ikPositionWeight + s.ikRotationWeight + s.maxIterations + s.subSteps + s.colliderRadius;
  for (let i = 0; i < s.bones.length; i++) sum += s.bones[i]!.weight;
  return sum;
}
