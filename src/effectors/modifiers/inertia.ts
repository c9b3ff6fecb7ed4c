/**
 * FinalIK's Inertia: body parts that follow their animated position lazily, as effector offsets.
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { Vec3, copy, sub, zero } from "../../math/vec3.js";
import { type CharacterFrame, worldPositionOf } from "./frame.js";
import {
  EFFECTOR_LINK_INIT_KINDS,
  type EffectorLink,
  type EffectorLinkInit,
  type OffsetLimits,
  OFFSET_MODIFIER_OPTION_KINDS,
  OffsetModifier,
  type OffsetModifierOptions,
} from "./offset-modifier.js";
import { type OptionKinds, eachOf } from "../../babylon/option-check.js";

/** What {@link InertiaBody}'s constructor takes. */
export interface InertiaBodyInit {
  /** The node (or bone) whose motion is followed lazily. */
  transform: TransformNode | Bone;
  /** The effectors moved and their weights (default weight 1). */
  effectorLinks: readonly EffectorLinkInit[];
  /** Stiffness of the follow, 1/s (default 10). */
  speed?: number;
  /** How fast the follow velocity changes, 1/s (default 3). */
  acceleration?: number;
  /** [0, 1] Share of the transform's own displacement taken at once each frame (default 0). */
  matchVelocity?: number;
  /** Drift of the lazy point along the character's up, world units per second (default 0; negative sinks). */
  gravity?: number;
}

/** The kinds of {@link InertiaBodyInit}, for the check at create of {@link Inertia}'s `bodies`. */
export const INERTIA_BODY_INIT_KINDS: OptionKinds<InertiaBodyInit> = {
  transform: "object",
  effectorLinks: eachOf(EFFECTOR_LINK_INIT_KINDS),
  speed: "number",
  acceleration: "number",
  matchVelocity: "number",
  gravity: "number",
};

/**
 * A lazy point following a node: each frame (dt seconds)
 * 1. velocity ← lerp(velocity, (position − lazyPoint) × speed, clamp01(dt × acceleration)),
 * 2. lazyPoint += velocity × dt + (position − last position) × matchVelocity + up × gravity × dt,
 * 3. each linked effector's offset += (lazyPoint − position) × link weight × the modifier's weight.
 * Steps 1–2 run in substeps of at most 1/240 s (the node moving linearly across the frame),
 * so the motion is the same at 30 and 144 FPS within a few percent.
 *
 * The point starts on the node; with speed 10 and acceleration 3 it lags a moving node and settles with a
 * slight overshoot when the node stops.
 */
export class InertiaBody {
  /** The node (or bone) followed. */
  transform: TransformNode | Bone;
  /** The effectors moved and their weights. */
  readonly effectorLinks: EffectorLink[];
  /** Stiffness of the follow, 1/s. */
  speed: number;
  /** How fast the follow velocity changes, 1/s. */
  acceleration: number;
  /** [0, 1] Share of the node's own displacement taken at once each frame. */
  matchVelocity: number;
  /** Drift of the lazy point along the character's up, world units per second. */
  gravity: number;
  /** The lazy point (world). */
  readonly lazyPoint = new Vec3();
  /** Its velocity (world units per second). */
  readonly velocity = new Vec3();
  /** The followed node's position last frame. */
  readonly lastPosition = new Vec3();
  /** The offset of the last frame (lazyPoint − position, world). */
  readonly offset = new Vec3();
  private started = false;

  /** Creates a body. */
  constructor(init: InertiaBodyInit) {
    this.transform = init.transform;
    this.effectorLinks = init.effectorLinks.map((l) => ({ effector: l.effector, weight: l.weight ?? 1 }));
    this.speed = init.speed ?? 10;
    this.acceleration = init.acceleration ?? 3;
    this.matchVelocity = init.matchVelocity ?? 0;
    this.gravity = init.gravity ?? 0;
  }

  /** Puts the lazy point back on the node (at the next update) with no velocity. */
  reset(): void {
    this.started = false;
  }

  /** @internal One step of the clock's delta time; returns the offset in {@link offset}. */
  _update(ik: FullBodyBipedIK, clock: { readonly deltaTime: number }, frame: CharacterFrame): void {
    const dt = clock.deltaTime;
    const p = worldPositionOf(ik, this.transform, tPos);
    if (!this.started) {
      copy(this.lazyPoint, p);
      copy(this.lastPosition, p);
      zero(this.velocity);
      this.started = true;
    }
    const lp = this.lazyPoint;
    const v = this.velocity;
    const last = this.lastPosition;
    // substeps, the node moving linearly: one Euler step a frame lagged a third less at 30 FPS than at 144
    // (at most 240, so a manual update with a long dt stays cheap)
    const n = Math.min(240, Math.max(1, Math.ceil(dt / INERTIA_STEP - 1e-9)));
    const h = dt / n;
    // clamp01 written out (see ARCHITECTURE.md, "Doubles across calls")
    const a0 = h * this.acceleration;
    const a = a0 > 0 ? (a0 < 1 ? a0 : 1) : 0;
    const s = this.speed;
    const m = this.matchVelocity;
    const g = this.gravity * h * frame.lengthScale;
    const up = frame.up;
    const dx = (p.x - last.x) / n;
    const dy = (p.y - last.y) / n;
    const dz = (p.z - last.z) / n;
    for (let i = 1; i <= n; i++) {
      const px = last.x + dx * i;
      const py = last.y + dy * i;
      const pz = last.z + dz * i;
      v.x += ((px - lp.x) * s - v.x) * a;
      v.y += ((py - lp.y) * s - v.y) * a;
      v.z += ((pz - lp.z) * s - v.z) * a;
      lp.x += v.x * h + dx * m + up.x * g;
      lp.y += v.y * h + dy * m + up.y * g;
      lp.z += v.z * h + dz * m + up.z * g;
    }
    // a non-finite setting (speed, gravity…) must not stay in the lazy point: it restarts on the node
    if (!Number.isFinite(lp.x + lp.y + lp.z + v.x + v.y + v.z)) {
      copy(lp, p);
      zero(v);
    }
    copy(this.lastPosition, p);
    sub(this.offset, lp, p);
  }
}

const tPos = new Vec3();

/** Longest integration step of an {@link InertiaBody}, seconds: a frame is split into steps this long at most. */
const INERTIA_STEP = 1 / 240;

/** Options of {@link Inertia}. */
export interface InertiaOptions extends OffsetModifierOptions {
  /** The bodies. */
  bodies?: readonly (InertiaBody | InertiaBodyInit)[];
  /** Limits applied to the effectors' offsets after the bodies (root space). */
  limits?: readonly OffsetLimits[];
}

/** The kinds of {@link InertiaOptions}, for the check at create. */
export const INERTIA_OPTION_KINDS: OptionKinds<InertiaOptions> = {
  ...OFFSET_MODIFIER_OPTION_KINDS,
  bodies: eachOf(INERTIA_BODY_INIT_KINDS),
  limits: "array",
};

/**
 * Inertia for body parts (FinalIK's Inertia): each {@link InertiaBody} follows its node lazily and offsets
 * its effectors by how far the lazy point is from the node; then {@link limits} clamp the effectors'
 * offsets in the character's space.
 *
 * ```ts
 * const inertia = new Inertia(ik, { bodies: [{ transform: pelvisNode, effectorLinks: [{ effector:
 * FullBodyBipedEffector.Body }] }] });
 * ```
 */
export class Inertia extends OffsetModifier {
  /** The bodies. */
  readonly bodies: InertiaBody[];
  /** Limits applied to the effectors' offsets after the bodies. */
  readonly limits: OffsetLimits[];

  /** Attaches to `ik`. */
  constructor(ik: FullBodyBipedIK, options: InertiaOptions = {}) {
    super(ik, options, INERTIA_OPTION_KINDS);
    this.followsMotion = true;
    this.bodies = (options.bodies ?? []).map((b) => (b instanceof InertiaBody ? b : new InertiaBody(b)));
    this.limits = [...(options.limits ?? [])];
  }

  /** The class name, as Babylon's own objects report it. */
  override getClassName(): string {
    return "Inertia";
  }

  /** Puts every lazy point back on its node. */
  resetBodies(): void {
    // indexed: it runs after a pause, rarely enough to be unoptimised, where for…of allocates its iterator
    for (let i = 0; i < this.bodies.length; i++) this.bodies[i]!.reset();
  }

  /** The lazy points restart on their nodes: the character may have walked away meanwhile. */
  protected override onResume(): void {
    this.resetBodies();
  }

  protected override onModifyOffset(): void {
    this.applyBodies(this.bodies);
    this.applyLimits(this.limits);
  }
}
