import type { IKPose } from "../solver/pose.js";
import { NumberRef } from "../math/number-ref.js";
import { BoneMap, type BoneMapStore, type MappingSolver } from "./bone-map.js";

/** The weight handed to BoneMap by reference (see NumberRef). */
const maintainWeight = new NumberRef();

/**
 * A bone outside the solver's chains that should keep its world rotation after the spine moved
 * (FinalIK's IKMappingBone; the biped uses it for the head).
 */
export class IKMappingBone {
  /** [0, 1] How much the bone keeps the world rotation the animation gave it (head default 0). */
  maintainRotationWeight = 0;
  /** The bone. */
  readonly bone: BoneMap;

  /** Creates the mapping of pose bone `bone`, its numbers in `store` (room for one BoneMap; its own by default). */
  constructor(pose: IKPose, bone: number, store?: BoneMapStore) {
    this.bone = new BoneMap(pose, bone, null, store);
  }

  /** Stores the bone's animated world rotation. */
  readPose(): void {
    this.bone.maintainRotation();
  }

  /** Turns the bone back toward its animated world rotation by ikPositionWeight × maintainRotationWeight. */
  writePose(solver: MappingSolver): void {
    maintainWeight.value = solver.ikPositionWeight * this.maintainRotationWeight;
    this.bone.rotateToMaintain(maintainWeight);
  }
}
