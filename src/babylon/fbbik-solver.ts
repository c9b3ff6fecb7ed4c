import type { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import { BabylonChain } from "./babylon-chain.js";
import { BabylonEffector } from "./babylon-effector.js";
import { notifyDisposed } from "./dispose-notice.js";
import { AnchorCount, TargetAnchor } from "./target-anchor.js";
import type { BabylonRig } from "./babylon-rig.js";
import type { BipedMapping } from "../mapping/biped-mapping.js";
import type { IKMappingBone } from "../mapping/mapping-bone.js";
import type { IKMappingLimb } from "../mapping/mapping-limb.js";
import type { IKMappingSpine } from "../mapping/mapping-spine.js";
import { FullBodyBipedChain, FullBodyBipedEffector } from "../solver/biped-bones.js";
import type { FBIKChain } from "../solver/chain.js";
import type { IKNode } from "../solver/node.js";
import type { IKEffector } from "../solver/effector.js";
import { IKSolverFullBodyBiped } from "../solver/full-body-biped.js";
import type { SolverObservable } from "../solver/observable.js";

/** The engine-neutral biped solver with its targets read from the Babylon handles at FinalIK's point. */
export class BabylonBipedSolver extends IKSolverFullBodyBiped {
  /** Set by the facade: converts the Babylon handles into the solver (effector targets, bend goals). */
  syncTargets: (() => void) | null = null;
  /** Set by the facade: true when a Babylon observer listens inside the solve. */
  externalSolveHooks: (() => boolean) | null = null;

  protected override readTargets(): void {
    this.syncTargets?.();
  }

  /** Only the Babylon observers count: the bridges to them are always registered on the inner hooks. */
  protected override hasSolveHooks(): boolean {
    return this.externalSolveHooks?.() ?? super.hasSolveHooks();
  }
}

const LIMB_NAMES = ["left arm", "right arm", "left leg", "right leg"] as const;

/**
 * FullBodyBipedIK's solver in Babylon terms (what `ik.solver` is): the nine effectors with world-space
 * targets, the four limb chains, the mappings, FinalIK's parameters and its hooks as Observables.
 */
export class FBBIKSolver {
  /** The engine-neutral solver underneath (component space). */
  readonly inner: BabylonBipedSolver;
  /**
   * The nine effectors in FinalIK's order (Body, LeftShoulder, RightShoulder, LeftThigh, RightThigh, LeftHand,
   * RightHand, LeftFoot, RightFoot).
   */
  readonly effectors: readonly BabylonEffector[];
  /** The four limb chains (left arm, right arm, left leg, right leg). */
  readonly limbChains: readonly BabylonChain[];
  /** Pelvis and spine mapping (iterations, twistWeight). */
  readonly spineMapping: IKMappingSpine;
  /** Head mapping (maintainRotationWeight), or null when the rig has no head. */
  readonly headMapping: IKMappingBone | null;
  /** Limb mappings: left arm, right arm, left leg, right leg (weight, maintainRotationWeight). */
  readonly limbMappings: readonly IKMappingLimb[];

  /**
   * Before anything in an update, even at weight 0, and before the skeleton is read (FinalIK's
   * OnPreUpdate): apply this frame's offsets here. The interaction system, the grounder and the offset
   * modifiers run later, on {@link onSkeletonRead}.
   */
  readonly onPreUpdateObservable = new Observable<void>();
  /** Before the solver reads the bones from the rig (after {@link onSkeletonRead}). */
  readonly onPreReadObservable = new Observable<void>();
  /** After the pose is read, before solving. */
  readonly onPreSolveObservable = new Observable<void>();
  /** At the start of each iteration (the iteration's index). */
  readonly onPreIterationObservable = new Observable<number>();
  /** At the end of each iteration. */
  readonly onPostIterationObservable = new Observable<number>();
  /** After the iterations, before the final end-effector pass and the bend constraints. */
  readonly onPreBendObservable = new Observable<void>();
  /** After solving, before writing the bones. */
  readonly onPostSolveObservable = new Observable<void>();
  /**
   * After the solve (fires even at weight 0): the solved pose is in the rig (`ik.rig`, component space)
   * and is written to the Babylon nodes right after this hook, so post-solve changes go through the rig
   * (`ik.rig.setRotation`) and are written with it. FinalIK's OnPostUpdate comes after its WritePose.
   */
  readonly onPostUpdateObservable = new Observable<void>();
  /** Notified once when the IK is disposed, before it lets go of its bones (Babylon's convention). */
  readonly onDisposeObservable = new Observable<FBBIKSolver>();

  // FinalIK's delegate names before the on…Observable rule (docs/API.md, "Observables"): kept as aliases
  /** @deprecated Use {@link onPreUpdateObservable} (the same object). */
  get onPreUpdate(): Observable<void> {
    return this.onPreUpdateObservable;
  }
  /** @deprecated Use {@link onPreReadObservable} (the same object). */
  get onPreRead(): Observable<void> {
    return this.onPreReadObservable;
  }
  /** @deprecated Use {@link onPreSolveObservable} (the same object). */
  get onPreSolve(): Observable<void> {
    return this.onPreSolveObservable;
  }
  /** @deprecated Use {@link onPreIterationObservable} (the same object). */
  get onPreIteration(): Observable<number> {
    return this.onPreIterationObservable;
  }
  /** @deprecated Use {@link onPostIterationObservable} (the same object). */
  get onPostIteration(): Observable<number> {
    return this.onPostIterationObservable;
  }
  /** @deprecated Use {@link onPreBendObservable} (the same object). */
  get onPreBend(): Observable<void> {
    return this.onPreBendObservable;
  }
  /** @deprecated Use {@link onPostSolveObservable} (the same object). */
  get onPostSolve(): Observable<void> {
    return this.onPostSolveObservable;
  }
  /** @deprecated Use {@link onPostUpdateObservable} (the same object). */
  get onPostUpdate(): Observable<void> {
    return this.onPostUpdateObservable;
  }

  /**
   * Once the skeleton has been read into the rig this frame, before the solver's own stages, even at weight
   * 0: where the interaction system, the grounder and the offset modifiers run, taking this frame's
   * animated bones from the rig. The engine-neutral solver's own `onPreUpdate` (`inner.onPreUpdate`), the
   * same object: observers run in the order they were added.
   */
  get onSkeletonRead(): SolverObservable<void> {
    return this.inner.onPreUpdate;
  }

  /** The rig the solver reads and writes (the same as `ik.rig`): converts component space to world. */
  private readonly rig: BabylonRig;
  /** True when this update's onPostUpdate already reflected bend directions and reset offsets. */
  private settled = false;
  /** How many end effectors have a target hanging from the character's own bones (see TargetAnchor). */
  private readonly anchors = new AnchorCount();

  /** Builds the facade over a set-up solver, its rig and its mapping. */
  constructor(inner: BabylonBipedSolver, rig: BabylonRig, mapping: BipedMapping) {
    this.inner = inner;
    this.rig = rig;
    const warn = (cause: string, message: string) => inner.warn(cause, message);
    this.effectors = inner.effectors.map((e) => new BabylonEffector(e, rig, warn));
    this.limbChains = [1, 2, 3, 4].map((i) => new BabylonChain(inner.chains[i]!, rig, LIMB_NAMES[i - 1]!, warn));
    this.spineMapping = mapping.spineMapping;
    this.headMapping = mapping.headMapping;
    this.limbMappings = mapping.limbMappings;
    const anchors = this.anchors;
    for (let i = 0; i < 4; i++) {
      this.effectors[FullBodyBipedEffector.LeftHand + i]!._anchor = new TargetAnchor(this.limbMappings[i]!, anchors);
    }
    // first of the skeleton-read hooks: the anchors' bones as read, before the grounder moves the pelvis
    inner.onPreUpdate.add(() => this.anchors.value > 0 && this.noteAnchored());
    inner.syncTargets = () => {
      for (const e of this.effectors) e._syncToSolver();
      if (this.anchors.value > 0) this.placeAnchored();
      for (const c of this.limbChains) c.bendConstraint._syncToSolver();
    };
    inner.externalSolveHooks = () =>
      this.onPreIterationObservable.hasObservers() ||
      this.onPostIterationObservable.hasObservers() ||
      this.onPreBendObservable.hasObservers();
    inner.onPreRead.add(() => this.onPreReadObservable.hasObservers() && this.onPreReadObservable.notifyObservers());
    inner.onPreSolve.add(() => this.onPreSolveObservable.hasObservers() && this.onPreSolveObservable.notifyObservers());
    inner.onPostSolve.add(
      () => this.onPostSolveObservable.hasObservers() && this.onPostSolveObservable.notifyObservers(),
    );
    inner.onPostUpdate.add(() => {
      if (this.anchors.value > 0 && inner.solvedLastUpdate) this.followAnchors();
      // FinalIK resets the offsets (OnPostWrite) before OnPostUpdate: one added there counts in the next solve
      this.settle();
      this.settled = true;
      if (this.onPostUpdateObservable.hasObservers()) this.onPostUpdateObservable.notifyObservers();
    });
    // the inner solver ignores these bridges when deciding on its idle shortcut: it asks
    // externalSolveHooks whether a Babylon observer is listening
    inner.onPreIteration.add((i) => this.onPreIterationObservable.notifyObservers(i));
    inner.onPostIteration.add((i) => this.onPostIterationObservable.notifyObservers(i));
    inner.onPreBend.add(() => this.onPreBendObservable.notifyObservers());
  }

  /** The effector of the given type. */
  getEffector(effector: FullBodyBipedEffector): BabylonEffector {
    return this.effectors[effector]!;
  }
  /** The chain of the given limb. */
  getChain(chain: FullBodyBipedChain): BabylonChain {
    return this.limbChains[chain]!;
  }
  /** The limb mapping of the given limb. */
  getLimbMapping(chain: FullBodyBipedChain): IKMappingLimb {
    return this.limbMappings[chain]!;
  }
  /** The hand or foot effector at the end of the given limb. */
  getEndEffector(chain: FullBodyBipedChain): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.LeftHand + chain]!;
  }

  /** Number of solver chains: the body chain (0), then left arm, right arm, left leg, right leg (1–4). */
  get chainCount(): number {
    return this.inner.chains.length;
  }

  /** Number of nodes of solver chain `chainIndex` (1 for the body chain, 3 for a limb). */
  getNodeCount(chainIndex: number): number {
    return this.chainAt(chainIndex).nodes.length;
  }

  /**
   * The solver node `nodeIndex` of chain `chainIndex` (FinalIK's GetNode): chain 0 is the body (its one
   * node is the root node), chains 1–4 the left arm, right arm, left leg, right leg (upper bone, middle
   * bone, hand or foot). Its positions are in the rig's component space; see {@link getNodeWorldPosition}.
   */
  getNode(chainIndex: number, nodeIndex: number): IKNode {
    const nodes = this.chainAt(chainIndex).nodes;
    const node = nodes[nodeIndex];
    if (node === undefined)
      throw new RangeError(`Chain ${chainIndex} has ${nodes.length} node(s); there is no node ${nodeIndex}.`);
    return node;
  }

  /**
   * Where the last solve placed node (`chainIndex`, `nodeIndex`), in world space, written into `out`
   * (allocation-free). Before the first solve it is the bone's position at setup. The node is kept in
   * component space, so on frames that do not solve (every weight 0, or `ikPositionWeight` 0) the result
   * follows the character: it is the last solved place relative to the character, carried by the latest
   * component space the rig read.
   */
  getNodeWorldPosition(chainIndex: number, nodeIndex: number, out: Vector3): Vector3 {
    return this.rig.componentToWorldPoint(this.getNode(chainIndex, nodeIndex).solverPosition, out);
  }

  /** Name of the bone that node (`chainIndex`, `nodeIndex`) stands for. */
  getNodeBoneName(chainIndex: number, nodeIndex: number): string {
    return this.rig.getName(this.getNode(chainIndex, nodeIndex).bone);
  }

  private chainAt(chainIndex: number): FBIKChain {
    const chain = this.inner.chains[chainIndex];
    if (chain === undefined)
      throw new RangeError(`The solver has chains 0–${this.inner.chains.length - 1}; there is no chain ${chainIndex}.`);
    return chain;
  }

  /**
   * Body effector (root node; carries the thighs). Unlike FinalIK's, its rotation is used: at
   * `rotationWeight` > 0 the whole animated body turns about the root node's bone toward `rotation` (that
   * bone's world rotation) before the solve, so a pelvis tracker or a mocap clip can turn the character.
   *
   * ```ts
   * ik.solver.bodyEffector.target = pelvisTracker; // position and rotation followed every frame
   * ik.solver.bodyEffector.positionWeight = 1;
   * ik.solver.bodyEffector.rotationWeight = 1;
   * ```
   */
  get bodyEffector(): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.Body]!;
  }
  /** Left shoulder effector. */
  get leftShoulderEffector(): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.LeftShoulder]!;
  }
  /** Right shoulder effector. */
  get rightShoulderEffector(): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.RightShoulder]!;
  }
  /** Left thigh effector. */
  get leftThighEffector(): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.LeftThigh]!;
  }
  /** Right thigh effector. */
  get rightThighEffector(): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.RightThigh]!;
  }
  /** Left hand effector. */
  get leftHandEffector(): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.LeftHand]!;
  }
  /** Right hand effector. */
  get rightHandEffector(): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.RightHand]!;
  }
  /** Left foot effector. */
  get leftFootEffector(): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.LeftFoot]!;
  }
  /** Right foot effector. */
  get rightFootEffector(): BabylonEffector {
    return this.effectors[FullBodyBipedEffector.RightFoot]!;
  }
  /** The body chain (its one node is the root node): FinalIK's `chain[0]`, whose `pin` keeps the body in place. */
  get bodyChain(): FBIKChain {
    return this.inner.bodyChain;
  }
  /** Left arm chain. */
  get leftArmChain(): BabylonChain {
    return this.limbChains[FullBodyBipedChain.LeftArm]!;
  }
  /** Right arm chain. */
  get rightArmChain(): BabylonChain {
    return this.limbChains[FullBodyBipedChain.RightArm]!;
  }
  /** Left leg chain. */
  get leftLegChain(): BabylonChain {
    return this.limbChains[FullBodyBipedChain.LeftLeg]!;
  }
  /** Right leg chain. */
  get rightLegChain(): BabylonChain {
    return this.limbChains[FullBodyBipedChain.RightLeg]!;
  }
  /** Left arm mapping. */
  get leftArmMapping(): IKMappingLimb {
    return this.limbMappings[FullBodyBipedChain.LeftArm]!;
  }
  /** Right arm mapping. */
  get rightArmMapping(): IKMappingLimb {
    return this.limbMappings[FullBodyBipedChain.RightArm]!;
  }
  /** Left leg mapping. */
  get leftLegMapping(): IKMappingLimb {
    return this.limbMappings[FullBodyBipedChain.LeftLeg]!;
  }
  /** Right leg mapping. */
  get rightLegMapping(): IKMappingLimb {
    return this.limbMappings[FullBodyBipedChain.RightLeg]!;
  }

  /** [0, 1] Master weight. Default 1. */
  get ikPositionWeight(): number {
    return this.inner.ikPositionWeight;
  }
  set ikPositionWeight(v: number) {
    this.inner.ikPositionWeight = v;
  }
  /** [0, 10] Solver iterations; 0 solves the limbs only. Default 4. */
  get iterations(): number {
    return this.inner.iterations;
  }
  set iterations(v: number) {
    this.inner.iterations = v;
  }
  /**
   * [0, 30] Iterations a hard frame may use beyond {@link iterations} while the body is still moving
   * (targets that pull against each other). Default 0 (none). Not in FinalIK.
   */
  get maxIterations(): number {
    return this.inner.maxIterations;
  }
  set maxIterations(v: number) {
    this.inner.maxIterations = v;
  }
  /**
   * Relative to the rig's size: the iterations stop once no pelvis, shoulder or thigh node moved farther in
   * the last iteration (easy frames stop early; the weights do not enter). 0 runs exactly
   * {@link iterations}, as FinalIK does. Default 1e-5.
   */
  get iterationTolerance(): number {
    return this.inner.iterationTolerance;
  }
  set iterationTolerance(v: number) {
    this.inner.iterationTolerance = v;
  }
  /** Iterations the last solve ran (see {@link maxIterations}, {@link iterationTolerance}). */
  get iterationsUsed(): number {
    return this.inner.iterationsUsed;
  }
  /**
   * Keep every bone's distance to its parent exactly as animated (default true): the upper arms and thighs
   * stay on their parents instead of moving onto their solved nodes (FinalIK's FixToNode, which stretches
   * the links above them), the limbs bend from there and a clavicle turns a little further when a hand would
   * otherwise fall short. False: FinalIK's mapping.
   */
  get preserveBoneLengths(): boolean {
    return this.inner.preserveBoneLengths;
  }
  set preserveBoneLengths(v: boolean) {
    this.inner.preserveBoneLengths = v;
  }
  /**
   * A hand's or foot's rotation (its effector's rotationWeight) turns the elbow's or knee's bend plane as this
   * frame's animation carries it, instead of as the setup pose did (FinalIK): given its animated rotation, a hand
   * keeps the animated elbow. Default true. False: FinalIK's bend. Not in FinalIK.
   */
  get animatedBendNormal(): boolean {
    return this.inner.animatedBendNormal;
  }
  set animatedBendNormal(v: boolean) {
    this.inner.animatedBendNormal = v;
  }
  /** [0, 1] How much the torso resists being bent by the limbs. Default 0.5. */
  get spineStiffness(): number {
    return this.inner.spineStiffness;
  }
  set spineStiffness(v: number) {
    this.inner.spineStiffness = v;
  }
  /** [−1, 1] Weight of the hands pulling the body vertically. Default 0.5. */
  get pullBodyVertical(): number {
    return this.inner.pullBodyVertical;
  }
  set pullBodyVertical(v: number) {
    this.inner.pullBodyVertical = v;
  }
  /** [−1, 1] Weight of the hands pulling the body horizontally. Default 0. */
  get pullBodyHorizontal(): number {
    return this.inner.pullBodyHorizontal;
  }
  set pullBodyHorizontal(v: number) {
    this.inner.pullBodyHorizontal = v;
  }
  /** When false, no FABRIK pass runs and the limbs cannot pull the body. Default true. */
  get fabrikPass(): boolean {
    return this.inner.fabrikPass;
  }
  set fabrikPass(v: boolean) {
    this.inner.fabrikPass = v;
  }

  /**
   * @internal After a solve: reflect bend directions, reset world offsets. Runs before onPostUpdateObservable;
   * FullBodyBipedIK calls it again at the end of each update, where it only acts when no solve ran.
   */
  _afterUpdate(): void {
    if (this.settled) this.settled = false;
    else this.settle();
  }

  /** The bones targets hang from, as the rig read them (see TargetAnchor.note). */
  private noteAnchored(): void {
    const effectors = this.effectors;
    for (let i = FullBodyBipedEffector.LeftHand; i <= FullBodyBipedEffector.RightFoot; i++) {
      const anchor = effectors[i]!._anchor;
      if (anchor !== null && anchor.bone >= 0) anchor.note(this.rig);
    }
  }

  /** Targets hanging from the character's own bones placed where the solve will about put them (TargetAnchor). */
  private placeAnchored(): void {
    const effectors = this.effectors;
    const limbs = this.limbMappings;
    for (let i = FullBodyBipedEffector.LeftHand; i <= FullBodyBipedEffector.RightFoot; i++) {
      const anchor = effectors[i]!._anchor;
      if (anchor === null || anchor.bone < 0) continue;
      // the effector of the limb that ends at the bone, if any (the hand that holds the rifle)
      let driver: IKEffector | null = null;
      for (let j = 0; j < 4; j++) {
        if (limbs[j]!.bone3.bone === anchor.bone) driver = effectors[FullBodyBipedEffector.LeftHand + j]!.inner;
      }
      anchor.place(effectors[i]!.inner, driver, this.inner);
    }
  }

  /** Targets hanging from the character's own bones placed again under the bones as solved (see TargetAnchor). */
  private followAnchors(): void {
    const effectors = this.effectors;
    for (let i = FullBodyBipedEffector.LeftHand; i <= FullBodyBipedEffector.RightFoot; i++) {
      const e = effectors[i]!;
      const anchor = e._anchor;
      if (anchor !== null && anchor.bone >= 0) anchor.correct(this.rig, e.inner, this.inner);
    }
  }

  private settle(): void {
    for (const c of this.limbChains) c.bendConstraint._syncFromSolver();
    for (const e of this.effectors) e._resetOffset();
  }

  /**
   * @internal True when something may look at the bones read this frame: a skeleton-read hook besides the facade's
   * own (the grounder's, the interaction system's, a user's), an onPostUpdate observer, or a target hanging from the
   * character's own bones. At `ikPositionWeight` 0 without any, the IK reads nothing.
   */
  get _readWatched(): boolean {
    return (
      this.inner.onPreUpdate.observerCount > 1 || this.anchors.value > 0 || this.onPostUpdateObservable.hasObservers()
    );
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "FBBIKSolver";
  }

  /** @internal Notifies {@link onDisposeObservable} (the IK calls it first thing in its dispose). */
  _notifyDisposed(): void {
    notifyDisposed(this.onDisposeObservable, this);
  }

  /** @internal Removes every observer. */
  _dispose(): void {
    this.onPreUpdateObservable.clear();
    this.onPreReadObservable.clear();
    this.onPreSolveObservable.clear();
    this.onPreIterationObservable.clear();
    this.onPostIterationObservable.clear();
    this.onPreBendObservable.clear();
    this.onPostSolveObservable.clear();
    this.onPostUpdateObservable.clear();
    this.inner.syncTargets = null;
    this.inner.externalSolveHooks = null;
  }
}
