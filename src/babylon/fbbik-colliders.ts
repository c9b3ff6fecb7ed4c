import { Observable, type Observer } from "@babylonjs/core/Misc/observable.js";
import { Quat, fromToRotation, multiply, normalizeQuat } from "../math/quat.js";
import { Vec3, anyPerpendicular, sub } from "../math/vec3.js";
import { FBBIKError, setUpAs } from "../solver/errors.js";
import type { IKPose } from "../solver/pose.js";
import { ColliderStep } from "../joints/joint-colliders.js";
import { FullBodyBipedChain } from "../solver/biped-bones.js";
import type { BoneCollider } from "./bone-collider.js";
import { BoneColliderSet } from "./bone-collider-set.js";
import type { FullBodyBipedIK } from "./full-body-biped-ik.js";
import { disposeWith, notifyDisposed } from "./dispose-notice.js";
import { EnableFade, EnablePass } from "./enable-fade.js";
import { type OptionKinds, checkOptions, warnUnknownOptions } from "./option-check.js";

/** Options of {@link FBBIKColliders.create}. */
export interface FBBIKCollidersOptions {
  /**
   * The colliders: on bones of the FullBodyBipedIK's rig (the spine, chest, neck, head, pelvis…), or on nodes
   * in the scene (a pillar, a wall, a table).
   */
  colliders?: readonly BoneCollider[];
  /** The limbs whose hand or foot is kept outside the colliders (default: both arms). */
  limbs?: readonly FullBodyBipedChain[];
  /** Clearance between the hand (or foot) bone's origin and the colliders, in world units (default 0). */
  clearance?: number;
  /** Seconds `enabled` takes to fade out or in (default 0: at once): {@link FBBIKColliders.enableFadeSeconds}. */
  enableFadeSeconds?: number;
}

/** The kinds of {@link FBBIKCollidersOptions}, for the check at create. */
export const FBBIK_COLLIDERS_OPTION_KINDS: OptionKinds<FBBIKCollidersOptions> = {
  colliders: "array",
  limbs: "array",
  clearance: "number",
  enableFadeSeconds: "number",
};

const s = new Vec3();
const e = new Vec3();
const h = new Vec3();
const goal = new Vec3();
const pushed = new Vec3();
const d = new Vec3();
const u = new Vec3();
const a = new Vec3();
const b = new Vec3();
const handRot = new Quat();
const step = new ColliderStep();
const rot = new Quat();
const turn = new Quat();
/** Scalars of {@link reachTwoBone}, in a typed array so no double crosses a call. */
const k = new Float64Array(4);

/**
 * FullBodyBipedIK's after-solve collider pass: once the body is solved (FinalIK's OnPostUpdate, before the
 * bones are written), the hands (or feet, see `limbs`) are pushed out of the {@link BoneCollider}s placed
 * at the solved pose, and each pushed limb's upper and middle bones are turned (law of cosines, keeping the
 * limb's bend plane as near as it can) so that the hand's origin lands on the collider's surface; the hand
 * keeps its solved rotation. A hand target inside the torso so leaves the hand on the torso's surface, not
 * through it. Only the limb end is kept out, not the forearm, and not out of the colliders hanging on its own
 * limb (a shield the hand holds: a node under the hand follows the solved hand).
 *
 * The pass runs only on frames the FullBodyBipedIK solves (nothing runs at weight 0 or with every effector
 * off, so the animated pose stays bit-exact), and with no collider it changes nothing.
 *
 * ```ts
 * const ik = FullBodyBipedIK.create(scene, skeleton);
 * const chest = ik.references.spine[ik.references.spine.length - 1]!;
 * const torso = BoneCollider.capsule(chest, new Vector3(0, -25, 0), new Vector3(0, 10, 0), 14);
 * const colliders = FBBIKColliders.create(ik, { colliders: [torso] });
 * ```
 */
export class FBBIKColliders {
  /** The FullBodyBipedIK it serves. */
  readonly ik: FullBodyBipedIK;
  /** The colliders on the IK's rig. */
  readonly colliders: BoneColliderSet;
  /** The limbs whose end is kept outside. */
  readonly limbs: readonly FullBodyBipedChain[];
  /** Clearance between a limb end's origin and the colliders, in world units. */
  clearance: number;
  /**
   * When false the pass does nothing: at once, or once faded out over {@link enableFadeSeconds}. It reads what
   * you set, also while the fade runs ({@link isFading}).
   */
  enabled = true;
  /**
   * Seconds `enabled` takes to switch (default 0: at once, a hand kept out of a collider jumps to its target).
   * Set to false, the push out of the colliders eases out over this time, then the pass stops; set to true, it
   * eases in; set back mid-fade, it turns back where it is. The IK's own `enableFadeSeconds` fades the whole
   * output instead. Not in FinalIK.
   */
  get enableFadeSeconds(): number {
    return this.enableFade.seconds;
  }
  set enableFadeSeconds(v: number) {
    this.enableFade.seconds = v;
  }
  /** Notified once by {@link dispose}, before it lets go of its state (Babylon's convention). */
  readonly onDisposeObservable = new Observable<FBBIKColliders>();
  private observer: Observer<void> | null;
  private disposed = false;
  /** On the IK's onDisposeObservable: this goes with its IK. */
  private readonly ikDisposal: Observer<FullBodyBipedIK> | null;
  /** Per collider, 1 when it hangs on the limb being resolved (grown with the colliders). */
  private ownLimb = new Uint8Array(0);
  /** The fade of {@link enabled} over {@link enableFadeSeconds}. */
  private readonly enableFade: EnableFade;

  private constructor(ik: FullBodyBipedIK, options: FBBIKCollidersOptions) {
    const unknown = checkOptions("FBBIKColliders", options, FBBIK_COLLIDERS_OPTION_KINDS);
    this.ik = ik;
    this.colliders = new BoneColliderSet(ik.rig, options.colliders ?? [], (cause, message) =>
      ik.solver.inner.warn(cause, message),
    );
    const limbs = options.limbs ?? [FullBodyBipedChain.LeftArm, FullBodyBipedChain.RightArm];
    const bad = limbs.filter((l) => ik.solver.limbMappings[l] === undefined);
    if (bad.length > 0) throw new FBBIKError(bad.map((l) => `limb ${l} is not a FullBodyBipedChain limb`));
    this.limbs = [...limbs];
    this.clearance = options.clearance ?? 0;
    this.enableFade = new EnableFade(ik.scene, null);
    this.enableFadeSeconds = options.enableFadeSeconds ?? 0;
    this.observer = ik.solver.onPostUpdateObservable.add(() => this.apply());
    // last: a constructor that threw leaves nothing on the IK
    this.ikDisposal = disposeWith(ik, this);
    warnUnknownOptions(ik.solver.inner, "FBBIKColliders", unknown, FBBIK_COLLIDERS_OPTION_KINDS, { "": this });
  }

  /**
   * Adds the pass to `ik`. Throws {@link FBBIKError} when a collider hangs on a bone that is not in the IK's rig
   * (the mapped bones and their ancestors).
   */
  static create(ik: FullBodyBipedIK, options: FBBIKCollidersOptions = {}): FBBIKColliders {
    return setUpAs("FBBIKColliders", () => new FBBIKColliders(ik, options));
  }

  /** Adds a collider. Throws {@link FBBIKError} when it hangs on a bone that is not in the IK's rig. */
  addCollider(collider: BoneCollider): void {
    this.colliders.add(collider);
  }

  /** Removes a collider; false when it was not there. */
  removeCollider(collider: BoneCollider): boolean {
    return this.colliders.remove(collider);
  }

  /**
   * True while the push out of the colliders eases in or out after `enabled` changed ({@link enableFadeSeconds});
   * false while its IK does not run (nothing of the pass shows then).
   */
  get isFading(): boolean {
    return this.enableFade.fading(this) && !this.ik._idle;
  }

  /** True after dispose. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "FBBIKColliders";
  }

  /** Removes the pass from the IK. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    notifyDisposed(this.onDisposeObservable, this);
    this.ik.onDisposeObservable.remove(this.ikDisposal);
    if (this.observer !== null) this.ik.solver.onPostUpdateObservable.remove(this.observer);
    this.observer = null;
  }

  /** The pass (on the IK's onPostUpdateObservable): the solved pose is in the rig, not yet written. */
  private apply(): void {
    const ik = this.ik;
    const pass = this.enableFade.beginHook(this, ik._resumed);
    if (pass === EnablePass.Off || pass === EnablePass.Done) return;
    if (this.colliders.colliders.length === 0 || !ik.solver.inner.solvedLastUpdate) return;
    // fading `enabled`: each push out of the colliders scaled by the fade's weight
    const w = pass === EnablePass.Fade ? this.enableFade.weight : 1;
    const rig = ik.rig;
    this.colliders.update(rig);
    const c = this.clearance;
    // the clearance travels in an object: a double handed to a call V8 does not inline is boxed
    step.radius = c > 0 && c < Infinity ? c / rig.componentScale : 0;
    step.alpha = 1;
    const n = this.colliders.colliders.length;
    if (this.ownLimb.length !== n) this.ownLimb = new Uint8Array(n);
    step.skip = this.ownLimb;
    for (let i = 0; i < this.limbs.length; i++) {
      const m = ik.solver.limbMappings[this.limbs[i]!]!;
      // a hand is not kept out of what it holds, nor out of its own arm
      for (let c = 0; c < n; c++) this.ownLimb[c] = below(rig.parents, this.colliders.hangsOn(c), m.bone1.bone) ? 1 : 0;
      rig.getPosition(m.bone3.bone, h);
      if (!this.colliders.resolvePointStep(pushed, h, step)) continue;
      if (w < 1) {
        pushed.x = h.x + (pushed.x - h.x) * w;
        pushed.y = h.y + (pushed.y - h.y) * w;
        pushed.z = h.z + (pushed.z - h.z) * w;
      }
      reachTwoBone(rig, m.bone1.bone, m.bone2.bone, m.bone3.bone, pushed);
    }
  }
}

/**
 * Turns `upper` and `middle` so that `end`'s origin reaches `target` (as near as the bone lengths allow),
 * the bend plane kept as near the current one as it can be; `end` keeps its component rotation. The law of
 * cosines on the three joints' positions; allocation-free.
 */
export function reachTwoBone(pose: IKPose, upper: number, middle: number, end: number, target: Vec3): void {
  pose.getPosition(upper, s);
  pose.getPosition(middle, e);
  pose.getPosition(end, h);
  pose.getRotation(end, handRot);
  distance(0, e, s);
  distance(1, h, e);
  distance(2, target, s);
  sub(d, target, s);
  if (!(k[0]! > 0 && k[1]! > 0 && k[2]! > 0)) return;
  d.x /= k[2]!;
  d.y /= k[2]!;
  d.z /= k[2]!;
  // the bend direction: the middle joint's offset across the upper→end line, then across the new line
  sub(a, h, s);
  sub(u, e, s);
  bendAcross(u, a);
  bendAcross(u, d);
  const ul = Math.sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
  if (ul > 1e-12 * k[0]!) {
    u.x /= ul;
    u.y /= ul;
    u.z /= ul;
  } else {
    anyPerpendicular(u, d);
  }
  const lo = Math.abs(k[0]! - k[1]!);
  const hi = k[0]! + k[1]!;
  const c = k[2]! < lo ? lo : k[2]! > hi ? hi : k[2]!;
  let cos = (k[0]! * k[0]! + c * c - k[1]! * k[1]!) / (2 * k[0]! * c);
  cos = cos > 1 ? 1 : cos < -1 ? -1 : cos;
  const sin = Math.sqrt(1 - cos * cos);
  // the middle joint's new place, and the end's: c along d
  goal.x = s.x + k[0]! * (cos * d.x + sin * u.x);
  goal.y = s.y + k[0]! * (cos * d.y + sin * u.y);
  goal.z = s.z + k[0]! * (cos * d.z + sin * u.z);
  turnToward(pose, upper, s, e, goal);
  pose.getPosition(middle, e);
  pose.getPosition(end, h);
  goal.x = s.x + c * d.x;
  goal.y = s.y + c * d.y;
  goal.z = s.z + c * d.z;
  turnToward(pose, middle, e, h, goal);
  pose.setRotation(end, handRot);
}

/** True when bone `id` is `ancestor` or below it (`parents` by id, −1 at the top). */
function below(parents: ArrayLike<number>, id: number, ancestor: number): boolean {
  for (let b = id; b >= 0; b = parents[b]!) if (b === ancestor) return true;
  return false;
}

/** Removes from `v` its part along `axis` (nothing when the axis is zero). */
function bendAcross(v: Vec3, axis: Vec3): void {
  const l = axis.x * axis.x + axis.y * axis.y + axis.z * axis.z;
  if (!(l > 0)) return;
  const t = (v.x * axis.x + v.y * axis.y + v.z * axis.z) / l;
  v.x -= axis.x * t;
  v.y -= axis.y * t;
  v.z -= axis.z * t;
}

/** Turns `bone` (at `from`) by the shortest arc taking the direction to `child` onto the direction to `to`. */
function turnToward(pose: IKPose, bone: number, from: Vec3, child: Vec3, to: Vec3): void {
  sub(a, child, from);
  sub(b, to, from);
  fromToRotation(turn, a, b);
  pose.getRotation(bone, rot);
  multiply(rot, turn, rot);
  pose.setRotation(bone, normalizeQuat(rot, rot));
}

/** `k[slot]` = |p − q| (through the array: no double crosses a call). */
function distance(slot: number, p: Vec3, q: Vec3): void {
  const x = p.x - q.x;
  const y = p.y - q.y;
  const z = p.z - q.z;
  k[slot] = Math.sqrt(x * x + y * y + z * z);
}
