import { Vec3, add } from "../math/vec3.js";
import type { IKSolverFullBody, IKSolverMapping } from "../solver/full-body.js";
import type { IKSolverFullBodyBiped } from "../solver/full-body-biped.js";
import type { IKPose } from "../solver/pose.js";
import { BoneMapStore } from "./bone-map.js";
import { IKMappingBone } from "./mapping-bone.js";
import { IKMappingLimb, writeLimbs } from "./mapping-limb.js";
import { IKMappingSpine } from "./mapping-spine.js";

/** A bone FixTransforms restores: always its local rotation, its local position when `position`. */
export interface FixedBone {
  /** Pose id. */
  readonly bone: number;
  /** Also restore the local position. */
  readonly position: boolean;
}

/** A pose that can store and restore the local state of bones (FinalIK's StoreDefaultLocalState / FixTransforms). */
export interface RestorablePose extends IKPose {
  /** Remembers the current local position and rotation of `bones`. */
  storeDefaultLocalState(bones: readonly FixedBone[]): void;
  /** Restores what storeDefaultLocalState remembered. */
  fixTransforms(): void;
}

/** Clavicles of the arms (pose ids, -1 for none): FinalIK uses the upper arm's parent unless it is a spine bone. */
export interface BipedMappingOptions {
  /** Left clavicle, or -1. */
  leftClavicle?: number;
  /** Right clavicle, or -1. */
  rightClavicle?: number;
}

const v1 = new Vec3();

/**
 * The biped's mapping from solved nodes back to bones (FinalIK's spineMapping, limbMappings and
 * boneMappings together): plug it into an {@link IKSolverFullBodyBiped} with `solver.setMapping`.
 */
export class BipedMapping implements IKSolverMapping {
  /** Pelvis and spine. */
  readonly spineMapping: IKMappingSpine;
  /** Left arm, right arm, left leg, right leg. */
  readonly limbMappings: readonly [IKMappingLimb, IKMappingLimb, IKMappingLimb, IKMappingLimb];
  /** The head, or null when the rig has none. */
  readonly headMapping: IKMappingBone | null;
  /** The bones the mapping writes, for FixTransforms. */
  readonly fixedBones: readonly FixedBone[];
  private readonly solver: IKSolverFullBodyBiped;
  private readonly pose: IKPose;
  /**
   * True when no limb writes an ancestor of another limb's bones (what the references' validation allows for
   * detected rigs; a clavicle given by hand could hang both arms): the limbs may then be written step by step
   * across limbs (`writeLimbs`) with the same result. Unknown hierarchy: limb after limb.
   */
  private readonly limbsIndependent: boolean;

  /** Builds the mapping for a set-up biped solver. */
  constructor(solver: IKSolverFullBodyBiped, options: BipedMappingOptions = {}) {
    const bones = solver.bones;
    if (bones === null) throw new Error("BipedMapping: the solver is not set up (call setToReferences first)");
    this.solver = solver;
    this.pose = solver.pose;
    const chains = solver.chains;
    const node = (c: number, i: number) => chains[c]!.nodes[i]!;
    const leftClavicle = options.leftClavicle ?? -1;
    const rightClavicle = options.rightClavicle ?? -1;
    // one block for every BoneMap's numbers, in the order the mapping reads and writes them
    const store = new BoneMapStore(
      IKMappingSpine.boneMapCount(bones.spine.length) +
        IKMappingLimb.boneMapCount(leftClavicle) +
        IKMappingLimb.boneMapCount(rightClavicle) +
        2 * IKMappingLimb.boneMapCount(-1) +
        (bones.head >= 0 ? 1 : 0),
    );
    this.spineMapping = new IKMappingSpine(
      this.pose,
      bones.pelvis,
      bones.spine,
      {
        rootNode: node(0, 0),
        leftUpperArm: node(1, 0),
        rightUpperArm: node(2, 0),
        leftThigh: node(3, 0),
        rightThigh: node(4, 0),
      },
      store,
    );
    const limb = (c: number, parent: number, maintain: number) =>
      new IKMappingLimb(this.pose, [node(c, 0), node(c, 1), node(c, 2)], parent, maintain, store);
    // arms keep no hand rotation by default, legs keep the feet's
    this.limbMappings = [limb(1, leftClavicle, 0), limb(2, rightClavicle, 0), limb(3, -1, 1), limb(4, -1, 1)];
    this.headMapping = bones.head >= 0 ? new IKMappingBone(this.pose, bones.head, store) : null;
    const fixed: FixedBone[] = [];
    const spineBones = [bones.pelvis, ...bones.spine];
    spineBones.forEach((b, i) => fixed.push({ bone: b, position: i === 0 || i === spineBones.length - 1 }));
    for (const m of this.limbMappings) {
      if (m.parentBone !== null) fixed.push({ bone: m.parentBone.bone, position: false });
      fixed.push(
        { bone: m.bone1.bone, position: true },
        { bone: m.bone2.bone, position: false },
        { bone: m.bone3.bone, position: false },
      );
    }
    if (this.headMapping !== null) fixed.push({ bone: this.headMapping.bone.bone, position: false });
    this.fixedBones = fixed;
    this.limbsIndependent = limbsIndependent(this.pose, this.limbMappings);
  }

  /** @inheritdoc */
  initiate(): void {
    this.spineMapping.initiate();
    for (const m of this.limbMappings) m.initiate();
  }

  /** @inheritdoc */
  storeDefaultLocalState(): void {
    const pose = this.pose as Partial<RestorablePose>;
    pose.storeDefaultLocalState?.(this.fixedBones);
  }

  /** @inheritdoc */
  fixTransforms(): void {
    const pose = this.pose as Partial<RestorablePose>;
    pose.fixTransforms?.();
  }

  /** @inheritdoc */
  readPose(_solver: IKSolverFullBody, fullBody: boolean): void {
    if (fullBody) {
      this.spineMapping.readPose(this.solver.preserveBoneLengths);
      this.headMapping?.readPose();
    }
    for (const m of this.limbMappings) m.readPose();
  }

  /** @inheritdoc */
  writePose(_solver: IKSolverFullBody, fullBody: boolean): void {
    const solver = this.solver;
    if (!fullBody) {
      // limbs-only mode: the whole body translates with the body effector
      const pelvis = solver.bones!.pelvis;
      this.pose.setPosition(pelvis, add(v1, this.pose.getPosition(pelvis, v1), solver.bodyOffset));
    } else {
      this.spineMapping.writePose(solver.preserveBoneLengths);
      this.headMapping?.writePose(solver);
    }
    if (this.limbsIndependent) writeLimbs(this.limbMappings, solver, fullBody);
    else for (const m of this.limbMappings) m.writePose(solver, fullBody);
  }
}

/**
 * True when the pose's hierarchy is known and no bone a limb mapping writes (clavicle, upper, middle, end) is an
 * ancestor of, or the same as, a bone of another limb.
 */
function limbsIndependent(pose: IKPose, limbs: readonly IKMappingLimb[]): boolean {
  const parents = (pose as Partial<{ readonly parents: readonly number[] }>).parents;
  if (parents === undefined) return false;
  const written = limbs.map((m) => [m.parentBone?.bone ?? -1, m.bone1.bone, m.bone2.bone, m.bone3.bone]);
  for (let i = 0; i < limbs.length; i++) {
    for (let j = 0; j < limbs.length; j++) {
      if (i === j) continue;
      for (const b of written[j]!) {
        // b and its ancestors: none may be written by limb i
        for (let a = b; a >= 0; a = parents[a] ?? -1) if (written[i]!.includes(a)) return false;
      }
    }
  }
  return true;
}
