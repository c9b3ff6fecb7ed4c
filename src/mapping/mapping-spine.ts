import { Quat } from "../math/quat.js";
import { Vec3, lerpByRef, sub } from "../math/vec3.js";
import { solveFabrikJoint } from "../solver/chain.js";
import type { IKNode } from "../solver/node.js";
import type { IKPose } from "../solver/pose.js";
import { NumberRef } from "../math/number-ref.js";
import { ANY_TURN, BoneMap, BoneMapStore, FULL_WEIGHT } from "./bone-map.js";

const v1 = new Vec3();
const v2 = new Vec3();
const v3 = new Vec3();
const twistDir = new Vec3();
/** The two positions of a spine FABRIK joint (see reachJoint). */
const jointMoved = new Vec3();
const jointFixed = new Vec3();
/** The twist weight handed to BoneMap by reference (see NumberRef). */
const twistWeight = new NumberRef();
const reachGoal = new Vec3();
const reachStep = new Vec3();

/** The solver nodes the spine mapping follows. */
export interface SpineNodes {
  /** The body chain's node. */
  rootNode: IKNode;
  /** First node of the left arm. */
  leftUpperArm: IKNode;
  /** First node of the right arm. */
  rightUpperArm: IKNode;
  /** First node of the left leg. */
  leftThigh: IKNode;
  /** First node of the right leg. */
  rightThigh: IKNode;
}

/**
 * Maps the solved torso back onto the pelvis and every spine bone (FinalIK's IKMappingSpine): the pelvis
 * follows the triangle of thighs and root node, the last spine bone the triangle of upper arms and root
 * node, and the bones between are placed by a FABRIK of their own, then swung and gradually twisted.
 */
export class IKMappingSpine {
  /** [1, 3] FABRIK iterations over the spine bones. */
  iterations = 3;
  /** [0, 1] How much the spine twists with the shoulders (spread up the spine). */
  twistWeight = 1;
  /**
   * @internal [0, 1] With `preserveBoneLengths`, how far the bones between the pelvis and the last spine bone bend
   * so that the last one lands on its plane's place (where FinalIK's mapping moves it), bone lengths kept. 0 (the
   * default): it stays where its parents' swings put it. The head effector sets it for the frames it holds the head.
   */
  readonly _lastBoneReach = new NumberRef(0);
  /** Pelvis first, then the spine bones. */
  readonly spine: BoneMap[];
  private readonly nodes: SpineNodes;
  private readonly leftArm: BoneMap;
  private readonly rightArm: BoneMap;
  private readonly firstPosition = new Vec3();
  private readonly lastPosition = new Vec3();
  /** The solved frames of the pelvis's and the last spine bone's planes, once per write. */
  private readonly firstPlane = new Quat();
  private readonly lastPlane = new Quat();
  private rootNodeIndex = -1;
  private useFABRIK = false;

  /**
   * Creates the mapping of `pelvis` + `spine` (pose ids) onto the solver's torso nodes, its BoneMaps'
   * numbers in `store` (which needs room for {@link IKMappingSpine.boneMapCount}; a store of its own by default).
   */
  constructor(pose: IKPose, pelvis: number, spine: readonly number[], nodes: SpineNodes, store?: BoneMapStore) {
    this.nodes = nodes;
    const s = store ?? new BoneMapStore(IKMappingSpine.boneMapCount(spine.length));
    this.spine = [pelvis, ...spine].map(
      (b) => new BoneMap(pose, b, b === nodes.rootNode.bone ? nodes.rootNode : null, s),
    );
    this.leftArm = new BoneMap(pose, nodes.leftUpperArm.bone, nodes.leftUpperArm, s);
    this.rightArm = new BoneMap(pose, nodes.rightUpperArm.bone, nodes.rightUpperArm, s);
  }

  /**
   * BoneMaps of a spine mapping over `spineBones` spine bones (pelvis excluded): the pelvis, the spine and both upper
   * arms.
   */
  static boneMapCount(spineBones: number): number {
    return spineBones + 3;
  }

  /** Finds the root node among the spine bones and reads the reference pose. */
  initiate(): void {
    if (!(this.iterations > 0)) this.iterations = 3;
    const spine = this.spine;
    this.rootNodeIndex = -1;
    for (let i = 0; i < spine.length; i++) if (spine[i]!.node !== null) this.rootNodeIndex = i;
    const n = this.nodes;
    spine[0]!.setPlane(n.rootNode, n.leftThigh, n.rightThigh);
    spine[spine.length - 1]!.setPlane(n.rootNode, n.leftUpperArm, n.rightUpperArm);
    this.readAxes();
    this.useFABRIK = spine.length > 3 || this.rootNodeIndex !== 1;
  }

  /**
   * Re-reads the planes, lengths and axes from this frame's animated pose. With `preserveBoneLengths` the
   * pelvis and the last spine bone take symmetric plane frames: they carry both thighs (both upper arms)
   * alike, where FinalIK's frame puts the left one on its node and the right one beside it.
   */
  readPose(preserveBoneLengths = false): void {
    const spine = this.spine;
    spine[0]!.symmetricPlane = preserveBoneLengths;
    spine[spine.length - 1]!.symmetricPlane = preserveBoneLengths;
    // both planes at once (readAxes reads the pose and writes other numbers: the order does not matter)
    BoneMap.updatePlanes(spine[0]!, true, true, spine[spine.length - 1]!, true, true);
    this.readAxes();
  }

  private readAxes(): void {
    const spine = this.spine;
    const n = this.nodes;
    // twist reference: right upper arm to left upper arm
    sub(twistDir, n.leftUpperArm.bonePosition, n.rightUpperArm.bonePosition);
    for (let i = 0; i < spine.length - 1; i++) {
      const b = spine[i]!;
      b.setLengthAndSwingAxis(spine[i + 1]!);
      sub(v1, spine[i + 1]!.position(v1), b.position(v2));
      b.setLocalTwistAxis(twistDir, v1);
    }
    const last = spine[spine.length - 1]!;
    if (spine.length > 1) last.setLocalSwingAxisBetween(this.leftArm, this.rightArm);
  }

  /**
   * Places and rotates the pelvis and spine bones on the solved torso. With `preserveBoneLengths` the last
   * spine bone stays where its parent's swing (toward the shoulders' plane) puts it instead of moving there.
   */
  writePose(preserveBoneLengths = false): void {
    const spine = this.spine;
    const last = spine.length - 1;
    const first = spine[0]!;
    const end = spine[last]!;
    const root = this.nodes.rootNode;
    // each plane's solved frame once: the solver nodes do not move while the mapping writes
    const firstPlane = this.firstPlane;
    const lastPlane = this.lastPlane;
    BoneMap.solverPlaneRotations(first, firstPlane, end, lastPlane);
    first.setIKPosition(first.getPlanePositionIn(firstPlane, v1));
    if (this.useFABRIK) {
      // start from the animated spine shifted with the root node
      sub(v1, root.solverPosition, root.bonePosition);
      for (let i = 0; i < spine.length; i++) {
        const b = spine[i]!;
        const p = b.position(v2);
        p.x += v1.x;
        p.y += v1.y;
        p.z += v1.z;
        b.setIKPosition(p);
      }
      const firstPosition = first.getPlanePositionIn(firstPlane, this.firstPosition);
      const lastPosition = end.getPlanePositionIn(lastPlane, this.lastPosition);
      // FinalIK resets a non-positive count to 3 at setup only; a count set to 0 later would skip the spine
      const iterations = this.iterations > 0 ? Math.min(Math.floor(this.iterations), 3) : 3;
      for (let it = 0; it < iterations; it++) {
        this.forwardReach(lastPosition);
        this.backwardReach(firstPosition);
        if (this.rootNodeIndex >= 0) spine[this.rootNodeIndex]!.setIKPosition(root.solverPosition);
      }
    } else if (this.rootNodeIndex >= 0) {
      spine[this.rootNodeIndex]!.setIKPosition(root.solverPosition);
    }
    end.setIKPosition(end.getPlanePositionIn(lastPlane, v1));
    this.mapToSolverPositions(preserveBoneLengths);
    if (preserveBoneLengths && this._lastBoneReach.value > 0) this.reachLastPlane();
  }

  /**
   * Bends the bones between the pelvis and the last spine bone so the last one goes `_lastBoneReach` of the
   * way to its IK position (the plane's place), then turns it back to the plane's frame. Its distance from the
   * first spine bone changes in equal steps at each bone after that one (law of cosines, exact at the last), the
   * first spine bone then aims it at the goal: with two bones or more between, it lands there to rounding.
   */
  private reachLastPlane(): void {
    const spine = this.spine;
    const n = spine.length;
    // pelvis and last bone only: nothing between to bend
    if (n < 3) return;
    const first = spine[1]!;
    const end = spine[n - 1]!;
    lerpByRef(reachGoal, end.position(v1), end.ikPositionToRef(v2), this._lastBoneReach);
    const root = first.position(v3);
    const fromX = v1.x - root.x;
    const fromY = v1.y - root.y;
    const fromZ = v1.z - root.z;
    const gx = reachGoal.x - root.x;
    const gy = reachGoal.y - root.y;
    const gz = reachGoal.z - root.z;
    const d0 = Math.sqrt(fromX * fromX + fromY * fromY + fromZ * fromZ);
    const d1 = Math.sqrt(gx * gx + gy * gy + gz * gz);
    if (!(d1 > 0)) return;
    for (let k = 2; k < n - 1; k++) {
      // this bone's share of the distance's change (the last bone between takes what is left)
      const d = d0 + ((d1 - d0) * (k - 1)) / (n - 3);
      reachStep.x = root.x + (gx * d) / d1;
      reachStep.y = root.y + (gy * d) / d1;
      reachStep.z = root.z + (gz * d) / d1;
      spine[k]!.bendToReach(first, end, reachStep, ANY_TURN);
    }
    first.aimChildAt(end, reachGoal);
    end.rotateToPlaneIn(this.lastPlane, FULL_WEIGHT);
  }

  private forwardReach(position: Vec3): void {
    const spine = this.spine;
    spine[spine.length - 1]!.setIKPosition(position);
    for (let i = spine.length - 2; i > -1; i--) reachJoint(spine[i]!, spine[i + 1]!, spine[i]!);
  }

  private backwardReach(position: Vec3): void {
    const spine = this.spine;
    spine[0]!.setIKPosition(position);
    for (let i = 1; i < spine.length; i++) reachJoint(spine[i]!, spine[i - 1]!, spine[i - 1]!);
  }

  private mapToSolverPositions(preserveBoneLengths: boolean): void {
    const spine = this.spine;
    const n = spine.length;
    spine[0]!.setToIKPosition();
    spine[0]!.rotateToPlaneIn(this.firstPlane, FULL_WEIGHT);
    sub(twistDir, this.nodes.leftUpperArm.solverPosition, this.nodes.rightUpperArm.solverPosition);
    for (let i = 1; i < n - 1; i++) {
      const b = spine[i]!;
      b.swing(spine[i + 1]!.ikPositionToRef(v3), FULL_WEIGHT);
      if (this.twistWeight > 0) {
        sub(v1, spine[i + 1]!.ikPositionToRef(v1), b.position(v2));
        twistWeight.value = (i / (n - 2)) * this.twistWeight;
        b.twist(twistDir, v1, twistWeight);
      }
    }
    if (!preserveBoneLengths) spine[n - 1]!.setToIKPosition();
    spine[n - 1]!.rotateToPlaneIn(this.lastPlane, FULL_WEIGHT);
  }
}

/**
 * solveFabrikJoint on two BoneMaps' IK positions in their store: `moved` slides along the line to `fixed`
 * until it is `bone.length` from it (copied out and back: the arithmetic is the chains', to the bit).
 */
function reachJoint(moved: BoneMap, fixed: BoneMap, bone: { readonly length: number }): void {
  solveFabrikJoint(moved.ikPositionToRef(jointMoved), fixed.ikPositionToRef(jointFixed), bone);
  moved.setIKPosition(jointMoved);
}
