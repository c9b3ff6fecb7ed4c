// Over 500 lines: FinalIK's FBIKChain is one class whose stages (push, reach, trigonometric, stage 1 and 2,
// constraint systems) share the chain's nodes and cross-fades; split by stage they would pass them around.
import { Quat, lookRotation, rotateVector } from "../math/quat.js";
import { NumberRef } from "../math/number-ref.js";
import { ON_POINT } from "../math/on-point.js";
import { type ReadonlyVec3, Vec3, copy, sub, zero } from "../math/vec3.js";
import { BendConstraint } from "./bend-constraint.js";
import type { ChildConstraint } from "./child-constraint.js";
import { type IKNode, addNodeOffset } from "./node.js";
import { Smoothing, applySmoothing } from "./smoothing.js";

/** The longest a limb may get in the trigonometric pass, as a fraction of its length. */
export const MAX_LIMB_LENGTH = 0.99999;

/** What a chain needs from the solver that owns it. */
export interface ChainSolver {
  /** All chains of the solver; children are referenced by index. */
  readonly chains: readonly FBIKChain[];
  /** Solver iterations (Stage2 repeats its constraint systems clamp(iterations, 2, 4) times). */
  readonly iterations: number;
  /** Master weight. */
  readonly ikPositionWeight: number;
  /** Reports a problem once per cause. */
  warn(cause: string, message: string): void;
  /**
   * The side a limb that is straight at initiate should bend toward (component space), or null to let the
   * bend plane fall where Gram–Schmidt puts it.
   */
  straightLimbBendDirection?(chain: FBIKChain): ReadonlyVec3 | null;
}

const dir = new Vec3();
const tmp = new Vec3();
const bend = new Vec3();
const look = new Quat();
const unitY = new Vec3(0, 1, 0);
/** The numbers of a linear constraint, handed to solveLink in an object (a class: see NumberRef). */
class LinkParams {
  crossFade = 0;
  distance = 0;
}
const link = new LinkParams();
/** Push and reach forces handed to applySmoothing by reference (see NumberRef). */
const force = new NumberRef();
/** A length measured by calculateBoneLengths. */
const measured = new NumberRef();

/**
 * A chain of nodes in the full-body solver's tree (FinalIK's FBIKChain). The biped has a one-node body
 * chain (the root node) with four three-node limb children. Limbs pull the body according to `pull`,
 * push it when compressed according to `push`/`pushParent`, and reach toward their effectors.
 */
export class FBIKChain {
  /** [0, 1] Only meaningful on the root chain: how much the root stays put instead of following the limbs. */
  pin = 0;
  /** [0, 1] How much this limb pulls the parent chain (body) when its end effector is out of reach. */
  pull = 1;
  /** [0, 1] How much the end effector pushes the first node when the limb is compressed below its animated length. */
  push = 0;
  /** [−1, 1] Fraction of this limb's push passed on to the parent chain. */
  pushParent = 0;
  /** [0, 1] Pulls the first node toward the end effector so the limb reaches before it straightens. */
  reach = 0.1;
  /** Shaping of the reach force. */
  reachSmoothing = Smoothing.Exponential;
  /** Shaping of the push force. */
  pushSmoothing = Smoothing.Exponential;
  /** The nodes, parent first. */
  readonly nodes: IKNode[];
  /** Indices of the child chains in the solver. */
  readonly children: number[];
  /** Distance constraints between the first nodes of the children. */
  readonly childConstraints: ChildConstraint[];
  /** Bend direction of a three-node limb. */
  readonly bendConstraint = new BendConstraint();
  /** Sum of the node lengths (animated). */
  length = 0;
  /** Animated distance from the first to the last node's bone (only refreshed while push > 0). */
  distance = 0;
  /** Animated distance from the parent chain's last node to this chain's first node. */
  rootLength = 0;
  /** Share of each child in the constraint between it and this chain's last node. */
  readonly crossFades: number[];
  /** Σ child pulls, at least 1. */
  pullParentSum = 1;
  /** reach × the end effector's position weight. */
  reachForce = 0;
  /** True after initiate. */
  initiated = false;
  /**
   * True when a trigonometric pass of this frame found the end node on the first node and folded the limb
   * along its animated upper bone (see {@link FBIKChain.solveTrigonometric}); cleared by readPose.
   */
  foldedOnRoot = false;
  /** Name for warnings ("left arm"…; set by the biped). */
  name = "chain";
  // the last valid pull, push, pushParent, reach and bend weight: a non-finite value is replaced by these
  private validPull = 1;
  private validPush = 0;
  private validPushParent = 0;
  private validReach = 0.1;
  private validBendWeight = 0;
  /** The child chains themselves (resolved from `children` at initiate, so hot loops skip the lookup). */
  private childChains: FBIKChain[] = [];
  /**
   * True when every child is a leaf chain (the biped's limbs): their FABRIK steps then run node by node
   * across all children rather than child by child. Same arithmetic on disjoint nodes, so the result is
   * identical; the square roots of different limbs sit next to each other and the CPU overlaps them.
   */
  private leafChildren = false;
  /** The longest child's node count (for the interleaved leaf passes). */
  private maxChildNodes = 0;
  private sqrMag1 = 0;
  private sqrMagDif = 0;
  private readonly pushResult = new Vec3();

  /** Creates a chain of `nodes` with child chains `children` and constraints between them. */
  constructor(nodes: IKNode[], children: number[] = [], childConstraints: ChildConstraint[] = []) {
    this.nodes = nodes;
    this.children = children;
    this.childConstraints = childConstraints;
    this.crossFades = children.map(() => 0);
    if (nodes.length === 3) this.bendConstraint.setBones(nodes[0]!, nodes[1]!, nodes[2]!);
  }

  /** Places the nodes at their bones, measures lengths and initiates the constraints. */
  initiate(solver: ChainSolver): boolean {
    this.initiated = false;
    this.childChains = this.children.map((i) => solver.chains[i]!);
    this.leafChildren = this.childChains.length > 1 && this.childChains.every((c) => c.children.length === 0);
    this.maxChildNodes = this.childChains.reduce((m, c) => Math.max(m, c.nodes.length), 0);
    const nodes = this.nodes;
    for (let i = 0; i < nodes.length; i++) copy(nodes[i]!.solverPosition, nodes[i]!.bonePosition);
    if (!this.calculateBoneLengths(solver)) return false;
    for (let i = 0; i < this.childConstraints.length; i++) this.childConstraints[i]!.initiate(solver.chains);
    if (nodes.length === 3) this.bendConstraint.initiate(solver.straightLimbBendDirection?.(this) ?? null);
    this.initiated = true;
    return true;
  }

  /**
   * Clamps pull, push, reach and the bend constraint's weight to [0, 1] and pushParent to [−1, 1] in place
   * (as effector weights are); a non-finite value is reported once and replaced by the last valid one.
   * Runs before LimitBend and before any chain reads the frame (the parent chain reads its children's pulls).
   */
  validateParameters(solver: ChainSolver): void {
    const pull = this.pull;
    const push = this.push;
    const pushParent = this.pushParent;
    const reach = this.reach;
    const bendWeight = this.bendConstraint.weight;
    // the usual case, checked inline: passing these doubles to the checking helper would box them
    if (
      pull >= 0 &&
      pull <= 1 &&
      push >= 0 &&
      push <= 1 &&
      pushParent >= -1 &&
      pushParent <= 1 &&
      reach >= 0 &&
      reach <= 1 &&
      bendWeight >= 0 &&
      bendWeight <= 1
    ) {
      this.validPull = pull;
      this.validPush = push;
      this.validPushParent = pushParent;
      this.validReach = reach;
      this.validBendWeight = bendWeight;
      return;
    }
    // finite out of range (a weight curve overshooting 1, every frame of an interaction's plateau) is clamped
    // inline: the helper's double arguments boxed three numbers a frame; only a non-finite value calls it
    let v = this.pull;
    if (!(v >= 0 && v <= 1))
      this.pull = v = Number.isFinite(v) ? (v < 0 ? 0 : 1) : this.checked(solver, this.validPull, "pull");
    this.validPull = v;
    v = this.push;
    if (!(v >= 0 && v <= 1))
      this.push = v = Number.isFinite(v) ? (v < 0 ? 0 : 1) : this.checked(solver, this.validPush, "push");
    this.validPush = v;
    v = this.pushParent;
    if (!(v >= -1 && v <= 1))
      this.pushParent = v = Number.isFinite(v)
        ? v < -1
          ? -1
          : 1
        : this.checked(solver, this.validPushParent, "pushParent");
    this.validPushParent = v;
    v = this.reach;
    if (!(v >= 0 && v <= 1))
      this.reach = v = Number.isFinite(v) ? (v < 0 ? 0 : 1) : this.checked(solver, this.validReach, "reach");
    this.validReach = v;
    const bend = this.bendConstraint;
    v = bend.weight;
    if (!(v >= 0 && v <= 1))
      bend.weight = v = Number.isFinite(v)
        ? v < 0
          ? 0
          : 1
        : this.checked(solver, this.validBendWeight, "bend weight");
    this.validBendWeight = v;
  }

  /** Reports (once) that setting `what` is not finite and returns its last valid value, kept. */
  private checked(solver: ChainSolver, valid: number, what: string): number {
    solver.warn(
      `${this.name}:${what}`,
      `The ${this.name} chain's ${what} is not finite; its last valid value ${valid} is kept.`,
    );
    return valid;
  }

  /**
   * Reads the frame's animated pose into the nodes (solver position = bone position + offset) and the
   * per-frame quantities of the full-body pass when `fullBody`.
   */
  readPose(solver: ChainSolver, fullBody: boolean): void {
    if (!this.initiated) return;
    this.foldedOnRoot = false;
    const nodes = this.nodes;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      addNodeOffset(n.solverPosition, n.bonePosition, n);
    }
    this.calculateBoneLengths(solver);
    if (!fullBody) return;
    for (let i = 0; i < this.childConstraints.length; i++) this.childConstraints[i]!.onPreSolve();
    const children = this.children;
    if (children.length > 0) {
      let pullSum = nodes[nodes.length - 1]!.effectorPositionWeight;
      for (let i = 0; i < children.length; i++) {
        const c = this.childChains[i]!;
        pullSum += c.nodes[0]!.effectorPositionWeight * c.pull;
      }
      if (pullSum < 1) pullSum = 1;
      for (let i = 0; i < children.length; i++) {
        const c = this.childChains[i]!;
        this.crossFades[i] = (c.nodes[0]!.effectorPositionWeight * c.pull) / pullSum;
      }
    }
    let pps = 0;
    for (let i = 0; i < children.length; i++) pps += this.childChains[i]!.pull;
    this.pullParentSum = pps < 1 ? 1 : pps;
    if (nodes.length === 3) {
      const epw = nodes[2]!.effectorPositionWeight;
      this.reachForce = this.reach * (epw < 0 ? 0 : epw > 1 ? 1 : epw);
    } else {
      this.reachForce = 0;
    }
    if (this.push > 0 && nodes.length > 1) {
      const a = nodes[0]!.bonePosition;
      const b = nodes[nodes.length - 1]!.bonePosition;
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const dz = b.z - a.z;
      this.distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
  }

  /**
   * Push (recursive, children first): a compressed limb pushes its first node away from the end
   * effector, and passes `pushParent` of that push to this chain's last node. Returns the push applied
   * to the first node (a vector owned by the chain, valid until the next call).
   */
  pushNodes(solver: ChainSolver): Vec3 {
    const nodes = this.nodes;
    const last = nodes[nodes.length - 1]!.solverPosition;
    for (let i = 0; i < this.children.length; i++) {
      const c = this.childChains[i]!;
      const p = c.pushNodes(solver);
      const k = c.pushParent;
      last.x += p.x * k;
      last.y += p.y * k;
      last.z += p.z * k;
    }
    const result = zero(this.pushResult);
    if (nodes.length < 2 || this.push <= 0) return result;
    const first = nodes[0]!.solverPosition;
    const vx = last.x - first.x;
    const vy = last.y - first.y;
    const vz = last.z - first.z;
    const l = Math.sqrt(vx * vx + vy * vy + vz * vz);
    if (l === 0) return result;
    force.value = 1 - l / this.distance;
    if (!(force.value > 0)) return result;
    applySmoothing(force, this.pushSmoothing);
    const k = -force.value * this.push;
    result.x = vx * k;
    result.y = vy * k;
    result.z = vz * k;
    first.x += result.x;
    first.y += result.y;
    first.z += result.z;
    return result;
  }

  /**
   * Reach (recursive, children first): drags the first node (and the end node) along the limb toward
   * the end effector, by reachForce, before the limb straightens.
   */
  reachNodes(solver: ChainSolver): void {
    for (let i = 0; i < this.children.length; i++) this.childChains[i]!.reachNodes(solver);
    const rf = this.reachForce;
    if (rf <= 0) return;
    const nodes = this.nodes;
    const n0 = nodes[0]!;
    const first = n0.solverPosition;
    const last = nodes[nodes.length - 1]!.solverPosition;
    const vx = last.x - first.x;
    const vy = last.y - first.y;
    const vz = last.z - first.z;
    const l = Math.sqrt(vx * vx + vy * vy + vz * vz);
    if (l === 0) return;
    const len = this.length;
    let ratio = l / len;
    ratio = ratio < 1 - rf ? 1 - rf : ratio > 1 + rf ? 1 + rf : ratio;
    let delta = ratio - 1 + rf;
    delta = delta < -1 ? -1 : delta > 1 ? 1 : delta;
    force.value = delta;
    applySmoothing(force, this.reachSmoothing);
    delta = force.value;
    // Deviation from FinalIK for scale invariance: FinalIK clamps delta to [0, solverLength] in world
    // units; the same bound relative to the limb's length behaves alike at every rig scale.
    const upper = l / len;
    delta = delta < 0 ? 0 : delta > upper ? upper : delta;
    // offset = straightened limb × delta
    const k = (len / l) * delta;
    const ox = vx * k;
    const oy = vy * k;
    const oz = vz * k;
    const w0 = 1 - n0.effectorPositionWeight;
    first.x += ox * w0;
    first.y += oy * w0;
    first.z += oz * w0;
    last.x += ox;
    last.y += oy;
    last.z += oz;
  }

  /**
   * Trigonometric pass (recursive, children first): places the middle node of each three-node limb with
   * the law of cosines so both bones keep their lengths; the end node stays. With
   * `calculateBendDirection` the bend constraint decides the bend plane, otherwise the current middle
   * node does. An end node on the first node folds the limb instead (see {@link FBIKChain.foldedOnRoot}).
   */
  solveTrigonometric(solver: ChainSolver, calculateBendDirection: boolean): void {
    if (!this.initiated) return;
    for (let i = 0; i < this.children.length; i++) {
      this.childChains[i]!.solveTrigonometric(solver, calculateBendDirection);
    }
    const nodes = this.nodes;
    if (nodes.length !== 3) return;
    const p0 = nodes[0]!.solverPosition;
    const p1 = nodes[1]!.solverPosition;
    const p2 = nodes[2]!.solverPosition;
    sub(dir, p2, p0);
    const l = Math.sqrt(dir.x * dir.x + dir.y * dir.y + dir.z * dir.z);
    // the end on the root (its target on the shoulder or thigh): the axis between them is float noise
    if (!(l > ON_POINT * this.length)) {
      this.foldOnRoot();
      return;
    }
    const maxLen = this.length * MAX_LIMB_LENGTH;
    const mag = l > maxLen ? maxLen : l;
    if (calculateBendDirection && this.bendConstraint.initiated) {
      this.bendConstraint.getDir(bend, solver);
    } else {
      sub(bend, p1, p0);
    }
    // law of cosines: distance along the axis (x) and off it (y) of the middle node. Inlined (not a
    // helper call) because passing doubles to a call V8 does not inline allocates a box per argument.
    // reciprocals instead of repeated divisions: this runs 5 times per limb per frame
    const il = 1 / l;
    // 0.5 × (1 / l) equals 0.5 / l exactly (halving is exact), so the clamped case alone divides again
    const x = (mag * mag + this.sqrMagDif) * (mag === l ? 0.5 * il : 0.5 / mag);
    const ySq = this.sqrMag1 - x * x;
    const y = ySq > 0 ? Math.sqrt(ySq) : 0;
    const zx = dir.x * il;
    const zy = dir.y * il;
    const zz = dir.z * il;
    // bend direction made orthogonal to the axis: LookRotation(axis, bend)'s +Y
    const d = bend.x * zx + bend.y * zy + bend.z * zz;
    let ux = bend.x - zx * d;
    let uy = bend.y - zy * d;
    let uz = bend.z - zz * d;
    const ulSq = ux * ux + uy * uy + uz * uz;
    const blSq = bend.x * bend.x + bend.y * bend.y + bend.z * bend.z;
    // |u| > 1e-12 |bend|, compared squared so only the usable case pays for a square root
    if (ulSq > 1e-24 * blSq && ulSq > 0 && ulSq < Infinity) {
      const iul = 1 / Math.sqrt(ulSq);
      ux *= iul;
      uy *= iul;
      uz *= iul;
    } else {
      // no usable bend direction: LookRotation's fallback roll
      lookRotation(look, dir, bend);
      rotateVector(tmp, look, unitY);
      ux = tmp.x;
      uy = tmp.y;
      uz = tmp.z;
    }
    p1.x = p0.x + ux * y + zx * x;
    p1.y = p0.y + uy * y + zy * x;
    p1.z = p0.z + uz * y + zz * x;
  }

  /**
   * The trigonometric pass of a limb whose end node is on its first node (within {@link ON_POINT} of the limb):
   * there the axis from one to the other is float noise, a new way each frame, and a limb folded along it threw
   * the elbow or knee about. It folds along the animated upper bone instead, the end node put ON_POINT of the
   * limb off the first node toward the animated end, square to that bone: the solved triangle then lies in the
   * animated bend plane, so the mapping turns the upper bone as animated and closes the middle joint in it.
   */
  private foldOnRoot(): void {
    const nodes = this.nodes;
    const l1 = nodes[0]!.length;
    if (!(l1 > 0)) return;
    const b0 = nodes[0]!.bonePosition;
    const b2 = nodes[2]!.bonePosition;
    const ex = (nodes[1]!.bonePosition.x - b0.x) / l1;
    const ey = (nodes[1]!.bonePosition.y - b0.y) / l1;
    const ez = (nodes[1]!.bonePosition.z - b0.z) / l1;
    // the animated end square to the upper bone: the side of the animated bend
    sub(dir, b2, b0);
    const d = dir.x * ex + dir.y * ey + dir.z * ez;
    let tx = dir.x - ex * d;
    let ty = dir.y - ey * d;
    let tz = dir.z - ez * d;
    const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
    if (tl > ON_POINT * this.length) {
      tx /= tl;
      ty /= tl;
      tz /= tl;
    } else {
      // animated straight (its side float noise): LookRotation's roll about the world up picks one, steady
      bend.x = ex;
      bend.y = ey;
      bend.z = ez;
      lookRotation(look, bend, unitY);
      rotateVector(tmp, look, unitY);
      tx = tmp.x;
      ty = tmp.y;
      tz = tmp.z;
    }
    const p0 = nodes[0]!.solverPosition;
    const p1 = nodes[1]!.solverPosition;
    const p2 = nodes[2]!.solverPosition;
    p1.x = p0.x + ex * l1;
    p1.y = p0.y + ey * l1;
    p1.z = p0.z + ez * l1;
    const near = ON_POINT * this.length;
    p2.x = p0.x + tx * near;
    p2.y = p0.y + ty * near;
    p2.z = p0.z + tz * near;
    this.foldedOnRoot = true;
  }

  /**
   * Stage 1, forward reach (recursive, children first): leaf chains reach from their end node toward
   * the root; the parent chain moves to the pull-weighted centroid of where its children want it.
   */
  stage1(solver: ChainSolver): void {
    const children = this.children;
    if (this.leafChildren) this.forwardReachLeaves();
    else for (let i = 0; i < children.length; i++) this.childChains[i]!.stage1(solver);
    const nodes = this.nodes;
    const last = nodes[nodes.length - 1]!.solverPosition;
    if (children.length === 0) {
      this.forwardReach(last);
      return;
    }
    this.solveChildConstraints();
    let cx = last.x;
    let cy = last.y;
    let cz = last.z;
    const pps = this.pullParentSum;
    for (let i = 0; i < children.length; i++) {
      const c = this.childChains[i]!;
      const c0 = c.nodes[0]!.solverPosition;
      // where this chain's last node would be for that child, at its root length
      let px = c0.x;
      let py = c0.y;
      let pz = c0.z;
      if (c.rootLength > 0) {
        const dx = last.x - c0.x;
        const dy = last.y - c0.y;
        const dz = last.z - c0.z;
        const dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
        if (dl > 0) {
          const k = c.rootLength / dl;
          px += dx * k;
          py += dy * k;
          pz += dz * k;
        }
      }
      if (pps > 0) {
        const w = c.pull / pps;
        cx += (px - last.x) * w;
        cy += (py - last.y) * w;
        cz += (pz - last.z) * w;
      }
    }
    const pin = this.pin;
    if (pin > 0) {
      const t = pin >= 1 ? 1 : pin;
      cx += (last.x - cx) * t;
      cy += (last.y - cy) * t;
      cz += (last.z - cz) * t;
    }
    tmp.x = cx;
    tmp.y = cy;
    tmp.z = cz;
    this.forwardReach(tmp);
  }

  /**
   * Stage 2, backward reach (recursive, parent first): the chain reaches out from `position` (its
   * parent's last node), the body's constraint systems settle clamp(iterations, 2, 4) times, then the
   * children follow.
   */
  stage2(solver: ChainSolver, position: ReadonlyVec3): void {
    this.backwardReach(position);
    let it = solver.iterations;
    it = it < 2 ? 2 : it > 4 ? 4 : it;
    if (this.childConstraints.length > 0) {
      for (let i = 0; i < it; i++) this.solveConstraintSystems();
    }
    const last = this.nodes[this.nodes.length - 1]!.solverPosition;
    if (this.leafChildren) this.backwardReachLeaves(last);
    else for (let i = 0; i < this.children.length; i++) this.childChains[i]!.stage2(solver, last);
  }

  /** Stage 1 of leaf children, interleaved: each leaf's forwardReach toward its own last node. */
  private forwardReachLeaves(): void {
    const leaves = this.childChains;
    for (let j = this.maxChildNodes - 2; j >= 0; j--) {
      for (let c = 0; c < leaves.length; c++) {
        const nodes = leaves[c]!.nodes;
        // a shorter leaf starts later: node j counts from each leaf's own end
        const i = nodes.length - this.maxChildNodes + j;
        if (i >= 0) solveFabrikJoint(nodes[i]!.solverPosition, nodes[i + 1]!.solverPosition, nodes[i]!);
      }
    }
  }

  /** Stage 2 of leaf children, interleaved: each leaf's backwardReach from `position`. */
  private backwardReachLeaves(position: ReadonlyVec3): void {
    const leaves = this.childChains;
    for (let c = 0; c < leaves.length; c++) leaves[c]!.placeFirstNode(position);
    for (let i = 1; i < this.maxChildNodes; i++) {
      for (let c = 0; c < leaves.length; c++) {
        const nodes = leaves[c]!.nodes;
        if (i < nodes.length) solveFabrikJoint(nodes[i]!.solverPosition, nodes[i - 1]!.solverPosition, nodes[i - 1]!);
      }
    }
  }

  /** Child constraints, then each child's first node against this chain's last node at its root length. */
  private solveConstraintSystems(): void {
    this.solveChildConstraints();
    const last = this.nodes[this.nodes.length - 1]!.solverPosition;
    for (let i = 0; i < this.children.length; i++) {
      const c = this.childChains[i]!;
      link.crossFade = this.crossFades[i]!;
      link.distance = c.rootLength;
      solveLink(last, c.nodes[0]!.solverPosition, link);
    }
  }

  private solveChildConstraints(): void {
    for (let i = 0; i < this.childConstraints.length; i++) this.childConstraints[i]!.solve();
  }

  /** FABRIK forward: the last node goes to `position`, each earlier node follows at its length. */
  forwardReach(position: ReadonlyVec3): void {
    const nodes = this.nodes;
    copy(nodes[nodes.length - 1]!.solverPosition, position);
    for (let i = nodes.length - 2; i > -1; i--) {
      solveFabrikJoint(nodes[i]!.solverPosition, nodes[i + 1]!.solverPosition, nodes[i]!);
    }
  }

  /** FABRIK backward: the first node goes to `position` (at rootLength from it), the rest follow. */
  private backwardReach(position: ReadonlyVec3): void {
    this.placeFirstNode(position);
    const nodes = this.nodes;
    for (let i = 1; i < nodes.length; i++) {
      solveFabrikJoint(nodes[i]!.solverPosition, nodes[i - 1]!.solverPosition, nodes[i - 1]!);
    }
  }

  /** The first step of backwardReach: the first node at rootLength from `position`, toward where it was. */
  private placeFirstNode(position: ReadonlyVec3): void {
    const first = this.nodes[0]!.solverPosition;
    if (this.rootLength > 0) {
      // first = position + normalize(first − position) × rootLength
      const dx = first.x - position.x;
      const dy = first.y - position.y;
      const dz = first.z - position.z;
      const dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
      const k = dl > 0 ? this.rootLength / dl : 0;
      first.x = position.x + dx * k;
      first.y = position.y + dy * k;
      first.z = position.z + dz * k;
    } else {
      copy(first, position);
    }
  }

  /**
   * Re-measures node lengths, root lengths of the children and the limb's squared lengths from the
   * animated bones. A zero length is reported and leaves the rest unmeasured.
   */
  calculateBoneLengths(solver: ChainSolver): boolean {
    const nodes = this.nodes;
    let length = 0;
    for (let i = 0; i < nodes.length - 1; i++) {
      const l = distanceToRef(nodes[i]!.bonePosition, nodes[i + 1]!.bonePosition, measured).value;
      nodes[i]!.length = l;
      length += l;
      if (!(l > 0)) {
        solver.warn(
          `zero-length:${nodes[i]!.bone}-${nodes[i + 1]!.bone}`,
          `Bone ${nodes[i]!.bone} - ${nodes[i + 1]!.bone} length is zero, can not solve.`,
        );
        this.length = length;
        return false;
      }
    }
    this.length = length;
    const last = nodes[nodes.length - 1]!.bonePosition;
    for (let i = 0; i < this.children.length; i++) {
      const c = this.childChains[i]!;
      const l = distanceToRef(c.nodes[0]!.bonePosition, last, measured).value;
      c.rootLength = l;
      if (!(l > 0)) {
        solver.warn(
          `zero-root-length:${c.nodes[0]!.bone}`,
          `Bone ${c.nodes[0]!.bone} is at the same position as its parent chain's last bone ` +
            `${nodes[nodes.length - 1]!.bone}, can not solve.`,
        );
        return false;
      }
    }
    if (nodes.length === 3) {
      const l0 = nodes[0]!.length;
      const l1 = nodes[1]!.length;
      this.sqrMag1 = l0 * l0;
      this.sqrMagDif = l0 * l0 - l1 * l1;
    }
    return true;
  }
}

/** Moves n1 and n2 apart or together to `distance`; n1 takes `crossFade` of the correction. */
export function solveLinearConstraint(n1: Vec3, n2: Vec3, crossFade: number, distance: number): void {
  link.crossFade = crossFade;
  link.distance = distance;
  solveLink(n1, n2, link);
}

/** solveLinearConstraint with its numbers in an object: the hot loop passes no doubles to the call. */
function solveLink(n1: Vec3, n2: Vec3, params: LinkParams): void {
  const dx = n2.x - n1.x;
  const dy = n2.y - n1.y;
  const dz = n2.z - n1.z;
  const mag = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const distance = params.distance;
  if (mag === distance || mag === 0) return;
  const f = 1 - distance / mag;
  const crossFade = params.crossFade;
  // A node that takes no share of the correction is not written: adding zero would leave it equal, but
  // the write makes it depend on this square root, and the next constraint on that node would wait for
  // it. The body's node takes no share unless a shoulder or thigh effector is weighted, and then the
  // limbs' links settle side by side instead of one after another.
  if (crossFade !== 0) {
    const a = f * crossFade;
    n1.x += dx * a;
    n1.y += dy * a;
    n1.z += dz * a;
  }
  const b = f * (1 - crossFade);
  n2.x -= dx * b;
  n2.y -= dy * b;
  n2.z -= dz * b;
}

/**
 * FABRIK joint: `pos1` slides along the line to `pos2` until it is `bone.length` from it. The length is
 * read from its owner rather than passed (see ARCHITECTURE.md, "Doubles across calls").
 */
export function solveFabrikJoint(pos1: Vec3, pos2: ReadonlyVec3, bone: { readonly length: number }): void {
  const length = bone.length;
  const dx = pos1.x - pos2.x;
  const dy = pos1.y - pos2.y;
  const dz = pos1.z - pos2.z;
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  // coincident points: normalize() of zero is zero in Unity, so the joint collapses onto pos2
  const k = l > 0 ? length / l : 0;
  pos1.x = pos2.x + dx * k;
  pos1.y = pos2.y + dy * k;
  pos1.z = pos2.z + dz * k;
}

/**
 * |a − b| into `out.value`. Returned as a number it was boxed on every call V8 did not inline (64 B a frame on
 * a VR rig once the solver had deoptimised: ARCHITECTURE.md, "Doubles across calls").
 */
function distanceToRef(a: ReadonlyVec3, b: ReadonlyVec3, out: NumberRef): NumberRef {
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  const dz = a.z - b.z;
  out.value = Math.sqrt(dx * dx + dy * dy + dz * dz);
  return out;
}
