import {
  Quat,
  copyQuat,
  identity,
  isUsableRotation,
  multiplyConjugate,
  nlerpByRef,
  normalizeQuat,
  rotateVector,
} from "../math/quat.js";
import { NumberRef } from "../math/number-ref.js";
import { Vec3, add, copy, isFiniteVec, isZero, lerpByRef, sub, zero } from "../math/vec3.js";
import { type IKNode, addNodeOffset } from "./node.js";
import { planeRotation } from "./plane.js";

/** What an effector needs from the solver that owns it. */
export interface EffectorSolver {
  /** Master weight. */
  readonly ikPositionWeight: number;
  /** Solver iterations (0 = limbs only). */
  readonly iterations: number;
  /** A length typical of the rig (sum of its limb and root lengths), for relative thresholds. */
  readonly rigSize: number;
  /** Reports a problem once per cause. */
  warn(cause: string, message: string): void;
}

const v1 = new Vec3();
const v2 = new Vec3();
const q1 = new Quat();
const q2 = new Quat();
/** Weights handed to the interpolation helpers by reference (see NumberRef). */
const weight = new NumberRef();

/**
 * FinalIK warns above a squared offset of 1e10 m² (100 km) for a ~1 m limb: a script adding to
 * positionOffset every frame. Here the same bound is relative to the rig's size.
 */
const RUNAWAY_OFFSET_SQ = 1e10;

/**
 * A target or offset farther than this × the rig's size from its bone is bad input (an uninitialised or
 * overflowing value such as 1e30), ignored for the frame like a non-finite one: solving toward it would
 * throw the character out of float precision, and squares of it overflow to NaN. 1e10 × a 1 cm
 * character is still 100,000 km, so every real target is far inside.
 */
export const FAR_LIMIT = 1e10;

/**
 * An effector of the full-body solver (FinalIK's IKEffector): pulls its node toward `position` by
 * `positionWeight`, asks its bone for `rotation` by `rotationWeight`, and adds `positionOffset` for one
 * solve. All vectors are in the solver's component space.
 */
export class IKEffector {
  /** Display name, used in warnings. */
  readonly name: string;
  /** The node this effector drives. */
  readonly node: IKNode;
  /** Index of the node's chain in the solver. */
  readonly chainIndex: number;
  /** Index of the node in its chain. */
  readonly nodeIndex: number;
  /** Nodes carried along with this one (the body effector carries both thighs). */
  readonly childNodes: IKNode[];
  /** Plane nodes: the end effector keeps its place relative to the triangle they span. */
  readonly planeNode1: IKNode | null;
  /** Second plane node. */
  readonly planeNode2: IKNode | null;
  /** Third plane node. */
  readonly planeNode3: IKNode | null;
  /** True for hands and feet: effectors whose node ends a chain and restarts from the animation each pass. */
  readonly isEndEffector: boolean;
  /** True when all three plane nodes are set. */
  readonly usePlaneNodes: boolean;

  /** Target position (component space). Set to the bone's position at initiate. */
  readonly position = new Vec3();
  /** Target rotation (component space). Set to the bone's rotation at initiate. */
  readonly rotation = new Quat();
  /** [0, 1] How much the node goes to `position`. */
  positionWeight = 0;
  /** [0, 1] How much the bone takes `rotation` (hands and feet; it also steers the bend plane). */
  rotationWeight = 0;
  /** Added to the node's position for one solve, then reset to zero. Add to it every frame. */
  readonly positionOffset = new Vec3();
  /** Carry the child nodes along (the body effector moving the thighs: FinalIK's "Use Thighs"). */
  effectChildNodes = true;
  /**
   * [0, 1] Keeps the end effector's animated position relative to the triangle of its plane nodes, so a
   * moved body carries an unweighted hand or foot along like FK.
   */
  maintainRelativePositionWeight = 0;
  /** Rotation of the plane nodes since the animation, blended by maintainRelativePositionWeight. */
  readonly planeRotationOffset = new Quat();

  private readonly animatedPosition = new Vec3();
  private readonly animatedPlaneRotation = new Quat();
  private readonly localPositions: Vec3[];
  private firstUpdate = true;
  private posW = 0;
  private rotW = 0;
  private childrenActive = false;
  private mrpW = 0;
  private active = false;

  /** Creates an effector for `node`, optionally carrying `childNodes` and keeping to a plane of three nodes. */
  constructor(options: {
    name: string;
    node: IKNode;
    chainIndex: number;
    nodeIndex: number;
    childNodes?: IKNode[];
    planeNodes?: [IKNode, IKNode, IKNode];
  }) {
    this.name = options.name;
    this.node = options.node;
    this.chainIndex = options.chainIndex;
    this.nodeIndex = options.nodeIndex;
    this.childNodes = options.childNodes ?? [];
    this.localPositions = this.childNodes.map(() => new Vec3());
    const plane = options.planeNodes;
    this.planeNode1 = plane ? plane[0] : null;
    this.planeNode2 = plane ? plane[1] : null;
    this.planeNode3 = plane ? plane[2] : null;
    this.isEndEffector = this.planeNode1 !== null;
    this.usePlaneNodes = plane !== undefined;
  }

  /** Copies the bone's animated pose into position and rotation (node bone pose must be read). */
  initiate(): void {
    copy(this.position, this.node.bonePosition);
    copyQuat(this.rotation, this.node.boneRotation);
    identity(this.animatedPlaneRotation);
    identity(this.planeRotationOffset);
  }

  /** Pins the effector to its bone's current animated pose with the given weights (FinalIK's PinToBone). */
  pinToBone(positionWeight: number, rotationWeight: number): void {
    copy(this.position, this.node.bonePosition);
    copyQuat(this.rotation, this.node.boneRotation);
    this.positionWeight = positionWeight;
    this.rotationWeight = rotationWeight;
  }

  /**
   * The position weight clamped to [0, 1], or 0 when the weight or the position is unusable this frame
   * (non-finite, or beyond `FAR_LIMIT`); what onPreSolve will use, without warning.
   */
  usablePositionWeight(solver: EffectorSolver): number {
    return this.usablePositionWeightToRef(solver, weight).value;
  }

  /** {@link usablePositionWeight} written into `out.value` (the solver's hot path: no double is returned). */
  usablePositionWeightToRef(solver: EffectorSolver, out: NumberRef): NumberRef {
    out.value = 0;
    const w = this.positionWeight;
    if (!(w > 0) || !isFiniteVec(this.position)) return out;
    if (w === Infinity) return out;
    const p = this.position;
    const b = this.node.bonePosition;
    const dx = p.x - b.x;
    const dy = p.y - b.y;
    const dz = p.z - b.z;
    // the solver, not its rigSize (see ARCHITECTURE.md, "Doubles across calls")
    const far = FAR_LIMIT * solver.rigSize;
    if (!(dx * dx + dy * dy + dz * dz <= far * far)) return out;
    out.value = w > 1 ? 1 : w;
    return out;
  }

  /** Clears the offsets of the node and its child nodes before this frame's offsets are gathered. */
  resetOffset(): void {
    this.node.resetOffset();
    for (let i = 0; i < this.childNodes.length; i++) this.childNodes[i]!.resetOffset();
  }

  /**
   * Pre-solve: validates this frame's input, writes weighted weights and the offset into the node (and
   * child nodes), and records the animated plane rotation. Non-finite input is ignored for the frame.
   * Returns true when this effector will change the pose this frame.
   */
  onPreSolve(solver: EffectorSolver): boolean {
    const ikw = solver.ikPositionWeight;
    // weights are clamped in place (as FinalIK does); non-finite input is ignored for this frame only
    let pw = this.positionWeight;
    let rw = this.rotationWeight;
    const mrp = this.maintainRelativePositionWeight;
    if (Number.isFinite(pw)) {
      pw = this.positionWeight = pw < 0 ? 0 : pw > 1 ? 1 : pw;
    } else {
      solver.warn(`${this.name}:positionWeight`, `${this.name} effector: positionWeight is not finite; ignored.`);
      pw = 0;
    }
    if (Number.isFinite(rw)) {
      rw = this.rotationWeight = rw < 0 ? 0 : rw > 1 ? 1 : rw;
    } else {
      solver.warn(`${this.name}:rotationWeight`, `${this.name} effector: rotationWeight is not finite; ignored.`);
      rw = 0;
    }
    if (Number.isFinite(mrp)) {
      this.mrpW = this.maintainRelativePositionWeight = mrp < 0 ? 0 : mrp > 1 ? 1 : mrp;
    } else {
      solver.warn(
        `${this.name}:maintainRelativePositionWeight`,
        `${this.name} effector: maintainRelativePositionWeight is not finite; ignored.`,
      );
      this.mrpW = 0;
    }
    if (pw > 0 && !isFiniteVec(this.position)) {
      solver.warn(`${this.name}:position`, `${this.name} effector: position is not finite; ignored.`);
      pw = 0;
    }
    const far = FAR_LIMIT * solver.rigSize;
    if (pw > 0) {
      const p = this.position;
      const b = this.node.bonePosition;
      const dx = p.x - b.x;
      const dy = p.y - b.y;
      const dz = p.z - b.z;
      if (!(dx * dx + dy * dy + dz * dz <= far * far)) {
        solver.warn(
          `${this.name}:position-far`,
          `${this.name} effector: position is more than 1e10 × the rig's size away from its bone; ignored.`,
        );
        pw = 0;
      }
    }
    if (rw > 0) {
      const r = this.rotation;
      if (!isUsableRotation(r)) {
        solver.warn(`${this.name}:rotation`, `${this.name} effector: rotation is not a usable quaternion; ignored.`);
        rw = 0;
      } else if (Math.abs(r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w - 1) > 1e-9) {
        normalizeQuat(r, r);
      }
    }
    const node = this.node;
    this.posW = pw * ikw;
    this.rotW = rw * ikw;
    node.effectorPositionWeight = this.posW;
    node.effectorRotationWeight = this.rotW;
    // read only where effectorRotationWeight > 0 (bend plane, mapping): an effector without rotation weight
    // leaves it alone, and its rotation is not fetched (with many characters every object touched costs)
    if (this.rotW > 0) copyQuat(node.solverRotation, this.rotation);

    const offset = this.positionOffset;
    let offsetActive = !isZero(offset);
    if (offsetActive) {
      if (!isFiniteVec(offset)) {
        solver.warn(`${this.name}:positionOffset`, `${this.name} effector: positionOffset is not finite; ignored.`);
        zero(offset);
        offsetActive = false;
      } else if (!(offset.x * offset.x + offset.y * offset.y + offset.z * offset.z <= far * far)) {
        solver.warn(
          `${this.name}:positionOffset-far`,
          `${this.name} effector: positionOffset is more than 1e10 × the rig's size; ignored.`,
        );
        zero(offset);
        offsetActive = false;
      } else if (
        offset.x * offset.x + offset.y * offset.y + offset.z * offset.z >
        RUNAWAY_OFFSET_SQ * solver.rigSize * solver.rigSize
      ) {
        solver.warn(
          `${this.name}:positionOffset-runaway`,
          `${this.name} effector: positionOffset is huge; ` +
            "is a script adding to it every frame without it being reset? " +
            "Offsets are reset after each solve: add this frame's offset only.",
        );
      }
    }
    if (offsetActive) node.addOffset(offset, solver);

    this.childrenActive = this.effectChildNodes && solver.iterations > 0;
    if (this.childrenActive) {
      // the child nodes' places relative to the node are used by update() only when it moves the node
      const moves = this.isEndEffector || this.posW > 0;
      for (let i = 0; i < this.childNodes.length; i++) {
        const c = this.childNodes[i]!;
        if (moves) sub(this.localPositions[i]!, c.bonePosition, node.bonePosition);
        if (offsetActive) c.addOffset(offset, solver);
      }
    }
    if (this.usePlaneNodes && this.mrpW > 0) {
      planeRotation(
        this.animatedPlaneRotation,
        this.planeNode1!.bonePosition,
        this.planeNode2!.bonePosition,
        this.planeNode3!.bonePosition,
      );
    }
    this.firstUpdate = true;
    this.active = this.posW > 0 || this.rotW > 0 || offsetActive;
    return this.active;
  }

  /**
   * The turn the child nodes' animated offsets take when `effectChildNodes` carries them (identity: FinalIK;
   * the biped solver sets the pelvis's solved turn here with preserveBoneLengths, so the thighs keep turning
   * with it from one iteration to the next).
   */
  readonly childTurn = new Quat();

  /** Moves the node (and child nodes) toward the target by the weighted position weight. */
  update(solver: EffectorSolver): void {
    const node = this.node;
    if (this.firstUpdate) {
      addNodeOffset(this.animatedPosition, node.bonePosition, node);
      this.firstUpdate = false;
    }
    // a body, shoulder or thigh effector at weight 0 would lerp its node onto itself: skip the work
    if (!this.isEndEffector && !(this.posW > 0)) return;
    const p = node.solverPosition;
    this.getPosition(solver, v1);
    weight.value = this.posW;
    lerpByRef(p, v1, this.position, weight);
    if (this.childrenActive) {
      for (let i = 0; i < this.childNodes.length; i++) {
        const c = this.childNodes[i]!.solverPosition;
        add(v2, p, rotateVector(v2, this.childTurn, this.localPositions[i]!));
        weight.value = this.posW;
        lerpByRef(c, c, v2, weight);
      }
    }
  }

  /** Resets positionOffset after the pose is written. */
  onPostWrite(): void {
    zero(this.positionOffset);
  }

  /** Where the node stands before the pull toward `position`; also refreshes planeRotationOffset. */
  private getPosition(solver: EffectorSolver, out: Vec3): Vec3 {
    identity(this.planeRotationOffset);
    if (!this.isEndEffector) return copy(out, this.node.solverPosition);
    const mrp = this.mrpW;
    if (mrp <= 0) return copy(out, this.animatedPosition);
    const s1 = this.planeNode1!.solverPosition;
    const s2 = this.planeNode2!.solverPosition;
    const s3 = this.planeNode3!.solverPosition;
    if (s2.x === s1.x && s2.y === s1.y && s2.z === s1.z) {
      solver.warn(
        `${this.name}:plane-degenerate`,
        "Effector plane nodes coincide: avoid placing 2 or more effectors of the same chain at exactly the same " +
          "position.",
      );
      identity(q1);
    } else {
      planeRotation(q1, s1, s2, s3);
    }
    // rotation of the plane since the animation
    multiplyConjugate(q1, q1, this.animatedPlaneRotation);
    const node = this.node;
    sub(out, node.bonePosition, this.planeNode1!.bonePosition);
    rotateVector(out, q1, out);
    add(out, out, s1);
    addNodeOffset(out, out, node);
    weight.value = mrp;
    nlerpByRef(this.planeRotationOffset, identity(q2), q1, weight);
    return lerpByRef(out, this.animatedPosition, out, weight);
  }
}
