import type { IKEffector } from "./effector.js";
import { NumberRef } from "../math/number-ref.js";
import type { ChainSolver, FBIKChain } from "./chain.js";
import { SolverObservable } from "./observable.js";
import type { IKPose } from "./pose.js";
import { forgetCauses } from "./forget-causes.js";

/** The end effector's position weight handed to LimitBend by reference (see NumberRef). */
const positionWeight = new NumberRef();
/** A problem the solver reports, once per cause. */
export interface SolverWarning {
  /** Stable key of the cause (one warning per key per solver until `resetWarnings`). */
  readonly cause: string;
  /** Human-readable description. */
  readonly message: string;
}

/**
 * What maps the solved nodes back onto the skeleton (FinalIK's IKMapping family). The solver calls it
 * at the points FinalIK does; the Babylon rig adapter implements it.
 */
export interface IKSolverMapping {
  /** After the solver initiated: capture the mapping's own reference data. */
  initiate(solver: IKSolverFullBody): void;
  /** Store the default local state that fixTransforms restores. */
  storeDefaultLocalState(): void;
  /** Restore the default local state of every bone the mapping writes. */
  fixTransforms(): void;
  /** Read what writing needs from this frame's animated pose (after the chains read theirs). */
  readPose(solver: IKSolverFullBody, fullBody: boolean): void;
  /** Write the solved pose onto the bones. */
  writePose(solver: IKSolverFullBody, fullBody: boolean): void;
}

/**
 * The node-based full-body solver (FinalIK's IKSolverFullBody): a tree of FBIKChains driven by
 * effectors, solved by push, reach, a trigonometric pass and a two-stage FABRIK per iteration.
 * Engine-neutral: it reads and writes an {@link IKPose} in component space.
 */
export class IKSolverFullBody implements ChainSolver {
  /** The chains; chain 0 is the root of the tree. */
  chains: FBIKChain[] = [];
  /** The effectors. */
  effectors: IKEffector[] = [];
  /** [0, 1] Master weight of the whole solver. */
  ikPositionWeight = 1;
  /** [0, 10] Solver iterations; 0 solves the limbs only (a cheap mode for distant characters). */
  iterations = 4;
  /**
   * [0, 30] Iterations a frame may use beyond {@link iterations} while the nodes still move by more than
   * {@link iterationTolerance} (hard frames: targets that pull against each other). Values at or below
   * `iterations` add none. Default 0: a crowd pays no more than with FinalIK; 10 buys accuracy on hard frames
   * (bench biped). Not in FinalIK.
   */
  maxIterations = 0;
  /**
   * Relative to the rig's size ({@link rigSize}): an iteration in which no node moved farther ends the
   * iterations (easy frames stop early); also what "still moving" means for {@link maxIterations}. 0
   * runs exactly {@link iterations} iterations, as FinalIK does. Default 1e-5.
   */
  iterationTolerance = 1e-5;
  /** Iterations the last update ran. */
  iterationsUsed = 0;
  /**
   * An end effector's rotation turns the elbow's or knee's bend plane as this frame's animation carries it: the
   * plane's normal is read in the hand's or foot's frame from the animated pose (FinalIK reads it once, from the
   * setup pose). A hand or foot given its animated rotation then keeps the animated bend; mocap and trackers keep
   * the animation's relation between wrist and elbow instead of the setup pose's. Default true. Not in FinalIK.
   */
  animatedBendNormal = true;
  /** When false no FABRIK pass runs and the limbs cannot pull the body. */
  fabrikPass = true;
  /** Writes the solved pose back onto the skeleton, or null to leave the output in the nodes. */
  mapping: IKSolverMapping | null = null;
  /** The pose the solver reads (and LimitBend writes). */
  readonly pose: IKPose;
  /** True after a successful initiate. */
  initiated = false;
  /** Size of the rig (sum of chain and root lengths at initiate), for relative thresholds. */
  rigSize = 1;

  /** Before anything else in `update`, even at weight 0 (offset modifiers add offsets here). */
  readonly onPreUpdate = new SolverObservable<void>();
  /** Before the pose is read. */
  readonly onPreRead = new SolverObservable<void>();
  /** After the pose is read, before solving. */
  readonly onPreSolve = new SolverObservable<void>();
  /** At the start of each iteration, with its index. */
  readonly onPreIteration = new SolverObservable<number>();
  /** At the end of each iteration, with its index. */
  readonly onPostIteration = new SolverObservable<number>();
  /**
   * After the iterations, before the final end-effector pass and bend constraints: last chance to change bend
   * directions.
   */
  readonly onPreBend = new SolverObservable<void>();
  /** After solving, before writing. */
  readonly onPostSolve = new SolverObservable<void>();
  /** After writing and the offset reset (fires even when the weight is 0). */
  readonly onPostUpdate = new SolverObservable<void>();
  /** A problem, reported once per cause. */
  readonly onWarning = new SolverObservable<SolverWarning>();

  /** True when the last update changed anything (false when every weight and offset was zero). */
  solvedLastUpdate = false;
  /**
   * Counts the updates (wrapping at 2³⁰): what tells the fitted elbow side's swivel and the natural-side fold that
   * two solves are consecutive frames (turn-limit-memory.ts, fold-memory.ts).
   */
  get updateCount(): number {
    return this.updates;
  }

  /**
   * The next update starts afresh, as a first one: what an update carries into the next (the fitted elbow side's
   * and the natural-side fold's turn limits) is forgotten. Call it when updates resume after frames without one, or
   * after a teleport; the Babylon component does when it resumes (enabled again, back from level of detail Off, shown
   * again).
   */
  resetMemory(): void {
    // one number skipped: the next update is no successor of the last (turn-limit-memory.ts, fold-memory.ts)
    this.updates = this.updates < 0x3fffffff ? this.updates + 1 : 0;
  }

  private readonly warned = new Set<string>();
  private updates = 0;
  private validIterations = 4;
  /** Every node's solver position at the start of an iteration, to measure how far the iteration moved it. */
  private iterationStart = new Float64Array(0);
  private toleranceSquared = 0;
  private iterationBound = 0;
  private frameActive = false;
  /** Some chain pushes this frame (push > 0); without one the push pass would only add zeros. */
  private anyPush = false;
  // effectors split once at initiate, and each chain's end effector, so the hot loops do not search
  private endEffectors: IKEffector[] = [];
  private otherEffectors: IKEffector[] = [];
  private chainEndEffectors: (IKEffector | null)[] = [];
  // per chain, 1 when its last node is an end effector's, which the final pass places again (see converged)
  private endRewritten = new Uint8Array(0);
  /** Per chain, the cause of its target-on-root warning, made when first needed (none per frame). */
  private foldCauses: string[] = [];

  /** Creates a solver reading `pose`. Chains and effectors are set by a subclass (see the biped). */
  constructor(pose: IKPose) {
    this.pose = pose;
  }

  /** Reports `message` once per `cause` through onWarning. */
  warn(cause: string, message: string): void {
    if (this.warned.has(cause)) return;
    this.warned.add(cause);
    this.onWarning.notify({ cause, message });
  }

  /** Forgets which causes were reported (those starting with `prefix`, when given), so they are reported again. */
  resetWarnings(prefix?: string): void {
    forgetCauses(this.warned, prefix);
  }

  /** Reads the pose and initiates chains, effectors and the mapping. Returns false if the rig cannot be solved. */
  initiate(): boolean {
    this.initiated = false;
    if (this.chains.length === 0) return false;
    this.readBones();
    let size = 0;
    for (let i = 0; i < this.chains.length; i++) {
      const c = this.chains[i]!;
      if (!c.initiate(this)) return false;
      size += c.length + c.rootLength;
    }
    this.rigSize = size > 0 ? size : 1;
    for (let i = 0; i < this.effectors.length; i++) this.effectors[i]!.initiate();
    this.endEffectors = this.effectors.filter((e) => e.isEndEffector);
    this.otherEffectors = this.effectors.filter((e) => !e.isEndEffector);
    this.foldCauses = [];
    this.chainEndEffectors = this.chains.map(
      (c) => this.effectors.find((e) => e.node === c.nodes[c.nodes.length - 1]) ?? null,
    );
    this.endRewritten = Uint8Array.from(this.chains, (c, i) =>
      c.nodes.length > 1 && this.chainEndEffectors[i]?.isEndEffector === true ? 1 : 0,
    );
    let nodeCount = 0;
    for (let i = 0; i < this.chains.length; i++) nodeCount += this.chains[i]!.nodes.length;
    this.iterationStart = new Float64Array(3 * nodeCount);
    if (this.mapping !== null) {
      this.mapping.initiate(this);
      this.mapping.storeDefaultLocalState();
    }
    this.initiated = true;
    return true;
  }

  /**
   * Attaches the mapping that writes the solved pose back onto the bones (or detaches it with null).
   * On an initiated solver the mapping is initiated and its default local state stored at once.
   */
  setMapping(mapping: IKSolverMapping | null): void {
    this.mapping = mapping;
    if (mapping !== null && this.initiated) {
      this.readBones();
      mapping.initiate(this);
      mapping.storeDefaultLocalState();
    }
  }

  /** Restores the default local state of the mapped bones (before animation; see FixTransforms). */
  fixTransforms(): void {
    if (!this.initiated || !(this.ikPositionWeight > 0)) return;
    this.mapping?.fixTransforms();
  }

  /** Solves one frame: read the animated pose, solve, write back. */
  update(): void {
    this.onPreUpdate.notify();
    if (!this.initiated) this.initiate();
    if (this.initiated) this.onUpdate();
    this.onPostUpdate.notify();
  }

  /** The frame's pipeline (FinalIK's IKSolverFullBody.OnUpdate). */
  protected onUpdate(): void {
    this.solvedLastUpdate = false;
    this.updates = this.updates < 0x3fffffff ? this.updates + 1 : 0;
    let w = this.ikPositionWeight;
    if (!(w > 0)) {
      // offsets must not pile up while the solver is off
      for (let i = 0; i < this.effectors.length; i++) this.effectors[i]!.onPostWrite();
      if (Number.isNaN(w))
        this.warn("ikPositionWeight", "ikPositionWeight is NaN; the solver is off until it is a number.");
      return;
    }
    if (this.chains.length === 0) return;
    this.ikPositionWeight = w = w > 1 ? 1 : w;
    this.validateIterations();
    this.onPreRead.notify();
    this.readPose();
    this.onPreSolve.notify();
    const skip = !this.frameActive && !this.hasSolveHooks();
    // with nothing driving the solver the pose is already its solution; skipping keeps it bit-exact
    if (!skip) this.solve();
    this.onPostSolve.notify();
    if (!skip) {
      // one check before anything is written: a NaN set into a node by a hook must not reach the bones
      if (this.nodesFinite()) this.writePose();
      else
        this.warn(
          "non-finite-pose",
          "The solved pose had a non-finite value (NaN or ±∞, e.g. set into the solver by a hook): nothing was " +
            "written this frame, the bones keep the animated pose.",
        );
    }
    this.solvedLastUpdate = !skip;
    for (let i = 0; i < this.effectors.length; i++) this.effectors[i]!.onPostWrite();
  }

  /**
   * Clamps iterations to 0…10 and floors it in place, so every stage sees the same count; a non-finite
   * count is reported once and replaced by the last valid one.
   */
  private validateIterations(): void {
    const it = this.iterations;
    if (Number.isFinite(it)) {
      this.validIterations = this.iterations = it < 0 ? 0 : it > 10 ? 10 : Math.floor(it);
    } else {
      this.warn("iterations", `iterations is not finite; the last valid count ${this.validIterations} is kept.`);
      this.iterations = this.validIterations;
    }
  }

  /**
   * True when something listens inside the solve (iteration or pre-bend hooks), which rules out the
   * zero-work shortcut because a listener may move nodes.
   */
  protected hasSolveHooks(): boolean {
    return this.onPreIteration.hasObservers() || this.onPostIteration.hasObservers() || this.onPreBend.hasObservers();
  }

  /** True when every node's solved position is finite. */
  private nodesFinite(): boolean {
    // x − x is 0 for a finite x and NaN for NaN and ±∞: one comparison at the end
    let sum = 0;
    for (let c = 0; c < this.chains.length; c++) {
      const nodes = this.chains[c]!.nodes;
      for (let i = 0; i < nodes.length; i++) {
        const p = nodes[i]!.solverPosition;
        sum += p.x - p.x + (p.y - p.y) + (p.z - p.z);
      }
    }
    return sum === 0;
  }

  /** Copies the animated pose of every node's bone from the pose. */
  protected readBones(): void {
    const pose = this.pose;
    for (let c = 0; c < this.chains.length; c++) {
      const nodes = this.chains[c]!.nodes;
      for (let i = 0; i < nodes.length; i++) {
        const n = nodes[i]!;
        pose.getPosition(n.bone, n.bonePosition);
        pose.getRotation(n.bone, n.boneRotation);
      }
    }
  }

  /** Hook for subclasses: runs at the end of each iteration, before `onPostIteration`. */
  protected afterIteration(): void {}

  /** Hook for subclasses: runs after the iterations (when there were any), before `onPreBend`. */
  protected afterIterations(): void {}

  /** Hook for subclasses: runs after the bones are read and before the base ReadPose (targets, pull body…). */
  protected beforeReadPose(): void {}

  /** Reads the frame: LimitBend, effector pre-solve, chain ReadPose, mapping ReadPose. */
  protected readPose(): void {
    this.readBones();
    this.beforeReadPose();
    const chains = this.chains;
    const effectors = this.effectors;
    const ikw = this.ikPositionWeight;
    let active = false;
    for (let i = 0; i < chains.length; i++) chains[i]!.validateParameters(this);
    // LimitBend prepares limbs for a solve; with nothing to solve the animation passes through untouched
    // (FinalIK would still un-invert a hyperextended limb here)
    const driven = this.anyInputActive();
    for (let i = 0; i < chains.length; i++) {
      const c = chains[i]!;
      if (c.bendConstraint.initiated) {
        // the animated bend plane before LimitBend turns it (read only: the pose is untouched)
        if (driven && this.animatedBendNormal) c.bendConstraint.readAnimatedBend();
        if (driven) c.bendConstraint.limitBend(this.pose, this, this.endEffectorPositionWeightToRef(i, positionWeight));
        if (c.bendConstraint.weight * ikw > 0) active = true;
      }
    }
    for (let i = 0; i < effectors.length; i++) effectors[i]!.resetOffset();
    for (let i = 0; i < effectors.length; i++) if (effectors[i]!.onPreSolve(this)) active = true;
    const fullBody = this.iterations > 0;
    let anyPush = false;
    for (let i = 0; i < chains.length; i++) {
      chains[i]!.readPose(this, fullBody);
      if (chains[i]!.push > 0) anyPush = true;
    }
    this.anyPush = anyPush;
    this.frameActive = active;
    this.mapping?.readPose(this, fullBody);
  }

  /**
   * True when any effector weight or offset, or any bend constraint weight, is non-zero (NaN counts: it
   * is reported and ignored later). Cheap: raw fields only.
   */
  protected anyInputActive(): boolean {
    const effectors = this.effectors;
    for (let i = 0; i < effectors.length; i++) {
      const e = effectors[i]!;
      const o = e.positionOffset;
      if (e.positionWeight !== 0 || e.rotationWeight !== 0 || o.x !== 0 || o.y !== 0 || o.z !== 0) return true;
    }
    const chains = this.chains;
    for (let i = 0; i < chains.length; i++) if (chains[i]!.bendConstraint.weight !== 0) return true;
    return false;
  }

  /**
   * Raw position weight of the effector at the end of chain `chainIndex` (LimitBend uses it unscaled by
   * the master weight, as FinalIK does). 0 when the chain has none.
   */
  protected endEffectorPositionWeightToRef(chainIndex: number, out: NumberRef): NumberRef {
    const e = this.chainEndEffectors[chainIndex];
    out.value = 0;
    if (e === null || e === undefined) return out;
    // a position the effector will ignore this frame must not turn the bend plane either
    return e.usablePositionWeightToRef(this, out);
  }

  /** The iterations: end effectors, push, reach, non-end effectors, trigonometric pass, Stage1, Stage2. */
  protected solve(): void {
    const ends = this.endEffectors;
    const others = this.otherEffectors;
    const root = this.chains[0]!;
    let iterations = this.iterations;
    iterations = !(iterations > 0) ? 0 : iterations > 10 ? 10 : Math.floor(iterations);
    this.iterationsUsed = 0;
    if (iterations > 0) {
      const passes = this.fabrikPass ? iterations : 1;
      this.prepareIterationBounds(passes);
      const adaptive = this.toleranceSquared > 0;
      const most = this.iterationBound;
      for (let i = 0; i < most; i++) {
        if (adaptive) this.markIterationStart();
        this.onPreIteration.notify(i);
        for (let e = 0; e < ends.length; e++) ends[e]!.update(this);
        if (this.fabrikPass) {
          if (this.anyPush) root.pushNodes(this);
          root.reachNodes(this);
          for (let e = 0; e < others.length; e++) others[e]!.update(this);
        }
        root.solveTrigonometric(this, false);
        if (this.fabrikPass) {
          root.stage1(this);
          for (let e = 0; e < others.length; e++) others[e]!.update(this);
          root.stage2(this, root.nodes[0]!.solverPosition);
        }
        this.afterIteration();
        this.onPostIteration.notify(i);
        this.iterationsUsed = i + 1;
        // converged: what more iterations would add is below the tolerance; past `passes` only while moving
        if (adaptive && this.converged()) break;
      }
    }
    if (iterations > 0) this.afterIterations();
    this.onPreBend.notify();
    for (let e = 0; e < ends.length; e++) ends[e]!.update(this);
    this.applyBendConstraints();
    for (let c = 0; c < this.chains.length; c++) if (this.chains[c]!.foldedOnRoot) this.warnFoldedOnRoot(c);
  }

  /** Warns, once, that chain `c`'s end effector has its target on the limb's first bone (its cause made once). */
  private warnFoldedOnRoot(c: number): void {
    const chain = this.chains[c]!;
    const name = this.chainEndEffectors[c]?.name ?? chain.name;
    this.foldCauses[c] ??= `${name}:target-on-root`;
    if (this.warned.has(this.foldCauses[c])) return;
    this.warn(
      this.foldCauses[c],
      `${name} effector: the ${chain.name}'s end lands on its first node (a target on the limb's first bone, or ` +
        "where that node's own effector is pinned), where it has no direction to fold toward: it folds along its " +
        "animated upper bone.",
    );
  }

  /**
   * Sets this frame's squared tolerance (component units; 0 when off or not finite, warned once) and
   * iteration bound (maxIterations floored, clamped to [passes, 30], with the tolerance and the FABRIK pass
   * only). Fields, not return values: no double crosses a call (see NumberRef).
   */
  private prepareIterationBounds(passes: number): void {
    let t = this.iterationTolerance;
    if (!Number.isFinite(t)) {
      this.warn("iterationTolerance", "iterationTolerance is not finite; the iterations run without it.");
      t = 0;
    }
    t = (t < 0 ? 0 : t > 1 ? 1 : t) * this.rigSize;
    this.toleranceSquared = t * t;
    let m = this.maxIterations;
    if (!Number.isFinite(m)) {
      this.warn("maxIterations", "maxIterations is not finite; no iterations are added.");
      m = passes;
    }
    m = Math.floor(m);
    this.iterationBound = !(t > 0) || !this.fabrikPass || m < passes ? passes : m > 30 ? 30 : m;
  }

  /** Remembers every node's solver position (see converged). */
  private markIterationStart(): void {
    const start = this.iterationStart;
    let k = 0;
    for (let c = 0; c < this.chains.length; c++) {
      const nodes = this.chains[c]!.nodes;
      for (let i = 0; i < nodes.length; i++, k += 3) {
        const p = nodes[i]!.solverPosition;
        start[k] = p.x;
        start[k + 1] = p.y;
        start[k + 2] = p.z;
      }
    }
  }

  /**
   * True when no node the output is built from moved farther than the tolerance in this iteration: every chain's
   * first node (pelvis, shoulders, thighs), and its last unless an end effector's (the final pass places a hand or
   * foot again from its target, weight and plane nodes, whatever the iterations left). Middle nodes (elbows,
   * knees) are left out: the bend constraints place them after the iterations, and they wander while the ends
   * have settled. No weight enters the test, so a weight leaving 1 does not change the count: "every full-weight
   * effector met" stopped with the shoulders still moving (on bench biped's reachable sets 0.46 % of the height
   * off the fourth iteration, the pop when a weight left 1).
   */
  private converged(): boolean {
    const limit = this.toleranceSquared;
    const start = this.iterationStart;
    const rewritten = this.endRewritten;
    let k = 0;
    for (let c = 0; c < this.chains.length; c++) {
      const nodes = this.chains[c]!.nodes;
      const last = nodes.length - 1;
      for (let i = 0; i <= last; i++, k += 3) {
        if (i !== 0 && (i !== last || rewritten[c] === 1)) continue;
        const p = nodes[i]!.solverPosition;
        const dx = p.x - start[k]!;
        const dy = p.y - start[k + 1]!;
        const dz = p.z - start[k + 2]!;
        if (!(dx * dx + dy * dy + dz * dz <= limit)) return false;
      }
    }
    return true;
  }

  /** Final trigonometric pass with the bend constraints deciding the bend planes. */
  protected applyBendConstraints(): void {
    this.chains[0]!.solveTrigonometric(this, true);
  }

  /** Hands the solved nodes to the mapping. */
  protected writePose(): void {
    if (!(this.ikPositionWeight > 0)) return;
    this.mapping?.writePose(this, this.iterations > 0);
  }
}
