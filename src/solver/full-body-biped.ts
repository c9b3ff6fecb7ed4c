// Over 500 lines: FinalIK's IKSolverFullBodyBiped is one class (setup, named accessors, PullBody, natural
// sides); validation lives in biped-validation.ts, the generic solver in full-body.ts.
import { validateBipedBones, validateRootNode } from "./biped-validation.js";
import { FAR_LIMIT, IKEffector } from "./effector.js";
import { Quat, copyQuat, identity, inverseRotateVector, rotateVector } from "../math/quat.js";
import {
  Vec3,
  add,
  copy as copyVec,
  cross,
  dot,
  isZero,
  normalize,
  project,
  projectOnPlane,
  scale,
  scaleAndAdd,
  sub,
  zero,
} from "../math/vec3.js";
import { type BipedBones, type FullBodyBipedChain, FullBodyBipedEffector, limbBones } from "./biped-bones.js";
import { FBIKChain } from "./chain.js";
import { ChildConstraint } from "./child-constraint.js";
import { FBBIKError } from "./errors.js";
import { IKSolverFullBody } from "./full-body.js";
import type { BendConstraint } from "./bend-constraint.js";
import { IKNode } from "./node.js";
import type { IKPose } from "./pose.js";
import { detectRootNodeBone } from "./root-node.js";
import { turnBody } from "./body-turn.js";
import { type ReachingLeg, animatedPelvisFrame, keepPelvisRigid, turnPelvisToReach } from "./rigid-pelvis.js";
import { NumberRef } from "../math/number-ref.js";

const EFFECTOR_NAMES = [
  "Body",
  "LeftShoulder",
  "RightShoulder",
  "LeftThigh",
  "RightThigh",
  "LeftHand",
  "RightHand",
  "LeftFoot",
  "RightFoot",
] as const;

const CHAIN_NAMES = ["left arm", "right arm", "left leg", "right leg"] as const;

const v1 = new Vec3();
const v2 = new Vec3();
const v3 = new Vec3();
const up = new Vec3();
const rootRotation = new Quat();
const chestRotation = new Quat();
const unitY = new Vec3(0, 1, 0);

/** The largest turn (radians) of one step of turnPelvisToReach. */
const MAX_PELVIS_STEP = new NumberRef(0.5);

/** Above this alignment the root node is too close to the shoulder or thigh line (FinalIK's 0.95). */
const ROOT_NODE_ALIGNMENT_LIMIT = 0.95;

/**
 * FinalIK's IKSolverFullBodyBiped: the full-body solver set up for a biped. Five chains (the body's
 * root node, then left arm, right arm, left leg, right leg), nine effectors, four child constraints
 * that keep the torso's shape, spine stiffness and hands pulling the body.
 */
export class IKSolverFullBodyBiped extends IKSolverFullBody {
  /** The bones the solver was built on. */
  bones: BipedBones | null = null;
  /** The spine bone (or pelvis) the body chain's single node stands for. */
  rootNode = -1;
  /** [0, 1] How much the torso resists being bent by the limbs. */
  spineStiffness = 0.5;
  /** [−1, 1] Weight of the hands pulling the body vertically when out of reach. */
  pullBodyVertical = 0.5;
  /** [−1, 1] Weight of the hands pulling the body horizontally when out of reach. */
  pullBodyHorizontal = 0;
  // the last finite spineStiffness and pull weights: a non-finite value is replaced by these (warned once)
  private validSpineStiffness = 0.5;
  private validPullBodyVertical = 0.5;
  private validPullBodyHorizontal = 0;
  /**
   * Keep every parent–child distance of the biped's bones as the animation has it (a departure from
   * FinalIK, whose mapping moves each upper arm and thigh onto its node and the last spine bone onto the
   * shoulders' plane, stretching the links above them). The limbs then bend and turn from where their parents
   * put them to bring hands and feet onto the solved end nodes. Default true.
   */
  preserveBoneLengths = true;
  /** The offset the hands' pull added to the body effector this frame. */
  readonly pullBodyOffset = new Vec3();
  /** With iterations = 0: the rigid translation of the body this frame (the mapping moves the pelvis by it). */
  readonly bodyOffset = new Vec3();
  /**
   * The character's forward in component space (set before setToReferences): it bends limbs that are
   * straight in the pose the solver is set up from (elbows toward the back, knees toward the front) and
   * orients the limbs' natural sides. Null: estimated as cross(left, up) from the thighs and the spine,
   * which is right for right-handed rig data such as glTF; for the natural sides, turned round when the
   * knees of the setup pose bend the other way (a mirrored rig), so give it for a rig set up with
   * backward-bent knees.
   */
  forward: Vec3 | null = null;
  private readonly straightBend = new Vec3();
  /** The animated pelvis triangle's frame this frame (see keepPelvisRigid), and whether it was read. */
  private readonly pelvisFrame = new Quat();
  private pelvisFrameRead = false;
  /** The legs as turnPelvisToReach sees them (built on first use). */
  private reachingLegs: [ReachingLeg, ReachingLeg] | null = null;
  /** The character's forward in the character root's frame (for the limbs' natural sides). */
  private readonly localForward = new Vec3();
  private readonly localUp = new Vec3();
  private readonly frameForward = new Vec3();
  private readonly frameUp = new Vec3();
  /** The arms' frames for the fitted elbow side in the last spine bone's frame: forward, up, left and right outward. */
  private readonly chestFrame = [new Vec3(), new Vec3(), new Vec3(), new Vec3()] as const;

  /** Creates an unbuilt biped solver on `pose`; call {@link setToReferences}. */
  constructor(pose: IKPose) {
    super(pose);
  }

  /**
   * The body effector (root node; carries the thighs). Unlike FinalIK's, its `rotation` and
   * `rotationWeight` are used: the whole animated body turns about the root node's bone toward `rotation`
   * (that bone's target rotation) before the solve, then the limbs and spine solve from the turned pose.
   */
  get bodyEffector(): IKEffector {
    return this.getEffector(FullBodyBipedEffector.Body);
  }
  /** Left shoulder (upper arm) effector. */
  get leftShoulderEffector(): IKEffector {
    return this.getEffector(FullBodyBipedEffector.LeftShoulder);
  }
  /** Right shoulder (upper arm) effector. */
  get rightShoulderEffector(): IKEffector {
    return this.getEffector(FullBodyBipedEffector.RightShoulder);
  }
  /** Left thigh effector. */
  get leftThighEffector(): IKEffector {
    return this.getEffector(FullBodyBipedEffector.LeftThigh);
  }
  /** Right thigh effector. */
  get rightThighEffector(): IKEffector {
    return this.getEffector(FullBodyBipedEffector.RightThigh);
  }
  /** Left hand effector. */
  get leftHandEffector(): IKEffector {
    return this.getEffector(FullBodyBipedEffector.LeftHand);
  }
  /** Right hand effector. */
  get rightHandEffector(): IKEffector {
    return this.getEffector(FullBodyBipedEffector.RightHand);
  }
  /** Left foot effector. */
  get leftFootEffector(): IKEffector {
    return this.getEffector(FullBodyBipedEffector.LeftFoot);
  }
  /** Right foot effector. */
  get rightFootEffector(): IKEffector {
    return this.getEffector(FullBodyBipedEffector.RightFoot);
  }
  /** The body chain (one node: the root node). */
  get bodyChain(): FBIKChain {
    return this.chainAt(0);
  }
  /** Left arm chain. */
  get leftArmChain(): FBIKChain {
    return this.chainAt(1);
  }
  /** Right arm chain. */
  get rightArmChain(): FBIKChain {
    return this.chainAt(2);
  }
  /** Left leg chain. */
  get leftLegChain(): FBIKChain {
    return this.chainAt(3);
  }
  /** Right leg chain. */
  get rightLegChain(): FBIKChain {
    return this.chainAt(4);
  }

  /** The effector of the given type. */
  getEffector(effector: FullBodyBipedEffector): IKEffector {
    const e = this.effectors[effector];
    if (e === undefined) throw new FBBIKError(["the solver is not set up: call setToReferences first"]);
    return e;
  }

  /** The chain of the given limb. */
  getChain(chain: FullBodyBipedChain): FBIKChain {
    return this.chainAt(chain + 1);
  }

  /** The hand or foot effector at the end of the given limb. */
  getEndEffector(chain: FullBodyBipedChain): IKEffector {
    return this.getEffector(FullBodyBipedEffector.LeftHand + chain);
  }

  private chainAt(i: number): FBIKChain {
    const c = this.chains[i];
    if (c === undefined) throw new FBBIKError(["the solver is not set up: call setToReferences first"]);
    return c;
  }

  /**
   * Builds the five chains, nine effectors and four child constraints on `bones` and initiates the
   * solver. `rootNode` defaults to {@link detectRootNodeBone}. Throws {@link FBBIKError} naming every
   * problem when the references cannot work; nothing is half-built.
   */
  setToReferences(bones: BipedBones, rootNode?: number): void {
    const name = (b: number): string => this.boneName(b);
    const problems = validateBipedBones(bones, name);
    if (problems.length > 0) throw new FBBIKError(problems);
    const root = rootNode ?? detectRootNodeBone(this.pose, bones);
    const rootProblem = validateRootNode(bones, root, name);
    if (rootProblem !== null) throw new FBBIKError([rootProblem]);

    const node = (bone: number): IKNode => new IKNode(bone);
    const body = new FBIKChain(
      [node(root)],
      [1, 2, 3, 4],
      [
        // torso diagonals only resist compression (pull elasticity 1); spine stiffness sets the push
        new ChildConstraint(1, 4, 0, 1),
        new ChildConstraint(2, 3, 0, 1),
        // shoulders and thighs keep their widths
        new ChildConstraint(1, 2),
        new ChildConstraint(3, 4),
      ],
    );
    const limbs = limbBones(bones).map((l) => new FBIKChain([node(l[0]), node(l[1]), node(l[2])]));
    const chains = [body, ...limbs];
    body.name = "body";
    limbs.forEach((l, i) => (l.name = CHAIN_NAMES[i]!));
    const n = (chain: number, index: number): IKNode => chains[chain]!.nodes[index]!;
    const effectors: IKEffector[] = [];
    const make = (
      type: FullBodyBipedEffector,
      chain: number,
      index: number,
      extra?: {
        childNodes?: IKNode[];
        planeNodes?: [IKNode, IKNode, IKNode];
      },
    ): void => {
      effectors[type] = new IKEffector({
        name: EFFECTOR_NAMES[type]!,
        node: n(chain, index),
        chainIndex: chain,
        nodeIndex: index,
        ...extra,
      });
    };
    make(FullBodyBipedEffector.Body, 0, 0, { childNodes: [n(3, 0), n(4, 0)] });
    make(FullBodyBipedEffector.LeftShoulder, 1, 0);
    make(FullBodyBipedEffector.RightShoulder, 2, 0);
    make(FullBodyBipedEffector.LeftThigh, 3, 0);
    make(FullBodyBipedEffector.RightThigh, 4, 0);
    make(FullBodyBipedEffector.LeftHand, 1, 2, { planeNodes: [n(1, 0), n(2, 0), n(0, 0)] });
    make(FullBodyBipedEffector.RightHand, 2, 2, { planeNodes: [n(2, 0), n(1, 0), n(0, 0)] });
    make(FullBodyBipedEffector.LeftFoot, 3, 2, { planeNodes: [n(3, 0), n(4, 0), n(0, 0)] });
    make(FullBodyBipedEffector.RightFoot, 4, 2, { planeNodes: [n(4, 0), n(3, 0), n(0, 0)] });

    const previous = { chains: this.chains, effectors: this.effectors, bones: this.bones, rootNode: this.rootNode };
    this.chains = chains;
    this.effectors = effectors;
    this.bones = bones;
    this.rootNode = root;
    if (!this.initiate()) {
      const lengthProblems = this.lengthProblems();
      Object.assign(this, previous);
      this.initiated = false;
      throw new FBBIKError(lengthProblems.length > 0 ? lengthProblems : ["the solver could not be initiated"]);
    }
    this.reportSetupWarnings();
    this.initNaturalSides();
  }

  /** A bone's name for messages (the pose's own name when it has one). */
  boneName(bone: number): string {
    const named = this.pose as IKPose & { getName?(bone: number): string };
    return typeof named.getName === "function" ? named.getName(bone) : `bone ${bone}`;
  }

  private lengthProblems(): string[] {
    const problems: string[] = [];
    const body = this.chains[0]!.nodes[0]!;
    for (let c = 0; c < this.chains.length; c++) {
      const nodes = this.chains[c]!.nodes;
      for (let i = 0; i < nodes.length - 1; i++) {
        if (!(nodes[i]!.length > 0)) {
          problems.push(
            `${this.boneName(nodes[i]!.bone)} and ${this.boneName(nodes[i + 1]!.bone)} are at the same position ` +
              `(zero-length bone)`,
          );
        }
      }
      if (c > 0 && !(this.chains[c]!.rootLength > 0)) {
        problems.push(
          `${this.boneName(nodes[0]!.bone)} is at the same position as the root node ${this.boneName(body.bone)}`,
        );
      }
    }
    return problems;
  }

  /** Warnings FinalIK gives at setup: straight limbs and a root node too near the shoulder or thigh line. */
  private reportSetupWarnings(): void {
    for (let i = 1; i < 5; i++) {
      if (this.chains[i]!.bendConstraint.straightAtInitiate) {
        this.warn(
          `straight-limb:${i}`,
          `The ${CHAIN_NAMES[i - 1]} is completely straight in the pose the solver was set up from, ` +
            "so its bend direction is unknown; " +
            `it will bend toward the character's ${i <= 2 ? "back (elbow)" : "front (knee)"} ` +
            "as estimated from `forward`. " +
            "Set up from a pose with the elbows and knees slightly bent, or give the character's forward " +
            "(`forward` before setToReferences; FullBodyBipedIK's `options.forward`) if it bends the wrong " +
            "way.",
        );
      }
    }
    const rootPos = this.chains[0]!.nodes[0]!.bonePosition;
    const align = (a: IKNode, b: IKNode): number => {
      normalize(v1, sub(v1, b.bonePosition, a.bonePosition));
      normalize(v2, sub(v2, rootPos, a.bonePosition));
      return dot(v1, v2);
    };
    if (align(this.chains[1]!.nodes[0]!, this.chains[2]!.nodes[0]!) > ROOT_NODE_ALIGNMENT_LIMIT) {
      this.warn(
        "root-node-shoulders",
        "The root node is almost on the line between the upper arms: the spine may turn upside down when a hand " +
          "pulls it. Choose a lower spine bone as the root node.",
      );
    }
    if (align(this.chains[3]!.nodes[0]!, this.chains[4]!.nodes[0]!) > ROOT_NODE_ALIGNMENT_LIMIT) {
      this.warn(
        "root-node-thighs",
        "The root node is almost on the line between the thighs: the hips may turn upside down when pulled. " +
          "Choose a higher spine bone as the root node.",
      );
    }
  }

  /**
   * Marks the limbs' natural sides (knees flex forward, elbows backward) and keeps the character's
   * forward and up of the setup pose in the character root's frame, so they turn with the root. Forward
   * as for straight limbs (`forward`, else estimated), up from the thighs to the top of the spine.
   */
  private initNaturalSides(): void {
    const forward = this.straightLimbBendDirection(this.chains[3]!);
    if (forward !== null && this.forward === null) {
      // the estimate assumes right-handed rig data: a mirrored rig's knees, bent forward at setup, tell
      let side = 0;
      for (let i = 3; i < 5; i++) {
        const n = this.chains[i]!.nodes;
        sub(v1, n[2]!.bonePosition, n[0]!.bonePosition);
        sub(v2, n[1]!.bonePosition, n[0]!.bonePosition);
        const l = dot(v1, v1);
        if (l > 0) side += dot(v2, forward) - (dot(v2, v1) / l) * dot(v1, forward);
      }
      if (side < 0) scale(forward, forward, -1);
    }
    // up at setup: from the middle of the thighs to the top of the spine
    const b = this.bones!;
    const p = (bone: number, o: Vec3) => this.pose.getPosition(bone, o);
    add(v1, p(b.leftThigh, v1), p(b.rightThigh, v2));
    scale(v1, v1, 0.5);
    sub(v2, p(b.spine[b.spine.length - 1]!, v2), v1);
    normalize(v2, v2);
    const ok = forward !== null && !isZero(v2) && this.orthoFrame(forward, v2);
    this.pose.getRotation(b.root, rootRotation);
    if (ok) {
      inverseRotateVector(this.localForward, rootRotation, this.frameForward);
      inverseRotateVector(this.localUp, rootRotation, this.frameUp);
    }
    for (let i = 1; i < 5; i++) this.chains[i]!.bendConstraint.naturalSide = ok ? (i <= 2 ? -1 : 1) : 0;
    if (ok) this.initChestFrame();
  }

  /** Keeps the arms' frames (forward, up, outward) in the last spine bone's frame, as the setup pose has them. */
  private initChestFrame(): void {
    const b = this.bones!;
    const [forward, upv, left, right] = this.chestFrame;
    this.pose.getRotation(b.spine[b.spine.length - 1]!, chestRotation);
    inverseRotateVector(forward, chestRotation, this.frameForward);
    inverseRotateVector(upv, chestRotation, this.frameUp);
    for (let i = 1; i < 3; i++) {
      const o = i === 1 ? left : right;
      sub(v1, this.chains[i]!.nodes[0]!.bonePosition, this.chains[3 - i]!.nodes[0]!.bonePosition);
      // across forward and up: the outward side alone
      scaleAndAdd(v1, v1, this.frameForward, -dot(v1, this.frameForward));
      scaleAndAdd(v1, v1, this.frameUp, -dot(v1, this.frameUp));
      normalize(v1, v1);
      inverseRotateVector(o, chestRotation, v1);
    }
  }

  /** frameUp = `upv`, frameForward = `forward` made perpendicular to it, unit. False when they are parallel. */
  private orthoFrame(forward: Vec3, upv: Vec3): boolean {
    // written out: it runs every frame (see ARCHITECTURE.md, "Doubles across calls")
    copyVec(this.frameUp, upv);
    const f = this.frameForward;
    const d = forward.x * upv.x + forward.y * upv.y + forward.z * upv.z;
    f.x = forward.x - upv.x * d;
    f.y = forward.y - upv.y * d;
    f.z = forward.z - upv.z * d;
    const l = Math.sqrt(f.x * f.x + f.y * f.y + f.z * f.z);
    if (!(l > 1e-6) || !(l < Infinity)) return false;
    const inv = 1 / l;
    f.x *= inv;
    f.y *= inv;
    f.z *= inv;
    return true;
  }

  /** Hands each limb's bend constraint the character's forward and up, and the limbs' lateral axis, this frame. */
  private refreshNaturalFrames(): void {
    if (this.chains[1]!.bendConstraint.naturalSide === 0) return;
    this.pose.getRotation(this.bones!.root, rootRotation);
    rotateVector(v3, rootRotation, this.localForward);
    rotateVector(v2, rootRotation, this.localUp);
    const ok = this.orthoFrame(v3, v2);
    for (let i = 1; i < 5; i++) {
      const bc = this.chains[i]!.bendConstraint;
      if (!ok) {
        // a zero forward makes the limit a no-op this frame, a zero outward the fitted elbow side
        zero(bc.naturalForward);
        zero(bc.elbowOutward);
        continue;
      }
      copyVec(bc.naturalForward, this.frameForward);
      copyVec(bc.naturalUp, this.frameUp);
      if (i <= 2 && bc.naturalElbowWeight > 0) this.refreshElbowFrame(bc, i);
      // lateral: the pair of first nodes (upper arms, thighs), only the tie-break of a fully inverted bend
      const pair = i <= 2 ? 1 : 3;
      sub(
        bc.naturalLateral,
        this.chains[pair]!.nodes[0]!.solverPosition,
        this.chains[pair + 1]!.nodes[0]!.solverPosition,
      );
    }
  }

  /** The arm's frame for the fitted elbow side, turned with the last spine bone as the pose has it now. */
  private refreshElbowFrame(bc: BendConstraint, arm: number): void {
    const b = this.bones!;
    const f = this.chestFrame;
    this.pose.getRotation(b.spine[b.spine.length - 1]!, chestRotation);
    rotateVector(bc.elbowForward, chestRotation, f[0]);
    rotateVector(bc.elbowUp, chestRotation, f[1]);
    rotateVector(bc.elbowOutward, chestRotation, f[arm === 1 ? 2 : 3]);
  }

  /**
   * The side a limb that is straight at initiate should bend toward (component space; {@link ChainSolver}):
   * elbows toward the character's back, knees toward its front. Null for the body chain.
   */
  straightLimbBendDirection(chain: FBIKChain): Vec3 | null {
    const index = this.chains.indexOf(chain);
    if (index < 1) return null;
    const out = this.straightBend;
    if (this.forward !== null) {
      normalize(out, this.forward);
    } else {
      // left × up is forward for right-handed rig data (glTF: facing +Z, left at +X, up +Y)
      const b = this.bones!;
      const p = (bone: number, o: Vec3) => this.pose.getPosition(bone, o);
      sub(v1, p(b.leftThigh, v1), p(b.rightThigh, v2));
      const hips = p(b.pelvis, v2);
      const top = p(b.spine[b.spine.length - 1]!, v3);
      sub(v3, top, hips);
      cross(out, v1, v3);
      normalize(out, out);
    }
    // arms (chains 1, 2) bend backward, legs (3, 4) forward
    if (index <= 2) scale(out, out, -1);
    return out;
  }

  /** With preserveBoneLengths the thighs stay on a rigid pelvis in every iteration, as the mapping will. */
  protected override afterIteration(): void {
    if (!this.preserveBoneLengths || !this.fabrikPass) return;
    const c = this.chains;
    // the animated frame is the same in every iteration of a frame: once per frame
    if (!this.pelvisFrameRead) {
      animatedPelvisFrame(c[0]!.nodes[0]!, c[3]!.nodes[0]!, c[4]!.nodes[0]!, this.pelvisFrame);
      this.pelvisFrameRead = true;
    }
    keepPelvisRigid(c[0]!.nodes[0]!, c[3]!.nodes[0]!, c[4]!.nodes[0]!, this.pelvisFrame, this.bodyEffector.childTurn);
  }

  /** With preserveBoneLengths the pelvis turns toward feet still beyond their legs' reach (see rigid-pelvis). */
  protected override afterIterations(): void {
    if (!this.preserveBoneLengths || !this.fabrikPass) return;
    const c = this.chains;
    // no foot weighted, no foot out of reach: tested here, in the hot solve, not by a call to rigid-pelvis's leg
    // test, which returned at once and so warmed up for thousands of frames, boxing the weight it read (32 B a frame)
    if (!(c[3]!.nodes[2]!.effectorPositionWeight > 0) && !(c[4]!.nodes[2]!.effectorPositionWeight > 0)) return;
    if (this.reachingLegs === null) {
      const leg = (chain: FBIKChain, e: IKEffector): ReachingLeg => ({
        thigh: chain.nodes[0]!,
        foot: chain.nodes[2]!,
        length: 0,
        target: e.position,
      });
      this.reachingLegs = [leg(c[3]!, this.leftFootEffector), leg(c[4]!, this.rightFootEffector)];
    }
    const legs = this.reachingLegs;
    legs[0].length = c[3]!.length;
    legs[1].length = c[4]!.length;
    turnPelvisToReach(c[0]!.nodes[0]!, legs[0], legs[1], this.bodyEffector.childTurn, MAX_PELVIS_STEP);
  }

  /** The spine bone right above the root node (the first spine bone when the root node is the pelvis), or −1. */
  private upperSpine(): number {
    const spine = this.bones!.spine;
    const root = this.chains[0]!.nodes[0]!.bone;
    const k = root === this.bones!.pelvis ? 0 : spine.indexOf(root) + 1;
    return k > 0 || root === this.bones!.pelvis ? (spine[k] ?? -1) : -1;
  }

  protected override beforeReadPose(): void {
    identity(this.bodyEffector.childTurn);
    this.pelvisFrameRead = false;
    this.readTargets();
    // the body effector's rotation (just read) turns the animated body; everything after reads the turned pose
    // (a weight that is not > 0, NaN included, turns nothing: the spine search is skipped)
    const turning = this.bones !== null && this.bodyEffector.rotationWeight > 0;
    if (turning && turnBody(this.pose, this.bodyEffector, this.bones!.pelvis, this.upperSpine(), this))
      this.readBones();
    this.validateBodySettings();
    zero(this.pullBodyOffset);
    if (this.iterations > 0 && (this.pullBodyVertical !== 0 || this.pullBodyHorizontal !== 0)) this.pullBody();
    let e = 1 - this.spineStiffness;
    e = e < 0 ? 0 : e > 1 ? 1 : Number.isFinite(e) ? e : 0.5;
    const constraints = this.chains[0]!.childConstraints;
    constraints[0]!.pushElasticity = e;
    constraints[1]!.pushElasticity = e;
  }

  /**
   * A non-finite spineStiffness, pullBodyVertical or pullBodyHorizontal keeps its last finite value (written
   * back, warned once per setting), as the chains' settings do.
   */
  private validateBodySettings(): void {
    if (
      Number.isFinite(this.spineStiffness) &&
      Number.isFinite(this.pullBodyVertical) &&
      Number.isFinite(this.pullBodyHorizontal)
    ) {
      this.validSpineStiffness = this.spineStiffness;
      this.validPullBodyVertical = this.pullBodyVertical;
      this.validPullBodyHorizontal = this.pullBodyHorizontal;
      return;
    }
    const message = (name: string, value: number, kept: number): string =>
      `${name} is ${String(value)} (not finite); its last valid value ${kept} is kept.`;
    if (Number.isFinite(this.spineStiffness)) this.validSpineStiffness = this.spineStiffness;
    else {
      this.warn("spineStiffness", message("spineStiffness", this.spineStiffness, this.validSpineStiffness));
      this.spineStiffness = this.validSpineStiffness;
    }
    if (Number.isFinite(this.pullBodyVertical)) this.validPullBodyVertical = this.pullBodyVertical;
    else {
      this.warn("pullBodyVertical", message("pullBodyVertical", this.pullBodyVertical, this.validPullBodyVertical));
      this.pullBodyVertical = this.validPullBodyVertical;
    }
    if (Number.isFinite(this.pullBodyHorizontal)) this.validPullBodyHorizontal = this.pullBodyHorizontal;
    else {
      this.warn(
        "pullBodyHorizontal",
        message("pullBodyHorizontal", this.pullBodyHorizontal, this.validPullBodyHorizontal),
      );
      this.pullBodyHorizontal = this.validPullBodyHorizontal;
    }
  }

  /** Hook for effector targets: copy target poses into the effectors (the Babylon layer overrides it). */
  protected readTargets(): void {}

  /** Hands reaching further than the arm adds an offset pulling the body toward them. */
  private pullBody(): void {
    const offset = zero(v3);
    this.handPull(offset, this.chains[1]!, this.effectors[FullBodyBipedEffector.LeftHand]!);
    this.handPull(offset, this.chains[2]!, this.effectors[FullBodyBipedEffector.RightHand]!);
    if (isZero(offset)) return;
    this.pose.getRotation(this.bones!.root, rootRotation);
    rotateVector(up, rootRotation, unitY);
    project(v1, offset, up);
    projectOnPlane(v2, offset, up);
    // the weights read in place rather than passed to scale helpers (see NumberRef)
    const vertical = this.pullBodyVertical;
    const horizontal = this.pullBodyHorizontal;
    const o = this.pullBodyOffset;
    o.x = v1.x * vertical + v2.x * horizontal;
    o.y = v1.y * vertical + v2.y * horizontal;
    o.z = v1.z * vertical + v2.z * horizontal;
    const body = this.effectors[FullBodyBipedEffector.Body]!;
    add(body.positionOffset, body.positionOffset, this.pullBodyOffset);
  }

  /** Adds to `offset` how far the hand target lies beyond the arm's reach from its shoulder (shifted by `offset`). */
  private handPull(offset: Vec3, arm: FBIKChain, hand: IKEffector): void {
    let w = hand.positionWeight;
    if (!(w > 0)) return;
    if (w > 1) w = 1;
    const target = hand.position;
    const shoulder = arm.nodes[0]!.bonePosition;
    v1.x = target.x - shoulder.x - offset.x;
    v1.y = target.y - shoulder.y - offset.y;
    v1.z = target.z - shoulder.z - offset.z;
    const d = v1;
    const dl = Math.sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    const armLength = arm.nodes[0]!.length + arm.nodes[1]!.length;
    // a target beyond FAR_LIMIT is ignored by the effector; it must not pull the body either
    if (!(dl > armLength) || !(dl <= FAR_LIMIT * this.rigSize)) return;
    const k = ((dl - armLength) / dl) * w;
    offset.x += d.x * k;
    offset.y += d.y * k;
    offset.z += d.z * k;
  }

  protected override applyBendConstraints(): void {
    if (this.iterations > 0) {
      for (let i = 1; i < 5; i++) {
        copyQuat(
          this.chains[i]!.bendConstraint.rotationOffset,
          this.effectors[FullBodyBipedEffector.LeftHand + i - 1]!.planeRotationOffset,
        );
      }
    } else {
      // limbs-only mode: the body moves rigidly by its effector's offset or pinned position
      const body = this.effectors[FullBodyBipedEffector.Body]!;
      const po = body.positionOffset;
      // (offset → pinned position by the position weight) × master weight, with the weight the effector
      // validated this frame (0 when its position is unusable, which must then not be read)
      const pw = body.node.effectorPositionWeight;
      const k = this.ikPositionWeight - pw;
      const o = this.bodyOffset;
      o.x = po.x * k;
      o.y = po.y * k;
      o.z = po.z * k;
      if (pw > 0) {
        sub(v1, body.position, body.node.bonePosition);
        sub(v1, v1, po);
        scaleAndAdd(this.bodyOffset, this.bodyOffset, v1, pw);
      }
      for (let i = 0; i < 5; i++) {
        const p = this.effectors[i]!.node.solverPosition;
        add(p, p, this.bodyOffset);
      }
    }
    this.refreshNaturalFrames();
    super.applyBendConstraints();
  }

  protected override readPose(): void {
    zero(this.bodyOffset);
    super.readPose();
  }
}

export { validateBipedBones, validateRootNode } from "./biped-validation.js";
