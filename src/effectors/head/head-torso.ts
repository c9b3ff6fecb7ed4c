/**
 * Where the head effector puts the torso: the root node, the upper arms and the thighs of the full-body
 * solver, placed so that the chest (which the solver's spine mapping carries on the triangle of root node
 * and upper arms) brings the head onto its target. Offsets before the solve, node positions inside it.
 * Allocation-free per frame.
 * @module
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { Quat, fromToRotation, inverseRotateVector, rotateVector } from "../../math/quat.js";
import { Vec3, add, copy, isZero, normalize, scale as scaleVec, sub } from "../../math/vec3.js";
import { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import type { FBIKChain } from "../../solver/chain.js";
import type { IKEffector } from "../../solver/effector.js";
import { type IKNode, addNodeOffset } from "../../solver/node.js";
import { animatedPelvisFrame, rigidThighs } from "../../solver/rigid-pelvis.js";

/** Torso slots: root node, left and right upper arm, left and right thigh; then the two hands (offsets only). */
const ROOT = 0;
const THIGHS = 3;
const TORSO = 5;
const SLOTS = 7;
/**
 * With minKneeAngle, the longest the thighs trail the torso's move, × the pelvis's height (root node to the thighs'
 * midpoint): at 1 the root node reaches their line. Crouches to 0.6 of the height with leans and turns trail up to
 * 0.49 (UAL), 0.58 (Superhero), 0.71 (Xbot), 0.78 (Soldier) of it: they are left as they are.
 */
const PELVIS_LAG = 0.8;

const head = new Vec3();
const root = new Vec3();
const body = new Vec3();
const arm = new Vec3();
const p = new Vec3();
const turn = new Quat();
const shift = new Vec3();
const extraBody = new Vec3();
const goal = new Vec3();
const up = new Vec3();
const bv = new Vector3();
const bv2 = new Vector3();

/** The head effector's torso placement on one IK (see the module). */
export class HeadTorso {
  /** [0, 1] This frame's position weight (0: nothing is placed or pinned). */
  weight = 0;
  /** [0, 1] How much the root node follows the head's offset. */
  bodyWeight = 0.8;
  /** [0, 1] How much the thighs follow the torso's move. */
  thighWeight = 0.8;
  /** True: the knees fold no further than {@link kneeCos} and the pelvis keeps its side (minKneeAngle > 0). */
  limitKnees = false;
  /** The cosine of the least angle between thigh and shin the torso's place may fold a knee to. */
  kneeCos = 1;
  private readonly ik: FullBodyBipedIK;
  private readonly nodes: IKNode[];
  private readonly effectors: IKEffector[];
  private readonly arms: FBIKChain[];
  private readonly hands: IKEffector[];
  private readonly legs: FBIKChain[];
  private readonly feet: IKEffector[];
  /** The character's up in the character root's frame (from the pose at setup: thighs to the top of the spine). */
  private readonly localUp = new Vec3();
  /** This frame's animated pelvis triangle frame (keepPelvisRigid's), read once per frame. */
  private readonly pelvisFrame = new Quat();
  private pelvisRead = false;
  /** Where the thigh bones will stand (limitKnees). */
  private readonly thighPlaces = [new Vec3(), new Vec3()];
  /** Full-weight targets of the torso slots (component space). */
  private readonly full: Vec3[] = [];
  /** What this frame added to each slot's effector positionOffset. */
  private readonly added: Vec3[] = [];

  /** Binds to `ik`'s solver nodes and effectors. */
  constructor(ik: FullBodyBipedIK) {
    this.ik = ik;
    const s = ik.solver.inner;
    const c = s.chains;
    const E = FullBodyBipedEffector;
    this.nodes = [c[0]!.nodes[0]!, c[1]!.nodes[0]!, c[2]!.nodes[0]!, c[3]!.nodes[0]!, c[4]!.nodes[0]!];
    this.effectors = [E.Body, E.LeftShoulder, E.RightShoulder, E.LeftThigh, E.RightThigh, E.LeftHand, E.RightHand].map(
      (e) => s.effectors[e]!,
    );
    this.arms = [c[1]!, c[2]!];
    this.hands = [s.effectors[E.LeftHand]!, s.effectors[E.RightHand]!];
    this.legs = [c[3]!, c[4]!];
    this.feet = [s.effectors[E.LeftFoot]!, s.effectors[E.RightFoot]!];
    for (let i = 0; i < SLOTS; i++) {
      this.full.push(new Vec3());
      this.added.push(new Vec3());
    }
    const rig = ik.rig;
    const r = ik.references;
    const top = r.spine.at(-1);
    if (top !== undefined) {
      rig.getPosition(rig.idOf(r.leftThigh), p);
      rig.getPosition(rig.idOf(r.rightThigh), arm);
      rig.getPosition(rig.idOf(top), head);
      sub(p, head, scaleVec(p, add(p, p, arm), 0.5));
      normalize(p, p);
      inverseRotateVector(this.localUp, rig.getRotation(0, turn), p);
    }
    // no spine, or the thighs on its top: the root's own up
    if (isZero(this.localUp)) this.localUp.y = 1;
  }

  /** The head's height over the feet at the last read, world units (1 when it cannot be measured). */
  measureHeight(): number {
    const rig = this.ik.rig;
    const r = this.ik.references;
    rig.getWorldPosition(rig.idOf(r.head!), bv);
    rig.getWorldPosition(rig.idOf(r.leftFoot), bv2);
    const fx = bv2.x;
    const fy = bv2.y;
    const fz = bv2.z;
    rig.getWorldPosition(rig.idOf(r.rightFoot), bv2);
    const h = Vector3.Distance(bv, bv2.set((bv2.x + fx) / 2, (bv2.y + fy) / 2, (bv2.z + fz) / 2));
    return h > 0 && Number.isFinite(h) ? h : 1;
  }

  /**
   * Places the torso for the head (pose id `headId`, as the rig holds it now) to land on `target`
   * (component space) and adds the moves × {@link weight} to the effectors' positionOffset. The root node
   * goes by `bodyWeight` of the head's offset, then back onto the sphere of its distance to the head around
   * the target; the torso turns by the shortest arc carrying the head there (a rigid move, so the chest
   * plane and the head on it follow exactly); the thighs take `thighWeight` of the move; the hands take
   * all of it as an offset (their targets, when weighted, still win). False when the head sits on the root
   * node or a value is not finite: nothing is added then.
   */
  place(headId: number, target: Vec3): boolean {
    const rig = this.ik.rig;
    rig.getPosition(headId, head);
    rig.getPosition(this.nodes[ROOT]!.bone, root);
    arm.x = head.x - root.x;
    arm.y = head.y - root.y;
    arm.z = head.z - root.z;
    const d0 = Math.sqrt(arm.x * arm.x + arm.y * arm.y + arm.z * arm.z);
    if (!(d0 > 0) || d0 === Infinity) return false;
    const bw = this.bodyWeight;
    // the body's share of the head's offset, seen from the target
    body.x = root.x + (target.x - head.x) * bw - target.x;
    body.y = root.y + (target.y - head.y) * bw - target.y;
    body.z = root.z + (target.z - head.z) * bw - target.z;
    const l = Math.sqrt(body.x * body.x + body.y * body.y + body.z * body.z);
    if (l > d0 * 1e-9) {
      const k = d0 / l;
      body.x = target.x + body.x * k;
      body.y = target.y + body.y * k;
      body.z = target.z + body.z * k;
    } else {
      body.x = root.x + target.x - head.x;
      body.y = root.y + target.y - head.y;
      body.z = root.z + target.z - head.z;
    }
    p.x = target.x - body.x;
    p.y = target.y - body.y;
    p.z = target.z - body.z;
    fromToRotation(turn, arm, p);
    this.pelvisRead = false;
    const w = this.weight;
    const tw = this.thighWeight;
    // limitKnees: the thighs trail the torso's move by at most PELVIS_LAG × the root node's distance to their
    // midpoint (the pelvis's height), so the root node never passes between them (the pelvis turned inside out)
    let most = Infinity;
    if (this.limitKnees) {
      rig.getPosition(this.nodes[THIGHS]!.bone, p);
      rig.getPosition(this.nodes[THIGHS + 1]!.bone, arm);
      arm.x = (p.x + arm.x) * 0.5 - root.x;
      arm.y = (p.y + arm.y) * 0.5 - root.y;
      arm.z = (p.z + arm.z) * 0.5 - root.z;
      most = PELVIS_LAG * Math.sqrt(arm.x * arm.x + arm.y * arm.y + arm.z * arm.z);
    }
    let sum = 0;
    for (let k = 0; k < SLOTS; k++) {
      const id = k < TORSO ? this.nodes[k]!.bone : this.effectors[k]!.node.bone;
      rig.getPosition(id, p);
      const f = this.full[k]!;
      arm.x = p.x - root.x;
      arm.y = p.y - root.y;
      arm.z = p.z - root.z;
      rotateVector(f, turn, arm);
      f.x += body.x;
      f.y += body.y;
      f.z += body.z;
      if (k >= THIGHS && k < TORSO) {
        const rx = f.x;
        const ry = f.y;
        const rz = f.z;
        f.x = p.x + (f.x - p.x) * tw;
        f.y = p.y + (f.y - p.y) * tw;
        f.z = p.z + (f.z - p.z) * tw;
        // the lag: from the rigid place back to the thigh's
        const lx = rx - f.x;
        const ly = ry - f.y;
        const lz = rz - f.z;
        const l = Math.sqrt(lx * lx + ly * ly + lz * lz);
        if (l > most) {
          const c = most / l;
          f.x = rx - lx * c;
          f.y = ry - ly * c;
          f.z = rz - lz * c;
        }
      }
      const a = this.added[k]!;
      a.x = (f.x - p.x) * w;
      a.y = (f.y - p.y) * w;
      a.z = (f.z - p.z) * w;
      sum += f.x - f.x + (f.y - f.y) + (f.z - f.z) + (a.x - a.x) + (a.y - a.y) + (a.z - a.z);
    }
    // (x − x is NaN for NaN and ±∞: one check for every slot)
    if (sum !== 0) return false;
    // the body effector carries the thighs: their own offsets take that share off
    const carried = this.effectors[ROOT]!.effectChildNodes;
    const ab = this.added[ROOT]!;
    for (let k = 0; k < SLOTS; k++) {
      const a = this.added[k]!;
      if (carried && k >= THIGHS && k < TORSO) {
        a.x -= ab.x;
        a.y -= ab.y;
        a.z -= ab.z;
      }
      const o = this.effectors[k]!.positionOffset;
      o.x += a.x;
      o.y += a.y;
      o.z += a.z;
    }
    return true;
  }

  /**
   * Moves the torso's solver nodes toward their targets by {@link weight} (exactly onto them at 1), keeping
   * what other code added to those effectors' offsets this frame (the solver's own pull of the body
   * excepted); with `pull`, out-of-reach hand targets then drag the five nodes toward them.
   */
  pin(pull: boolean): void {
    const w = this.weight;
    if (!(w > 0)) return;
    const solver = this.ik.solver.inner;
    const bodyOffset = this.effectors[ROOT]!.positionOffset;
    const pullOffset = solver.pullBodyOffset;
    const ab = this.added[ROOT]!;
    extraBody.x = bodyOffset.x - ab.x - pullOffset.x;
    extraBody.y = bodyOffset.y - ab.y - pullOffset.y;
    extraBody.z = bodyOffset.z - ab.z - pullOffset.z;
    const carried = this.effectors[ROOT]!.effectChildNodes;
    for (let k = 0; k < TORSO; k++) {
      const f = this.full[k]!;
      const sp = this.nodes[k]!.solverPosition;
      if (k === ROOT) {
        p.x = f.x + extraBody.x;
        p.y = f.y + extraBody.y;
        p.z = f.z + extraBody.z;
      } else {
        const o = this.effectors[k]!.positionOffset;
        const a = this.added[k]!;
        p.x = f.x + o.x - a.x;
        p.y = f.y + o.y - a.y;
        p.z = f.z + o.z - a.z;
        if (carried && k >= THIGHS) {
          p.x += extraBody.x;
          p.y += extraBody.y;
          p.z += extraBody.z;
        }
      }
      sp.x += (p.x - sp.x) * w;
      sp.y += (p.y - sp.y) * w;
      sp.z += (p.z - sp.z) * w;
    }
    if (pull) this.pullByHands();
    if (this.limitKnees) this.keepLegsFoldable();
  }

  /**
   * Lifts the five torso nodes along the character's up (by {@link weight}) so that no thigh stands nearer its
   * foot's goal than the knee folded to the angle of {@link kneeCos} puts it, nor under it: a leg cannot fold
   * shorter than |thigh − shin| bone, and nearer than that the final limb pass lays it flat and swings it about the
   * hip (the foot off its target, the knee backward once the hip passes the foot). The thighs tested are the
   * bones' places: with preserveBoneLengths, where the rigid pelvis will carry them.
   */
  private keepLegsFoldable(): void {
    const solver = this.ik.solver.inner;
    const thighs = this.thighPlaces;
    if (solver.preserveBoneLengths) {
      const n = this.nodes;
      if (!this.pelvisRead) {
        animatedPelvisFrame(n[ROOT]!, n[THIGHS]!, n[THIGHS + 1]!, this.pelvisFrame);
        this.pelvisRead = true;
      }
      rigidThighs(n[ROOT]!, n[THIGHS]!, n[THIGHS + 1]!, this.pelvisFrame, thighs[0]!, thighs[1]!);
    } else {
      copy(thighs[0]!, this.nodes[THIGHS]!.solverPosition);
      copy(thighs[1]!, this.nodes[THIGHS + 1]!.solverPosition);
    }
    rotateVector(up, this.ik.rig.getRotation(0, turn), this.localUp);
    const c = this.kneeCos;
    let most = 0;
    for (let i = 0; i < 2; i++) {
      const nodes = this.legs[i]!.nodes;
      const foot = nodes[2]!;
      // the foot's goal as the end effector's update will have it: the animated foot (with its offset) pulled
      // toward the effector's position by its weight
      addNodeOffset(goal, foot.bonePosition, foot);
      const fw = foot.effectorPositionWeight;
      if (fw > 0) {
        const t = this.feet[i]!.position;
        goal.x += (t.x - goal.x) * fw;
        goal.y += (t.y - goal.y) * fw;
        goal.z += (t.z - goal.z) * fw;
      }
      const t = thighs[i]!;
      const vx = t.x - goal.x;
      const vy = t.y - goal.y;
      const vz = t.z - goal.z;
      const height = vx * up.x + vy * up.y + vz * up.z;
      const hx = vx - up.x * height;
      const hy = vy - up.y * height;
      const hz = vz - up.z * height;
      const r = Math.sqrt(hx * hx + hy * hy + hz * hz);
      const a = nodes[0]!.length;
      const b = nodes[1]!.length;
      // law of cosines: the thigh–foot distance with the knee at the least angle
      const sq = a * a + b * b - 2 * a * b * c;
      const least = sq > 0 ? Math.sqrt(sq) : 0;
      // the lowest the thigh may stand over the goal: on the sphere of `least` around it above it, and below the
      // goal's level only as far as it stands out beyond that sphere (continuous: a thigh never jumps over it)
      const floor = r < least ? Math.sqrt(least * least - r * r) : least - r;
      const lift = floor - height;
      if (lift > most) most = lift;
    }
    if (!(most > 0) || most === Infinity) return;
    most *= this.weight;
    for (let j = 0; j < TORSO; j++) {
      const sp = this.nodes[j]!.solverPosition;
      sp.x += up.x * most;
      sp.y += up.y * most;
      sp.z += up.z * most;
    }
  }

  /** Hand targets beyond their arm's reach drag the torso nodes toward them (hand weight × chain pull). */
  private pullByHands(): void {
    let ikw = this.ik.solver.inner.ikPositionWeight;
    ikw = ikw > 1 ? 1 : ikw;
    shift.x = shift.y = shift.z = 0;
    for (let i = 0; i < 2; i++) {
      const hand = this.hands[i]!;
      let hw = hand.positionWeight;
      hw = (hw > 1 ? 1 : hw) * ikw;
      if (!(hw > 0)) continue;
      const chain = this.arms[i]!;
      const s = chain.nodes[0]!.solverPosition;
      const t = hand.position;
      arm.x = t.x - s.x - shift.x;
      arm.y = t.y - s.y - shift.y;
      arm.z = t.z - s.z - shift.z;
      const dl = Math.sqrt(arm.x * arm.x + arm.y * arm.y + arm.z * arm.z);
      const length = chain.nodes[0]!.length + chain.nodes[1]!.length;
      if (!(dl > length) || dl === Infinity) continue;
      let pullWeight = chain.pull;
      pullWeight = pullWeight > 0 ? (pullWeight < 1 ? pullWeight : 1) : 0;
      const k = ((dl - length) / dl) * hw * pullWeight;
      shift.x += arm.x * k;
      shift.y += arm.y * k;
      shift.z += arm.z * k;
    }
    if (shift.x === 0 && shift.y === 0 && shift.z === 0) return;
    for (let k = 0; k < TORSO; k++) {
      const sp = this.nodes[k]!.solverPosition;
      sp.x += shift.x;
      sp.y += shift.y;
      sp.z += shift.z;
    }
  }
}
