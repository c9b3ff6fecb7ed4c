/**
 * FinalIK's Recoil: procedural recoil of a weapon held in one or both hands, as effector offsets along a
 * weight curve and a hand rotation after the solve.
 * @module
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { setQuaternionFields } from "../../babylon/babylon-fields.js";
import { decomposeRotationToRef } from "../../babylon/matrix-decompose.js";
import { Quat, copyQuat, multiply, rotateVector, slerpByRef } from "../../math/quat.js";
import { type ReadonlyVec3, Vec3, copy } from "../../math/vec3.js";
import { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { Curve } from "../../math/curve.js";
import { NumberRef } from "../../math/number-ref.js";
import {
  CharacterFrame,
  type Scalars,
  eulerDegreesScaled,
  setSum,
  worldDeltaToComponent,
  rotationFromHalfAngles,
  worldMatrixOf,
} from "./frame.js";
import { moduleMatrix } from "../../babylon/module-matrix.js";
import {
  EFFECTOR_LINK_INIT_KINDS,
  type EffectorLink,
  type EffectorLinkInit,
  OFFSET_MODIFIER_OPTION_KINDS,
  OffsetModifier,
  type OffsetModifierOptions,
} from "./offset-modifier.js";
import { type OptionKinds, eachOf } from "../../babylon/option-check.js";

const DEG = Math.PI / 180;

/** Which hand holds the weapon (the primary hand). */
export enum RecoilHandedness {
  /** The right hand. */
  Right = 0,
  /** The left hand. */
  Left = 1,
}

/** What {@link RecoilOffset}'s constructor takes. */
export interface RecoilOffsetInit {
  /** Offset at recoil weight 1, in the aim space (x right, y up, z forward), world units. */
  offset: ReadonlyVec3;
  /** [0, 1] How much of the offset still running carries into the next shot (default 1). */
  additivity?: number;
  /** Longest carried-over offset, world units (default 0.2 × the character's scale). */
  maxAdditiveOffsetMag?: number;
  /** Effectors moved and their weights (default weight 1). */
  effectorLinks: readonly EffectorLinkInit[];
}

/** The kinds of {@link RecoilOffsetInit}, for the check at create of {@link Recoil}'s `offsets`. */
export const RECOIL_OFFSET_INIT_KINDS: OptionKinds<RecoilOffsetInit> = {
  offset: "object",
  additivity: "number",
  maxAdditiveOffsetMag: "number",
  effectorLinks: eachOf(EFFECTOR_LINK_INIT_KINDS),
};

/**
 * One offset of a {@link Recoil}: `offset` × recoil weight in the aim space, plus what the previous shot
 * left (× additivity, at most maxAdditiveOffsetMag long, fading linearly over the new shot).
 */
export class RecoilOffset {
  /** Offset at recoil weight 1 in the aim space, world units. */
  readonly offset: Vector3;
  /** [0, 1] How much of the offset still running carries into the next shot. */
  additivity: number;
  /** Longest carried-over offset, world units; null: 0.2 × the character's scale. */
  maxAdditiveOffsetMag: number | null;
  /** Effectors moved and their weights. */
  readonly effectorLinks: EffectorLink[];
  /** The offset of the last frame in the aim space (before the modifier's weight and link weights). */
  readonly current = new Vector3();
  /** The offset carried over from the previous shot at the current shot's start (aim space). */
  readonly additiveOffset = new Vector3();

  /** Creates an offset. */
  constructor(init: RecoilOffsetInit) {
    this.offset = new Vector3(init.offset.x, init.offset.y, init.offset.z);
    this.additivity = init.additivity ?? 1;
    this.maxAdditiveOffsetMag = init.maxAdditiveOffsetMag ?? null;
    this.effectorLinks = init.effectorLinks.map((l) => ({ effector: l.effector, weight: l.weight ?? 1 }));
  }
}

/** Options of {@link Recoil}. */
export interface RecoilOptions extends OffsetModifierOptions {
  /** The offsets (default none). */
  offsets?: readonly (RecoilOffset | RecoilOffsetInit)[];
  /** Recoil weight over time; its last key is the recoil's length (default: 0 → 1 at 0.05 s → 0 at 0.35 s). */
  recoilWeight?: Curve;
  /** Random added to the magnitude of each shot, ± this (default 0.1). */
  magnitudeRandom?: number;
  /** Random rotation of the aim space per shot, ± these Euler angles in degrees (default zero). */
  rotationRandom?: ReadonlyVec3;
  /** Rotation of the primary hand at recoil weight 1, Euler degrees in the aim space (default zero). */
  handRotationOffset?: ReadonlyVec3;
  /** Seconds to blend from the running recoil into a new shot (default 0: no blend). */
  blendTime?: number;
  /** Which hand holds the weapon (default Right). */
  handedness?: RecoilHandedness;
  /** Keep the other hand on the weapon (default true). */
  twoHanded?: boolean;
  /**
   * World aim direction; null: the character's forward (default null). Stands in for FinalIK's aimIK. Copied
   * into {@link Recoil.aimDirection}, which is read every frame: to follow an aim that moves, update that
   * vector (`recoil.aimDirection.copyFrom(dir)`), not the one given here.
   */
  aimDirection?: ReadonlyVec3 | null;
  /**
   * Uniform random numbers in [0, 1) (default Math.random); inject a seeded one for determinism. Each fire()
   * takes four: V8 returns Math.random's numbers boxed (64 B a shot), a small generator it inlines costs nothing.
   */
  random?: () => number;
}

/** The kinds of {@link RecoilOptions}, for the check at create. */
export const RECOIL_OPTION_KINDS: OptionKinds<RecoilOptions> = {
  ...OFFSET_MODIFIER_OPTION_KINDS,
  offsets: eachOf(RECOIL_OFFSET_INIT_KINDS),
  recoilWeight: "object",
  magnitudeRandom: "number",
  rotationRandom: "object",
  handRotationOffset: "object",
  blendTime: "number",
  handedness: "number",
  twoHanded: "boolean",
  aimDirection: "object|null",
  random: "function",
};

const tWorld = new Vec3();
const tEuler = new Quat();
const tPrimary = new Vec3();
const tSecondary = new Vec3();
const tRel = new Vec3();
const tM1 = moduleMatrix();
const tM2 = moduleMatrix();
const tDelta = new Quat();
const tRot = new Quat();
const tHalfAngles = new Vec3();
const tPrimaryBefore = new Vec3();
const tPinned = new Quat();

/**
 * Procedural recoil (FinalIK's Recoil). `fire(magnitude)` starts a shot: for the length of
 * {@link recoilWeight}, w(t) = recoilWeight(t) × (magnitude ± magnitudeRandom) (blended from the previous
 * shot's w over blendTime), and each {@link RecoilOffset} adds `offset` × w (+ the carried-over part) in the
 * aim space to its effectors, × link weight × the modifier's weight. The aim space is the character's
 * frame (or {@link aimDirection} with the character's up) turned by a random rotation within
 * ±{@link rotationRandom}.
 *
 * After the solve the primary hand turns by {@link handRotationOffset} × w (in the aim space); when
 * {@link twoHanded}, the other hand moves with the primary hand's recoil (the shot's offset and rotation, about
 * the primary hand) and is pinned, by {@link pinWeight}, to its animated place and rotation relative to the
 * primary hand. The pin follows the recoil curve, so it enters and leaves with the shot: a pin in full at once
 * turned a hand that Inertia had moved off its grip by 30° in the shot's first frame.
 */
export class Recoil extends OffsetModifier {
  /** The offsets. */
  readonly offsets: RecoilOffset[];
  /** Recoil weight over time; its last key is the recoil's length. */
  recoilWeight: Curve;
  /** Random added to the magnitude of each shot, ± this. */
  magnitudeRandom: number;
  /** Random rotation of the aim space per shot, ± these Euler angles in degrees. */
  readonly rotationRandom: Vector3;
  /**
   * Rotation of the primary hand at recoil weight 1, Euler degrees (x, y, z about the aim space's right, up, forward).
   */
  readonly handRotationOffset: Vector3;
  /** Seconds to blend from the running recoil into a new shot. */
  blendTime: number;
  /** Which hand holds the weapon. */
  handedness: RecoilHandedness;
  /** Keep the other hand on the weapon. */
  twoHanded: boolean;
  /** World aim direction, read every frame (update it in place as the aim moves); null: the character's forward. */
  aimDirection: Vector3 | null;
  /** Uniform random numbers in [0, 1). */
  random: () => number;
  /** The magnitude of the running shot, randomised. */
  magnitudeMultiplier = 0;
  /** Seconds since the last shot, up to the recoil's length. */
  timer = 0;
  /** The recoil weight w of the last frame (magnitude included). */
  currentWeight = 0;
  /** The aim-space random rotation of the running shot. */
  readonly randomRotation = new Quaternion();
  /** The primary hand's world rotation offset of the last frame. */
  readonly handRotation = new Quaternion();
  /**
   * [0, 1] How much of its animated grip on the primary hand the other hand was pinned to in the last frame
   * ({@link twoHanded}): twice the recoil curve's value (without the magnitude), clamped to [0, 1], and at least
   * what the previous shot's pin had when this one was fired, fading over this shot (so rapid fire does not let go).
   */
  pinWeight = 0;
  private length = 0;
  private active = false;
  private blendWeight = 1;
  private blendFrom = 0;
  private handsPending = false;
  /** The pin weight when the running shot was fired (the previous shot's), fading over this shot. */
  private pinFrom = 0;
  /** The pin as a ref for slerpByRef (a double handed to a call may be boxed). */
  private readonly pinRef = new NumberRef();
  private readonly space = new CharacterFrame();
  /** Secondary hand rotation relative to the primary (animated, this frame). */
  private readonly relativeRotation = new Quaternion();

  /** Attaches to `ik`. */
  constructor(ik: FullBodyBipedIK, options: RecoilOptions = {}) {
    super(ik, options, RECOIL_OPTION_KINDS);
    this.offsets = (options.offsets ?? []).map((o) => (o instanceof RecoilOffset ? o : new RecoilOffset(o)));
    this.recoilWeight =
      options.recoilWeight ??
      new Curve([
        { time: 0, value: 0 },
        { time: 0.05, value: 1, inTangent: 0, outTangent: 0 },
        { time: 0.35, value: 0, inTangent: 0, outTangent: 0 },
      ]);
    this.magnitudeRandom = options.magnitudeRandom ?? 0.1;
    this.rotationRandom = new Vector3(
      options.rotationRandom?.x ?? 0,
      options.rotationRandom?.y ?? 0,
      options.rotationRandom?.z ?? 0,
    );
    this.handRotationOffset = new Vector3(
      options.handRotationOffset?.x ?? 0,
      options.handRotationOffset?.y ?? 0,
      options.handRotationOffset?.z ?? 0,
    );
    this.blendTime = options.blendTime ?? 0;
    this.handedness = options.handedness ?? RecoilHandedness.Right;
    this.twoHanded = options.twoHanded ?? true;
    const a = options.aimDirection ?? null;
    this.aimDirection = a === null ? null : new Vector3(a.x, a.y, a.z);
    this.random = options.random ?? Math.random;
    this.addPostUpdate(() => this.afterSolve());
  }

  /** The class name, as Babylon's own objects report it. */
  override getClassName(): string {
    return "Recoil";
  }

  /** True while a shot is playing. */
  get inProgress(): boolean {
    return this.active;
  }

  /** The recoil's length in seconds (the last key of {@link recoilWeight}). */
  get recoilLength(): number {
    return this.recoilWeight.duration;
  }

  /**
   * Fires a shot of `magnitude` (1: the offsets as given). Randomises the magnitude (± magnitudeRandom)
   * and the aim-space rotation (± rotationRandom), carries the running offsets over by their additivity
   * and restarts the recoil curve. Takes four numbers from {@link random}.
   */
  fire(magnitude: number): void {
    this.recoilWeight.durationInto(this.scalars);
    const length = this.scalars.b;
    if (!(length > 0)) {
      this.ik.solver.inner.warn(
        "recoil:length",
        "Recoil: the recoilWeight curve has no length (its last key is at time 0); fire() is ignored.",
      );
      return;
    }
    const r = this.random;
    this.magnitudeMultiplier = magnitude + this.magnitudeRandom * (2 * r() - 1);
    // Quaternion.RotationYawPitchRollToRef(y, x, z) and the vectors written out: fire() runs within frames
    // (see ARCHITECTURE.md, "Doubles across calls")
    const rr = this.rotationRandom;
    tHalfAngles.x = rr.x * (2 * r() - 1) * DEG * 0.5;
    tHalfAngles.y = rr.y * (2 * r() - 1) * DEG * 0.5;
    tHalfAngles.z = rr.z * (2 * r() - 1) * DEG * 0.5;
    rotationFromHalfAngles(tRot, tHalfAngles);
    setQuaternionFields(this.randomRotation, tRot);
    const offsets = this.offsets;
    for (let i = 0; i < offsets.length; i++) {
      const o = offsets[i]!;
      const a = o.additiveOffset;
      if (this.active && o.additivity > 0) {
        // through a field: a local merging the nullable field with a computed double held it boxed
        const sc = this.scalars;
        const given = o.maxAdditiveOffsetMag;
        if (given === null) {
          this.characterScaleToScalars();
          sc.s = 0.2 * sc.s;
        } else sc.s = given;
        const max = sc.s;
        const k = o.additivity;
        const c = o.current;
        a._x = c._x * k;
        a._y = c._y * k;
        a._z = c._z * k;
        const l = Math.sqrt(a._x * a._x + a._y * a._y + a._z * a._z);
        if (l > max) {
          const s = max > 0 ? max / l : 0;
          a._x *= s;
          a._y *= s;
          a._z *= s;
        }
        a._isDirty = true;
      } else {
        a.setAll(0);
      }
    }
    this.pinFrom = this.active ? this.pinWeight : 0;
    if (this.active && this.blendTime > 0) {
      this.blendFrom = this.currentWeight;
      this.blendWeight = 0;
    } else {
      this.blendWeight = 1;
    }
    this.timer = 0;
    this.length = length;
    this.active = true;
  }

  /** Stops the recoil at once. */
  stop(): void {
    this.active = false;
    this.handsPending = false;
    this.currentWeight = 0;
    this.pinWeight = 0;
    for (const o of this.offsets) o.current.setAll(0);
  }

  protected override onModifyOffset(): void {
    this.handsPending = false;
    // no double is read before this: between shots the method runs once a frame doing nothing, too little for V8
    // to optimise it for thousands of frames, and unoptimised code boxes every double it loads (12 B a frame)
    if (!this.active) return;
    const deltaTime = this.clock.deltaTime;
    const length = this.length;
    this.timer = Math.min(this.timer + deltaTime, length);
    const sc = this.scalars;
    sc.a = this.timer;
    this.recoilWeight.evaluateInto(sc);
    const c = sc.b;
    let w = c * this.magnitudeMultiplier;
    if (this.blendWeight < 1) {
      this.blendWeight = this.blendTime > 0 ? Math.min(1, this.blendWeight + deltaTime / this.blendTime) : 1;
      w = this.blendFrom + (w - this.blendFrom) * this.blendWeight;
    }
    this.currentWeight = w;
    // the pin follows the curve (not the magnitude: a light shot still holds the grip), full from half of it, and
    // never drops below what the previous shot's had, fading over this one, so rapid fire without a blend keeps it
    const carried = this.pinFrom * (1 - this.timer / length);
    const pin = c > 0.5 ? 1 : c > 0 ? 2 * c : 0;
    this.pinWeight = pin > carried ? pin : carried;
    // what the primary hand's effector had before the recoil's offsets: the secondary hand keeps its own place
    // relative to that, where the pin lets go
    if (this.twoHanded) copy(tPrimaryBefore, this.primaryEffector().positionOffset);

    // the aim space, turned by the shot's random rotation
    // (this.frame is read afresh every update: turning it here touches nothing else)
    let space = this.frame;
    if (this.aimDirection !== null) {
      space = this.space.setAxes(this.aimDirection, this.frame.up, this.ik.scene.useRightHandedSystem);
      copy(space.position, this.frame.position);
      space.lengthScale = this.frame.lengthScale;
    }
    copyQuat(space.localRotation, this.randomRotation);

    const mw = this.clock.weight;
    sc.a = w;
    sc.b = 1 - this.timer / length;
    for (let i = 0; i < this.offsets.length; i++) {
      const o = this.offsets[i]!;
      // current = offset × w + carried-over × the part of the shot left
      combineOffset(o, sc);
      space.directionToWorld(o.current, tWorld);
      const links = o.effectorLinks;
      for (let k = 0; k < links.length; k++) {
        sc.s = links[k]!.weight * mw;
        this.addOffsetScaled(links[k]!.effector, tWorld);
      }
    }

    // the primary hand's rotation offset, in the world; it goes straight into the rig, so the IK's master weight
    // scales it here, as the solver does the offsets
    const master = this.ik.solver.inner.ikPositionWeight;
    sc.s = w * mw * (master > 0 ? (master < 1 ? master : 1) : 0);
    eulerDegreesScaled(tEuler, this.handRotationOffset, sc);
    // (the space's local rotation, the shot's random rotation, turns the axes it is given about)
    space.rotationToWorld(tEuler, this.handRotation);
    const hr = this.handRotation;
    if (!(Number.isFinite(hr.x) && Number.isFinite(hr.y) && Number.isFinite(hr.z) && Number.isFinite(hr.w))) {
      // ignored for the frame: a NaN rotation would reach the hand bone (and the secondary hand's offset)
      const o = this.handRotationOffset;
      if (!(Number.isFinite(o.x) && Number.isFinite(o.y) && Number.isFinite(o.z))) {
        this.ik.solver.inner.warn(
          "recoil:handRotationOffset",
          "Recoil: handRotationOffset is not finite; the hand's rotation offset is ignored for the frame.",
        );
      } else {
        this.ik.solver.inner.warn(
          "recoil:handRotation",
          "Recoil: the hand's rotation offset is not finite (rotationRandom, aimDirection or the recoil weight); " +
            "ignored for the frame.",
        );
      }
      hr.set(0, 0, 0, 1);
    }

    if (this.twoHanded) this.pinSecondaryHand();
    // at master weight 0 the bones are the animation's: the grip's pin would rewrite the off hand (by rounding)
    this.handsPending = master > 0;
    if (this.timer >= length) {
      this.active = false;
      // indexed: a shot's last frame is rare enough to run unoptimised, where for…of allocates its iterator
      for (let i = 0; i < this.offsets.length; i++) this.offsets[i]!.current.setAll(0);
    }
  }

  /** The effector of the hand holding the weapon. */
  private primaryEffector() {
    return this.ik.solver.getEffector(
      this.handedness === RecoilHandedness.Right ? FullBodyBipedEffector.RightHand : FullBodyBipedEffector.LeftHand,
    );
  }

  /**
   * Moves the secondary hand's effector with the primary hand's recoil (its offset from the recoil, and the hand
   * rotation about the primary hand) and, by {@link pinWeight}, to its animated place relative to the primary hand.
   */
  private pinSecondaryHand(): void {
    const r = this.ik.references;
    const right = this.handedness === RecoilHandedness.Right;
    const primaryBone = right ? r.rightHand : r.leftHand;
    const secondaryBone = right ? r.leftHand : r.rightHand;
    const primary = this.primaryEffector();
    const secondary = this.ik.solver.getEffector(
      right ? FullBodyBipedEffector.LeftHand : FullBodyBipedEffector.RightHand,
    );
    // animated relative rotation (secondary in the primary's frame; the parents' transforms cancel)
    worldMatrixOf(this.ik, primaryBone, tM1);
    worldMatrixOf(this.ik, secondaryBone, tM2);
    const m1 = tM1.m;
    const m2 = tM2.m;
    tPrimary.x = m1[12]!;
    tPrimary.y = m1[13]!;
    tPrimary.z = m1[14]!;
    tSecondary.x = m2[12]!;
    tSecondary.y = m2[13]!;
    tSecondary.z = m2[14]!;
    tM1.invertToRef(tM1);
    tM2.multiplyToRef(tM1, tM2);
    decomposeRotationToRef(tM2, this.relativeRotation);
    // secondary target = primary (with its offset) + hand rotation × (animated (secondary − primary) + the part of
    // the secondary's own offset beyond the primary's before the recoil that the pin leaves): at pin 1 the animated
    // grip, at 0 the hands' own relation carried rigidly by the primary's recoil
    const keep = 1 - this.pinWeight;
    const so = secondary.positionOffset;
    tRel.x = tSecondary.x - tPrimary.x + keep * (so.x - tPrimaryBefore.x);
    tRel.y = tSecondary.y - tPrimary.y + keep * (so.y - tPrimaryBefore.y);
    tRel.z = tSecondary.z - tPrimary.z + keep * (so.z - tPrimaryBefore.z);
    rotateVector(tRel, this.handRotation, tRel);
    // the secondary offset that puts it there: primary offset + primary + rel − secondary
    tRel.x += tPrimary.x - tSecondary.x;
    tRel.y += tPrimary.y - tSecondary.y;
    tRel.z += tPrimary.z - tSecondary.z;
    setSum(so, primary.positionOffset, tRel);
  }

  private afterSolve(): void {
    if (!this.handsPending) return;
    this.handsPending = false;
    const rig = this.ik.rig;
    const r = this.ik.references;
    const right = this.handedness === RecoilHandedness.Right;
    const p = rig.idOf(right ? r.rightHand : r.leftHand);
    const s = rig.idOf(right ? r.leftHand : r.rightHand);
    if (p <= 0 || s <= 0) return;
    const hr = this.handRotation;
    let changed = false;
    const turned = hr.x !== 0 || hr.y !== 0 || hr.z !== 0;
    if (turned) {
      worldDeltaToComponent(rig, hr, tDelta);
      multiply(tRot, tDelta, rig.getRotation(p, tRot));
      rig.setRotation(p, tRot);
      changed = true;
    }
    if (this.twoHanded) {
      // the animated grip on the primary hand, by the pin, from the solved hand turned with the primary
      multiply(tPinned, rig.getRotation(p, tRot), this.relativeRotation);
      rig.getRotation(s, tRot);
      if (turned) multiply(tRot, tDelta, tRot);
      this.pinRef.value = this.pinWeight;
      slerpByRef(tRot, tRot, tPinned, this.pinRef);
      rig.setRotation(s, tRot);
      changed = true;
    }
    // written now so the result does not depend on whether the IK writes before or after onPostUpdateObservable
    if (changed) rig.write();
  }
}

/** `o.current = o.offset × io.a + o.additiveOffset × io.b` (object arguments only: no boxed doubles). */
function combineOffset(o: RecoilOffset, io: Scalars): void {
  const w = io.a;
  const d = io.b;
  const a = o.additiveOffset;
  const f = o.offset;
  // the fields written directly, as setSum does (frame.ts): `set` not inlined would box the three doubles
  const c = o.current;
  c._x = f.x * w + a.x * d;
  c._y = f.y * w + a.y * d;
  c._z = f.z * w + a.z * d;
  c._isDirty = true;
}
