import type { IKNode } from "../solver/node.js";
import type { IKPose } from "../solver/pose.js";
import { NumberRef } from "../math/number-ref.js";
import { Quat, multiply } from "../math/quat.js";
import { Vec3 } from "../math/vec3.js";
import { ANY_TURN, BoneMap, BoneMapStore, type MappingSolver } from "./bone-map.js";
import { EndRotationMemory } from "./end-rotation-memory.js";

// weights handed to BoneMap by reference (see NumberRef)
const maintainWeight = new NumberRef();
/** A shear only stretches a limb a little: a small cap keeps a nearly straight elbow or knee from flicking. */
const SHEAR_TURN = new NumberRef(2e-3);
/** The most a clavicle turns beyond its swing (radians) to bring a hand's end node within reach. */
const MAX_CLAVICLE_REACH = 0.35;
const clavicle = new Vec3();
const shoulder = new Vec3();
const turn = new Quat();
const rotation = new Quat();

/**
 * Maps a solved three-node limb back onto its bones (FinalIK's IKMappingLimb): the clavicle swings toward
 * the solved upper arm, the upper bone moves to its node when the body moved, the first two bones turn
 * with the limb's plane, and the hand or foot keeps its world rotation (maintainRotationWeight) and takes
 * the effector's rotation.
 */
export class IKMappingLimb {
  /** [0, 1] Weight of the whole mapping. */
  weight = 1;
  /** [0, 1] How much the hand/foot keeps the world rotation it had before solving (arms 0, legs 1). */
  maintainRotationWeight = 0;
  /** Re-read the limb bones' plane-relative rotations every frame (FinalIK's default). */
  updatePlaneRotations = true;
  /** The clavicle (arms) or null. */
  readonly parentBone: BoneMap | null;
  /** Upper arm or thigh. */
  readonly bone1: BoneMap;
  /** Forearm or calf. */
  readonly bone2: BoneMap;
  /** Hand or foot. */
  readonly bone3: BoneMap;
  private readonly pose: IKPose;
  /** This frame's write: the weight (by reference, see NumberRef), whether it runs and whether the end reaches. */
  private readonly writeWeight = new NumberRef();
  private writing = false;
  private reaching = false;
  /** Where the end goes this frame (preserveBoneLengths). */
  private readonly reach = new Vec3();
  /** This frame's solved frames of the upper and middle bones' planes. */
  private readonly plane1 = new Quat();
  private readonly plane2 = new Quat();
  /** The end's blend toward its effector rotation at the last update (end-rotation-memory.ts). */
  private readonly endMemory = new EndRotationMemory();
  /** This limb as a list of one, for {@link writePose}. */
  private readonly alone: readonly IKMappingLimb[] = [this];

  /**
   * Creates the mapping of a limb's three nodes, with an optional parent bone (clavicle) by pose id; the
   * BoneMaps' numbers go in `store` (room for {@link IKMappingLimb.boneMapCount}; a store of its own by default).
   */
  constructor(
    pose: IKPose,
    nodes: readonly [IKNode, IKNode, IKNode],
    parentBone: number,
    maintainRotationWeight: number,
    store?: BoneMapStore,
  ) {
    this.pose = pose;
    const s = store ?? new BoneMapStore(IKMappingLimb.boneMapCount(parentBone));
    this.parentBone = parentBone >= 0 ? new BoneMap(pose, parentBone, null, s) : null;
    this.bone1 = new BoneMap(pose, nodes[0].bone, nodes[0], s);
    this.bone2 = new BoneMap(pose, nodes[1].bone, nodes[1], s);
    this.bone3 = new BoneMap(pose, nodes[2].bone, nodes[2], s);
    this.maintainRotationWeight = maintainRotationWeight;
  }

  /** BoneMaps of a limb mapping: three, four with a parent bone (`parentBone` ≥ 0). */
  static boneMapCount(parentBone: number): number {
    return parentBone >= 0 ? 4 : 3;
  }

  /** Reads the planes and the clavicle's swing axis from the pose at setup. */
  initiate(): void {
    const [n1, n2, n3] = [this.bone1.node!, this.bone2.node!, this.bone3.node!];
    this.bone1.setPlane(n1, n2, n3);
    this.bone2.setPlane(n2, n3, n1);
    this.parentBone?.setLengthAndSwingAxis(this.bone1);
  }

  /** Reads the plane-relative pose of the limb bones and the hand/foot's rotation from this frame. */
  readPose(): void {
    BoneMap.updatePlanes(this.bone1, this.updatePlaneRotations, true, this.bone2, this.updatePlaneRotations, false);
    const w = this.weight;
    this.weight = Number.isFinite(w) ? (w < 0 ? 0 : w > 1 ? 1 : w) : 1;
    this.bone3.maintainRotation();
  }

  /**
   * Writes the solved limb; `fullBody` is false in the limbs-only mode (iterations = 0). With
   * `preserveBoneLengths` the upper bone stays where its parent puts it instead of moving to its node
   * (FinalIK's FixToNode), and a limb whose end effector has weight bends and turns from there to put its
   * end on the end node. The same as `writeLimbs` on this limb alone.
   */
  writePose(solver: MappingSolver, fullBody: boolean): void {
    writeLimbs(this.alone, solver, fullBody);
  }

  /** Step 1 of the write: the weight, the clavicle's swing and reach (or FixToNode). False: nothing to write. */
  private beginWrite(solver: MappingSolver, fullBody: boolean): boolean {
    const w = this.weight;
    this.writing = w > 0;
    if (!this.writing) return false;
    // the weights travel by reference: see NumberRef
    this.writeWeight.value = w;
    const preserve = fullBody && solver.preserveBoneLengths === true;
    // a hand or foot no effector drives hangs from where its parents put it, as the animation would
    this.reaching = preserve && this.bone3.node!.effectorPositionWeight > 0;
    if (fullBody) {
      this.parentBone?.swing(this.bone1.node!.solverPosition, this.writeWeight);
      if (!preserve) this.bone1.fixToNode(this.writeWeight);
      else if (this.reaching && this.parentBone !== null) this.clavicleReach();
    }
    return true;
  }

  /** Step 4: with the lengths kept, the middle bone bends so the end can reach toward its node. */
  private bendToEnd(): void {
    if (!this.reaching) return;
    const w = this.writeWeight.value;
    const end = this.bone3.node!.solverPosition;
    // the end goes by the weight from where the unmoved upper bone left it toward the end node
    const reach = this.reach;
    const from = this.bone3.position(reach);
    reach.x = from.x + (end.x - from.x) * w;
    reach.y = from.y + (end.y - from.y) * w;
    reach.z = from.z + (end.z - from.z) * w;
    this.bone2.bendToReach(this.bone1, this.bone3, reach, ANY_TURN);
  }

  /** Step 5: the upper bone turns the end onto its reach; under a shearing scale, bones aimed at their nodes. */
  private aimAtEnd(): void {
    if (this.reaching) this.bone1.aimChildAt(this.bone3, this.reach);
    // under a non-uniform scale the plane's rotation stretches what hangs below: aim the bones at their nodes
    if (this.writeWeight.value >= 1 && this.pose.isSheared?.(this.bone3.bone) === true) {
      const end = this.bone3.node!.solverPosition;
      for (let pass = 0; pass < 3; pass++) {
        this.bone2.bendToReach(this.bone1, this.bone3, end, SHEAR_TURN);
        this.bone1.aimChildAt(this.bone3, end);
      }
    }
  }

  /** Step 6: the hand or foot keeps its rotation, then takes the effector's. */
  private endRotation(solver: MappingSolver): void {
    maintainWeight.value = this.maintainRotationWeight * this.writeWeight.value * solver.ikPositionWeight;
    this.bone3.rotateToMaintain(maintainWeight);
    const count = solver.updateCount;
    if (count !== undefined) this.endMemory.update = count;
    this.bone3.rotateToEffector(this.writeWeight, count !== undefined ? this.endMemory : null);
  }

  /** @internal `writeLimbs`' steps, each run for every limb before the next. */
  static _writeSteps(limbs: readonly IKMappingLimb[], solver: MappingSolver, fullBody: boolean): void {
    const n = limbs.length;
    let any = false;
    for (let i = 0; i < n; i++) if (limbs[i]!.beginWrite(solver, fullBody)) any = true;
    if (!any) return;
    // the planes' solved frames (the solver's nodes do not move while the mapping writes), both at once
    for (let i = 0; i < n; i++) {
      const l = limbs[i]!;
      if (l.writing) BoneMap.solverPlaneRotations(l.bone1, l.plane1, l.bone2, l.plane2);
    }
    for (let i = 0; i < n; i++) {
      const l = limbs[i]!;
      if (l.writing) l.bone1.rotateToPlaneIn(l.plane1, l.writeWeight);
    }
    for (let i = 0; i < n; i++) {
      const l = limbs[i]!;
      if (l.writing) l.bone2.rotateToPlaneIn(l.plane2, l.writeWeight);
    }
    for (let i = 0; i < n; i++) if (limbs[i]!.writing) limbs[i]!.bendToEnd();
    for (let i = 0; i < n; i++) if (limbs[i]!.writing) limbs[i]!.aimAtEnd();
    for (let i = 0; i < n; i++) if (limbs[i]!.writing) limbs[i]!.endRotation(solver);
  }

  /**
   * With the upper bone left where the clavicle puts it, the end node may be out of the arm's reach from there
   * (what FixToNode bridged by stretching): turns the clavicle on toward the end node, up to
   * {@link MAX_CLAVICLE_REACH} × the limb's weight, until the arm can reach it. The weight is read here, not passed:
   * a fractional double handed to a call V8 does not inline is boxed (ARCHITECTURE.md, "Doubles across calls").
   */
  private clavicleReach(): void {
    const w = this.writeWeight.value;
    const parent = this.parentBone!;
    const end = this.bone3.node!.solverPosition;
    const c = parent.position(clavicle);
    const p = this.bone1.position(shoulder);
    const reachLength = this.bone1.node!.length + this.bone2.node!.length;
    const ux = p.x - c.x;
    const uy = p.y - c.y;
    const uz = p.z - c.z;
    const vx = end.x - c.x;
    const vy = end.y - c.y;
    const vz = end.z - c.z;
    const ex = end.x - p.x;
    const ey = end.y - p.y;
    const ez = end.z - p.z;
    if (!(ex * ex + ey * ey + ez * ez > reachLength * reachLength)) return;
    const lu = Math.sqrt(ux * ux + uy * uy + uz * uz);
    const lv = Math.sqrt(vx * vx + vy * vy + vz * vz);
    const nx = uy * vz - uz * vy;
    const ny = uz * vx - ux * vz;
    const nz = ux * vy - uy * vx;
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(nl > 1e-9 * lu * lv)) return;
    // the clavicle angle at which the upper bone is reachLength from the end node (law of cosines), or 0
    let cos = (lu * lu + lv * lv - reachLength * reachLength) / (2 * lu * lv);
    cos = cos > 1 ? 1 : cos < -1 ? -1 : cos;
    const current = Math.atan2(nl, ux * vx + uy * vy + uz * vz);
    let angle = current - Math.acos(cos);
    const cap = MAX_CLAVICLE_REACH * w;
    angle = angle > cap ? cap : angle;
    if (!(angle > 0)) return;
    const sh = Math.sin(angle / 2) / nl;
    turn.x = nx * sh;
    turn.y = ny * sh;
    turn.z = nz * sh;
    turn.w = Math.cos(angle / 2);
    this.pose.setRotation(parent.bone, multiply(rotation, turn, parent.rotation(rotation)));
  }
}

/**
 * Writes solved limbs (each as {@link IKMappingLimb.writePose}), step by step across the limbs rather than limb
 * after limb: the limbs share no bone, so the arithmetic is the same, but each step's work for the four limbs is
 * independent and adjacent, which the CPU overlaps (as the solver's limbs, bench/README.md).
 */
export function writeLimbs(limbs: readonly IKMappingLimb[], solver: MappingSolver, fullBody: boolean): void {
  IKMappingLimb._writeSteps(limbs, solver, fullBody);
}
