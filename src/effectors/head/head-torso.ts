/**
 * Where the head effector puts the torso: the root node, the upper arms and the thighs of the full-body
 * solver, placed so that the chest (which the solver's spine mapping carries on the triangle of root node
 * and upper arms) brings the head onto its target. Offsets before the solve, node positions inside it.
 * Allocation-free per frame.
 * @module
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { Quat, fromToRotation, rotateVector } from "../../math/quat.js";
import { Vec3 } from "../../math/vec3.js";
import { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import type { FBIKChain } from "../../solver/chain.js";
import type { IKEffector } from "../../solver/effector.js";
import type { IKNode } from "../../solver/node.js";

/** Torso slots: root node, left and right upper arm, left and right thigh; then the two hands (offsets only). */
const ROOT = 0;
const THIGHS = 3;
const TORSO = 5;
const SLOTS = 7;

const head = new Vec3();
const root = new Vec3();
const body = new Vec3();
const arm = new Vec3();
const p = new Vec3();
const turn = new Quat();
const shift = new Vec3();
const extraBody = new Vec3();
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
  private readonly ik: FullBodyBipedIK;
  private readonly nodes: IKNode[];
  private readonly effectors: IKEffector[];
  private readonly arms: FBIKChain[];
  private readonly hands: IKEffector[];
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
    for (let i = 0; i < SLOTS; i++) {
      this.full.push(new Vec3());
      this.added.push(new Vec3());
    }
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
    const w = this.weight;
    const tw = this.thighWeight;
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
        f.x = p.x + (f.x - p.x) * tw;
        f.y = p.y + (f.y - p.y) * tw;
        f.z = p.z + (f.z - p.z) * tw;
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
