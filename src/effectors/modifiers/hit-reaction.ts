/**
 * FinalIK's HitReaction: procedural reactions to hits, as effector offsets along curves (HitPointEffector)
 * and bone rotations after the solve (HitPointBone).
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { setQuaternionFields, setVector3Fields } from "../../babylon/babylon-fields.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { NumberRef } from "../../math/number-ref.js";
import { Quat, multiply, slerpByRef } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3 } from "../../math/vec3.js";
import type { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { Curve } from "../../math/curve.js";
import { type CharacterFrame, Scalars, worldDeltaToComponent } from "./frame.js";
import {
  EFFECTOR_LINK_INIT_KINDS,
  type EffectorLinkInit,
  OFFSET_MODIFIER_OPTION_KINDS,
  OffsetModifier,
  type OffsetModifierOptions,
} from "./offset-modifier.js";
import { type OptionKinds, checkLoggedOptions, checkOptions, eachOf } from "../../babylon/option-check.js";

const DEG = Math.PI / 180;
const io = new Scalars();

/** An effector moved by a {@link HitPointEffector}, with the offset it took last frame. */
export class HitEffectorLink {
  /** The effector. */
  effector: FullBodyBipedEffector;
  /** Multiplier of the hit point's offset for this effector. */
  weight: number;
  /** The offset of the last frame (world, before the modifier's weight). */
  readonly current = new Vector3();
  /** @internal The value a new hit cross-fades from. */
  readonly _last = new Vector3();

  /** Links `effector` with `weight` (default 1). */
  constructor(effector: FullBodyBipedEffector, weight = 1) {
    this.effector = effector;
    this.weight = weight;
  }
}

/** A bone turned by a {@link HitPointBone}, with the rotation it took last frame. */
export class HitBoneLink {
  /** The bone (must be one the IK's rig holds: a referenced bone or an ancestor of one). */
  bone: Bone;
  /** Multiplier of the hit point's angle for this bone. */
  weight: number;
  /** The world rotation of the last frame (before the modifier's weight). */
  readonly current = new Quaternion();
  /** @internal The rotation a new hit cross-fades from. */
  readonly _last = new Quat();
  /** @internal Set once the bone was reported as not in the IK's rig. */
  _warned = false;

  /** Links `bone` with `weight` (default 1). */
  constructor(bone: Bone, weight = 1) {
    this.bone = bone;
    this.weight = weight;
  }
}

/** What the hit points' constructors share. */
export interface HitPointOptions {
  /** A name for messages. */
  name?: string;
  /** The mesh whose hits this point reacts to. */
  collider: AbstractMesh | null;
  /** Seconds to cross-fade from the previous hit's value when hit again (default 0.1). */
  crossFadeTime?: number;
}

/** The kinds of {@link HitPointOptions}, for the check at create. */
export const HIT_POINT_OPTION_KINDS: OptionKinds<HitPointOptions> = {
  name: "string",
  collider: "object|null",
  crossFadeTime: "number",
};

/**
 * A part of the character that reacts to hits on its collider: a timer runs along the point's curves
 * from each hit; a new hit cross-fades from where the previous one was.
 */
export abstract class HitPoint {
  /** A name for messages. */
  name: string;
  /** The mesh whose hits this point reacts to. */
  collider: AbstractMesh | null;
  /** Seconds to cross-fade from the previous hit's value when hit again (0: jump). */
  crossFadeTime: number;
  /** The force of the last hit (world). */
  readonly force = new Vector3();
  /** The point of the last hit (world). */
  readonly point = new Vector3();
  /** Seconds since the last hit, up to {@link length}. */
  timer = 0;
  /** [0, 1] Progress of the cross-fade from the previous hit (1: done). */
  crossFader = 1;
  /** @internal True when the last {@link _advance} computed values (the bone rotations to apply). */
  _advanced = false;
  /** @internal The length of the running hit (fixed at the hit). */
  _length = 0;
  private active = false;

  /**
   * Sets the common fields; checks `options` first against `kinds`, the options of `component` (the subclass), or
   * without them the types of the common options alone.
   */
  protected constructor(options: HitPointOptions, kinds?: OptionKinds<HitPointOptions>, component = "HitPoint") {
    if (kinds !== undefined) checkLoggedOptions(component, options, kinds);
    else checkOptions(component, options, HIT_POINT_OPTION_KINDS);
    this.name = options.name ?? "";
    this.collider = options.collider;
    this.crossFadeTime = options.crossFadeTime ?? 0.1;
  }

  /** Length of the reaction: the last key time over the point's curves. */
  abstract get length(): number;

  /** True while a hit is playing. */
  get inProgress(): boolean {
    return this.active;
  }

  /** @internal Starts a hit; false when the curves are empty (length 0). */
  _hit(force: ReadonlyVec3, point: ReadonlyVec3): boolean {
    const length = this.length;
    if (!(length > 0)) return false;
    this._length = length;
    this.onCrossFadeStart(this.active);
    this.crossFader = this.crossFadeTime > 0 ? 0 : 1;
    this.timer = 0;
    // field by field: doubles handed to `set` are boxed when V8 does not inline it
    setVector3Fields(this.force, force);
    setVector3Fields(this.point, point);
    this.onHit();
    this.active = true;
    return true;
  }

  /** @internal Advances the timer by the clock's delta time and computes this frame's values; false when idle. */
  _advance(clock: { readonly deltaTime: number }, frame: CharacterFrame): boolean {
    this._advanced = this.active;
    if (!this.active) return false;
    const dt = clock.deltaTime;
    const length = this._length;
    this.timer = Math.min(this.timer + dt, length);
    this.crossFader = this.crossFadeTime > 0 ? Math.min(1, this.crossFader + dt / this.crossFadeTime) : 1;
    this.onAdvance(frame);
    // the last frame is applied at the curves' end; the next adds nothing
    if (this.timer >= length) this.active = false;
    return true;
  }

  /** Stops the reaction at once. */
  stop(): void {
    this.active = false;
    this._advanced = false;
    this.onStop();
  }

  /** Stores the values the new hit fades from (`wasActive` false: the previous hit ended, fade from rest). */
  protected abstract onCrossFadeStart(wasActive: boolean): void;
  /** Hit-time set-up (once per hit; may allocate). */
  protected abstract onHit(): void;
  /** Computes the links' current values at {@link timer}. */
  protected abstract onAdvance(frame: CharacterFrame): void;
  /** Clears the links' current values. */
  protected abstract onStop(): void;
}

/** Options of {@link HitPointEffector}. */
export interface HitPointEffectorOptions extends HitPointOptions {
  /** Offset along the force per unit force over time (default: up to 1 at 0.1 s, back to 0 at 0.5 s). */
  offsetInForceDirection?: Curve;
  /** Offset along the character's up per unit |force| over time (default: zero, 0.5 s). */
  offsetInUpDirection?: Curve;
  /** The effectors moved and their weights (default weight 1). */
  effectorLinks?: readonly EffectorLinkInit[];
}

/** The kinds of {@link HitPointEffectorOptions}, for the check at create. */
export const HIT_POINT_EFFECTOR_OPTION_KINDS: OptionKinds<HitPointEffectorOptions> = {
  ...HIT_POINT_OPTION_KINDS,
  offsetInForceDirection: "object",
  offsetInUpDirection: "object",
  effectorLinks: eachOf(EFFECTOR_LINK_INIT_KINDS),
};

const tTarget = new Vec3();

/**
 * Hit reaction by effector offsets: offset(t) = offsetInForceDirection(t) × force + offsetInUpDirection(t)
 * × up × |force| (up: the character's), × each link's weight; a new hit cross-fades linearly from the
 * previous offset over `crossFadeTime`.
 */
export class HitPointEffector extends HitPoint {
  /** Offset along the force per unit force over time. */
  offsetInForceDirection: Curve;
  /** Offset along the character's up per unit |force| over time. */
  offsetInUpDirection: Curve;
  /** The effectors moved. */
  readonly effectorLinks: HitEffectorLink[];

  /** Creates the hit point. */
  constructor(options: HitPointEffectorOptions) {
    super(options, HIT_POINT_EFFECTOR_OPTION_KINDS, "HitPointEffector");
    this.offsetInForceDirection =
      options.offsetInForceDirection ??
      new Curve([
        { time: 0, value: 0 },
        { time: 0.1, value: 1, inTangent: 0, outTangent: 0 },
        { time: 0.5, value: 0, inTangent: 0, outTangent: 0 },
      ]);
    this.offsetInUpDirection = options.offsetInUpDirection ?? Curve.linear(0, 0, 0.5, 0);
    this.effectorLinks = (options.effectorLinks ?? []).map((l) => new HitEffectorLink(l.effector, l.weight ?? 1));
  }

  override get length(): number {
    return Math.max(this.offsetInForceDirection.duration, this.offsetInUpDirection.duration);
  }

  protected override onCrossFadeStart(wasActive: boolean): void {
    const links = this.effectorLinks;
    for (let i = 0; i < links.length; i++) {
      const l = links[i]!;
      if (wasActive) l._last.copyFrom(l.current);
      else l._last.setAll(0);
    }
  }

  protected override onHit(): void {}

  protected override onAdvance(frame: CharacterFrame): void {
    io.a = this.timer;
    this.offsetInForceDirection.evaluateInto(io);
    const f = io.b;
    this.offsetInUpDirection.evaluateInto(io);
    const force = this.force;
    const u = io.b * Math.sqrt(force.x * force.x + force.y * force.y + force.z * force.z);
    const up = frame.up;
    // the curves' offsets are lengths at the size of create (see frame.lengthScale)
    const k = frame.lengthScale;
    const fx = (this.force.x * f + up.x * u) * k;
    const fy = (this.force.y * f + up.y * u) * k;
    const fz = (this.force.z * f + up.z * u) * k;
    const c = this.crossFader;
    const links = this.effectorLinks;
    for (let i = 0; i < links.length; i++) {
      const l = links[i]!;
      // field by field: a computed double handed to `set` is boxed whenever V8 does not inline it
      const w = l.weight;
      tTarget.x = fx * w;
      tTarget.y = fy * w;
      tTarget.z = fz * w;
      const last = l._last;
      // lerp(last, target, c), exact at c = 1
      if (c < 1) {
        tTarget.x = last.x + (tTarget.x - last.x) * c;
        tTarget.y = last.y + (tTarget.y - last.y) * c;
        tTarget.z = last.z + (tTarget.z - last.z) * c;
      }
      setVector3Fields(l.current, tTarget);
    }
  }

  protected override onStop(): void {
    for (const l of this.effectorLinks) l.current.setAll(0);
  }
}

/** Options of {@link HitPointBone}. */
export interface HitPointBoneOptions extends HitPointOptions {
  /**
   * Angle in degrees over time about cross(force, point − collider centre) (default: up to 10° at 0.1 s, 0 at 0.5 s).
   */
  aroundCenterOfMass?: Curve;
  /** The bones turned and their weights (default weight 1). */
  boneLinks?: readonly { bone: Bone; weight?: number }[];
}

/** The kinds of a {@link HitPointBoneOptions.boneLinks} entry, for the check at create. */
const BONE_LINK_INIT_KINDS: OptionKinds<NonNullable<HitPointBoneOptions["boneLinks"]>[number]> = {
  bone: "object",
  weight: "number",
};

/** The kinds of {@link HitPointBoneOptions}, for the check at create. */
export const HIT_POINT_BONE_OPTION_KINDS: OptionKinds<HitPointBoneOptions> = {
  ...HIT_POINT_OPTION_KINDS,
  aroundCenterOfMass: "object",
  boneLinks: eachOf(BONE_LINK_INIT_KINDS),
};

const tAxis = new Vec3();
const hitCentre = new Vec3();
const hitLever = new Vec3();
const tQ = new Quat();
const fader = new NumberRef();

/**
 * Hit reaction by bone rotation after the solve: each linked bone turns in the world by
 * aroundCenterOfMass(t) × link weight degrees about cross(force, point − centre), where centre is the
 * collider's bounding-box centre at the hit (FinalIK uses the rigidbody's centre of mass). A new hit
 * cross-fades (slerp) from the previous rotation.
 */
export class HitPointBone extends HitPoint {
  /** Angle in degrees over time. */
  aroundCenterOfMass: Curve;
  /** The bones turned. */
  readonly boneLinks: HitBoneLink[];
  /** The rotation axis of the last hit (world, unit; zero when force and lever are parallel). */
  readonly axis = new Vector3();

  /** Creates the hit point. */
  constructor(options: HitPointBoneOptions) {
    super(options, HIT_POINT_BONE_OPTION_KINDS, "HitPointBone");
    this.aroundCenterOfMass =
      options.aroundCenterOfMass ??
      new Curve([
        { time: 0, value: 0 },
        { time: 0.1, value: 10, inTangent: 0, outTangent: 0 },
        { time: 0.5, value: 0, inTangent: 0, outTangent: 0 },
      ]);
    this.boneLinks = (options.boneLinks ?? []).map((l) => new HitBoneLink(l.bone, l.weight ?? 1));
  }

  override get length(): number {
    return this.aroundCenterOfMass.duration;
  }

  protected override onCrossFadeStart(wasActive: boolean): void {
    const links = this.boneLinks;
    for (let i = 0; i < links.length; i++) {
      const l = links[i]!;
      if (wasActive) {
        const c = l.current;
        l._last.x = c.x;
        l._last.y = c.y;
        l._last.z = c.z;
        l._last.w = c.w;
      } else {
        l._last.x = l._last.y = l._last.z = 0;
        l._last.w = 1;
      }
    }
  }

  protected override onHit(): void {
    hitCentre.x = hitCentre.y = hitCentre.z = 0;
    const c = this.collider;
    if (c !== null) {
      c.computeWorldMatrix(true);
      const w = c.getBoundingInfo().boundingBox.centerWorld;
      hitCentre.x = w.x;
      hitCentre.y = w.y;
      hitCentre.z = w.z;
    }
    // field by field into module scratch: a hit a few frames apart is the frame's garbage too
    const p = this.point;
    hitLever.x = p.x - hitCentre.x;
    hitLever.y = p.y - hitCentre.y;
    hitLever.z = p.z - hitCentre.z;
    const f = this.force;
    const a = this.axis;
    const x = f.y * hitLever.z - f.z * hitLever.y;
    const y = f.z * hitLever.x - f.x * hitLever.z;
    const z = f.x * hitLever.y - f.y * hitLever.x;
    const l = Math.sqrt(x * x + y * y + z * z);
    if (l > 1e-12 && Number.isFinite(l)) {
      const s = 1 / l;
      a.x = x * s;
      a.y = y * s;
      a.z = z * s;
    } else a.x = a.y = a.z = 0;
  }

  protected override onAdvance(): void {
    io.a = this.timer;
    this.aroundCenterOfMass.evaluateInto(io);
    const angle = io.b * DEG;
    tAxis.x = this.axis.x;
    tAxis.y = this.axis.y;
    tAxis.z = this.axis.z;
    const links = this.boneLinks;
    for (let i = 0; i < links.length; i++) {
      const l = links[i]!;
      // the angle written out and the fader through a NumberRef: a computed double handed to a call V8 does
      // not inline is boxed (16 B a frame a link, seen in a scene with every hook of the IK)
      const half = 0.5 * angle * l.weight;
      const sh = Math.sin(half);
      tQ.x = tAxis.x * sh;
      tQ.y = tAxis.y * sh;
      tQ.z = tAxis.z * sh;
      tQ.w = Math.cos(half);
      if (this.crossFader < 1) {
        fader.value = this.crossFader;
        slerpByRef(tQ, l._last, tQ, fader);
      }
      setQuaternionFields(l.current, tQ);
    }
  }

  protected override onStop(): void {
    for (const l of this.boneLinks) l.current.set(0, 0, 0, 1);
  }
}

/** Options of {@link HitReaction}. */
export interface HitReactionOptions extends OffsetModifierOptions {
  /** Hit points reacting by effector offsets. */
  effectorHitPoints?: HitPointEffector[];
  /** Hit points reacting by bone rotations. */
  boneHitPoints?: HitPointBone[];
}

/** The kinds of {@link HitReactionOptions}, for the check at create. */
export const HIT_REACTION_OPTION_KINDS: OptionKinds<HitReactionOptions> = {
  ...OFFSET_MODIFIER_OPTION_KINDS,
  effectorHitPoints: "array",
  boneHitPoints: "array",
};

const tBone = new Quat();
const tDelta = new Quat();
const tW = new Quat();

/**
 * Procedural hit reactions (FinalIK's HitReaction). `hit(collider, force, point)` starts every hit point
 * whose collider is `collider`: effector hit points add offsets before the solve (see
 * {@link HitPointEffector}), bone hit points turn bones after it (see {@link HitPointBone}), both × the
 * modifier's weight. Bone rotations go through the IK's rig, so they are written with the solve and undone
 * by FixTransforms/the animation next frame (a bone nothing restores would keep turning: use animated or
 * IK-mapped bones).
 *
 * ```ts
 * const hr = new HitReaction(ik, {
 * effectorHitPoints: [new HitPointEffector({ collider: chestBox, effectorLinks: [{ effector: FullBodyBipedEffector.Body
 * }] })],
 * });
 * hr.hit(chestBox, ray.direction.scale(0.3), pick.pickedPoint);
 * ```
 */
export class HitReaction extends OffsetModifier {
  /** Hit points reacting by effector offsets. */
  readonly effectorHitPoints: HitPointEffector[];
  /** Hit points reacting by bone rotations (after the solve). */
  readonly boneHitPoints: HitPointBone[];

  /** Attaches to `ik`. */
  constructor(ik: FullBodyBipedIK, options: HitReactionOptions = {}) {
    super(ik, options, HIT_REACTION_OPTION_KINDS);
    this.effectorHitPoints = options.effectorHitPoints ?? [];
    this.boneHitPoints = options.boneHitPoints ?? [];
    this.addPostUpdate(() => this.afterSolve());
  }

  /** The class name, as Babylon's own objects report it. */
  override getClassName(): string {
    return "HitReaction";
  }

  /** True while any hit point is playing. */
  get inProgress(): boolean {
    for (const p of this.effectorHitPoints) if (p.inProgress) return true;
    for (const p of this.boneHitPoints) if (p.inProgress) return true;
    return false;
  }

  /**
   * Hits every hit point whose collider is `collider` with `force` (world; for effector hit points its
   * length scales the reaction, bone hit points use only its direction, as in FinalIK) at `point` (world). Returns how
   * many hit points were started; 0 (with a warning on the IK's
   * warning channel) when none has this collider.
   */
  hit(collider: AbstractMesh, force: ReadonlyVec3, point: ReadonlyVec3): number {
    let n = 0;
    // indexed: a hit is too rare for V8 to optimise, and unoptimised for-of allocates an iterator and its results
    const eps = this.effectorHitPoints;
    for (let i = 0; i < eps.length; i++) if (eps[i]!.collider === collider && eps[i]!._hit(force, point)) n++;
    const bps = this.boneHitPoints;
    for (let i = 0; i < bps.length; i++) if (bps[i]!.collider === collider && bps[i]!._hit(force, point)) n++;
    if (n === 0)
      this.ik.solver.inner.warn(
        `hitReaction:${collider.name}`,
        `HitReaction: no hit point with curves has the collider ${collider.name}; the hit was ignored.`,
      );
    return n;
  }

  /** Stops every reaction at once. */
  stop(): void {
    for (const p of this.effectorHitPoints) p.stop();
    for (const p of this.boneHitPoints) p.stop();
  }

  protected override onModifyOffset(): void {
    this.scalars.s = this.clock.weight;
    const eps = this.effectorHitPoints;
    for (let i = 0; i < eps.length; i++) {
      const p = eps[i]!;
      if (!p._advance(this.clock, this.frame)) continue;
      const links = p.effectorLinks;
      for (let k = 0; k < links.length; k++) this.addOffsetScaled(links[k]!.effector, links[k]!.current);
    }
    const bps = this.boneHitPoints;
    for (let i = 0; i < bps.length; i++) bps[i]!._advance(this.clock, this.frame);
  }

  private afterSolve(): void {
    const rig = this.ik.rig;
    // the turns go straight into the rig, so the IK's master weight scales them here, as the solver does the offsets
    const master = this.ik.solver.inner.ikPositionWeight;
    const w = this.clock.weight * (master > 0 ? (master < 1 ? master : 1) : 0);
    if (!(w > 0)) return;
    let changed = false;
    const bps = this.boneHitPoints;
    for (let i = 0; i < bps.length; i++) {
      const p = bps[i]!;
      // only points that ran this update (one that finished in it still applies its last value)
      if (!p._advanced) continue;
      const links = p.boneLinks;
      for (let k = 0; k < links.length; k++) {
        const l = links[k]!;
        const id = rig.idOf(l.bone);
        if (id <= 0) {
          if (l._warned) continue;
          l._warned = true;
          this.ik.solver.inner.warn(
            `hitReaction:bone:${l.bone.name}`,
            `HitReaction: bone ${l.bone.name} is not one the IK reads (a referenced bone or an ancestor of one); ` +
              `its hit rotation is skipped.`,
          );
          continue;
        }
        tW.x = l.current.x;
        tW.y = l.current.y;
        tW.z = l.current.z;
        tW.w = l.current.w;
        if (w < 1) {
          fader.value = w;
          slerpByRef(tW, IDENTITY, tW, fader);
        }
        worldDeltaToComponent(rig, tW, tDelta);
        multiply(tBone, tDelta, rig.getRotation(id, tBone));
        rig.setRotation(id, tBone);
        changed = true;
      }
    }
    // written now so the result does not depend on whether the IK writes before or after onPostUpdateObservable
    if (changed) rig.write();
  }
}

const IDENTITY = new Quat();
