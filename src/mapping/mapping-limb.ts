import type { IKNode } from "../solver/node.js";
import type { IKPose } from "../solver/pose.js";
import { NumberRef } from "../math/number-ref.js";
import { BoneMap, BoneMapStore, type MappingSolver } from "./bone-map.js";

// weights handed to BoneMap by reference (see NumberRef)
const weight = new NumberRef();
const maintainWeight = new NumberRef();

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
    this.bone1.updatePlane(this.updatePlaneRotations, true);
    this.bone2.updatePlane(this.updatePlaneRotations, false);
    const w = this.weight;
    this.weight = Number.isFinite(w) ? (w < 0 ? 0 : w > 1 ? 1 : w) : 1;
    this.bone3.maintainRotation();
  }

  /** Writes the solved limb; `fullBody` is false in the limbs-only mode (iterations = 0). */
  writePose(solver: MappingSolver, fullBody: boolean): void {
    const w = this.weight;
    if (!(w > 0)) return;
    // the weights travel by reference: see NumberRef
    weight.value = w;
    if (fullBody) {
      this.parentBone?.swing(this.bone1.node!.solverPosition, weight);
      this.bone1.fixToNode(weight);
    }
    this.bone1.rotateToPlane(weight);
    this.bone2.rotateToPlane(weight);
    // under a non-uniform scale the plane's rotation stretches what hangs below: aim the bones at their nodes
    if (w >= 1 && this.pose.isSheared?.(this.bone3.bone) === true) {
      const end = this.bone3.node!.solverPosition;
      for (let pass = 0; pass < 3; pass++) {
        this.bone2.bendToReach(this.bone1, this.bone3, end);
        this.bone1.aimChildAt(this.bone3, end);
      }
    }
    maintainWeight.value = this.maintainRotationWeight * w * solver.ikPositionWeight;
    this.bone3.rotateToMaintain(maintainWeight);
    this.bone3.rotateToEffector(weight);
  }
}
