/**
 * FinalIK's Amplifier: amplifies the animated motion of body parts relative to other nodes, as effector
 * offsets.
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { Vec3, copy, zero } from "../../math/vec3.js";
import { type CharacterFrame, worldMatrixOf, worldPositionOf } from "./frame.js";
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

/** What {@link AmplifierBody}'s constructor takes. */
export interface AmplifierBodyInit {
  /** The node (or bone) whose motion is amplified. */
  transform: TransformNode | Bone;
  /** The node (or bone) the motion is measured relative to (e.g. the character root or the pelvis). */
  relativeTo: TransformNode | Bone;
  /** The effectors moved and their weights: offset = relative velocity × weight (seconds; default 1). */
  effectorLinks: readonly EffectorLinkInit[];
  /** Multiplier of the velocity along the character's up (default 1). */
  verticalWeight?: number;
  /** Multiplier of the velocity across the character's up (default 1). */
  horizontalWeight?: number;
  /** Smoothing speed of the velocity, 1/s; ≤ 0: no smoothing (default 3). */
  speed?: number;
}

const tPos = new Vec3();
const tRel = new Vec3();
const tM = moduleMatrix();
const tInv = moduleMatrix();

/** The kinds of {@link AmplifierBodyInit}, for the check at create of {@link Amplifier}'s `bodies`. */
export const AMPLIFIER_BODY_INIT_KINDS: OptionKinds<AmplifierBodyInit> = {
  transform: "object",
  relativeTo: "object",
  effectorLinks: eachOf(EFFECTOR_LINK_INIT_KINDS),
  verticalWeight: "number",
  horizontalWeight: "number",
  speed: "number",
};

/**
 * One amplified body part. Each frame (dt seconds):
 * 1. relative position = `transform`'s position in `relativeTo`'s frame (its inverse world matrix);
 * 2. relative velocity = its change / dt, smoothed: lerp(smoothed, velocity, 1 − e^(−dt × speed));
 * 3. world velocity = smoothed velocity through `relativeTo`'s world matrix, split along the character's
 *    up (× verticalWeight) and across it (× horizontalWeight);
 * 4. each linked effector's offset += world velocity × link weight × the modifier's weight.
 */
export class AmplifierBody {
  /** The node (or bone) whose motion is amplified. */
  transform: TransformNode | Bone;
  /** The node (or bone) the motion is measured relative to. */
  relativeTo: TransformNode | Bone;
  /** The effectors moved and their weights (seconds of velocity). */
  readonly effectorLinks: EffectorLink[];
  /** Multiplier of the velocity along the character's up. */
  verticalWeight: number;
  /** Multiplier of the velocity across the character's up. */
  horizontalWeight: number;
  /** Smoothing speed of the velocity, 1/s; ≤ 0: none. */
  speed: number;
  /** The smoothed relative velocity (in relativeTo's frame). */
  readonly smoothVelocity = new Vec3();
  /** The offset of the last frame at weight 1 (world velocity after the vertical/horizontal weights). */
  readonly offset = new Vec3();
  private readonly lastRelativePosition = new Vec3();
  private started = false;

  /** Creates a body. */
  constructor(init: AmplifierBodyInit) {
    this.transform = init.transform;
    this.relativeTo = init.relativeTo;
    this.effectorLinks = init.effectorLinks.map((l) => ({ effector: l.effector, weight: l.weight ?? 1 }));
    this.verticalWeight = init.verticalWeight ?? 1;
    this.horizontalWeight = init.horizontalWeight ?? 1;
    this.speed = init.speed ?? 3;
  }

  /** Forgets the last position (the next update measures no velocity). */
  reset(): void {
    this.started = false;
    zero(this.smoothVelocity);
  }

  /** @internal One step of the clock's delta time; returns the offset in {@link offset}. */
  _update(ik: FullBodyBipedIK, clock: { readonly deltaTime: number }, frame: CharacterFrame): void {
    const dt = clock.deltaTime;
    worldPositionOf(ik, this.transform, tPos);
    const m = worldMatrixOf(ik, this.relativeTo, tM).m;
    const inv = tM.invertToRef(tInv).m;
    // the position in relativeTo's frame (row vectors: p · M⁻¹)
    const px = tPos.x;
    const py = tPos.y;
    const pz = tPos.z;
    tRel.x = px * inv[0]! + py * inv[4]! + pz * inv[8]! + inv[12]!;
    tRel.y = px * inv[1]! + py * inv[5]! + pz * inv[9]! + inv[13]!;
    tRel.z = px * inv[2]! + py * inv[6]! + pz * inv[10]! + inv[14]!;
    const last = this.lastRelativePosition;
    if (!this.started) {
      copy(last, tRel);
      this.started = true;
    }
    const sv = this.smoothVelocity;
    // a paused frame (dt 0) keeps the smoothed velocity: a move while time stands still is no velocity
    if (dt > 0) {
      const vx = (tRel.x - last.x) / dt;
      const vy = (tRel.y - last.y) / dt;
      const vz = (tRel.z - last.z) / dt;
      // exponential easing: the same smoothing at any frame rate (clamped to [0, 1]: a NaN speed eases nothing;
      // written out, see ARCHITECTURE.md, "Doubles across calls")
      const e = 1 - Math.exp(-dt * this.speed);
      const a = this.speed <= 0 ? 1 : e > 0 ? (e < 1 ? e : 1) : 0;
      sv.x += (vx - sv.x) * a;
      sv.y += (vy - sv.y) * a;
      sv.z += (vz - sv.z) * a;
    }
    copy(last, tRel);
    // back to the world through relativeTo (its scale cancels with the inverse above)
    const wx = sv.x * m[0]! + sv.y * m[4]! + sv.z * m[8]!;
    const wy = sv.x * m[1]! + sv.y * m[5]! + sv.z * m[9]!;
    const wz = sv.x * m[2]! + sv.y * m[6]! + sv.z * m[10]!;
    const up = frame.up;
    const v = wx * up.x + wy * up.y + wz * up.z;
    const hw = this.horizontalWeight;
    const vw = this.verticalWeight;
    const o = this.offset;
    o.x = (wx - up.x * v) * hw + up.x * v * vw;
    o.y = (wy - up.y * v) * hw + up.y * v * vw;
    o.z = (wz - up.z * v) * hw + up.z * v * vw;
  }
}

/** Options of {@link Amplifier}. */
export interface AmplifierOptions extends OffsetModifierOptions {
  /** The bodies. */
  bodies?: readonly (AmplifierBody | AmplifierBodyInit)[];
}

/** The kinds of {@link AmplifierOptions}, for the check at create. */
export const AMPLIFIER_OPTION_KINDS: OptionKinds<AmplifierOptions> = {
  ...OFFSET_MODIFIER_OPTION_KINDS,
  bodies: eachOf(AMPLIFIER_BODY_INIT_KINDS),
};

/**
 * Amplifies the animated motion of body parts relative to other nodes (FinalIK's Amplifier): each
 * {@link AmplifierBody} offsets its effectors by its smoothed velocity relative to `relativeTo`.
 *
 * Requires the IK's `fixTransforms` (the default): without it the bones still hold last frame's solved
 * pose when the animation does not write them, the amplified motion feeds back on itself and can grow
 * without bound. With `fixTransforms` false the modifier adds nothing and warns once on the IK's warning
 * channel.
 */
export class Amplifier extends OffsetModifier {
  /** The bodies. */
  readonly bodies: AmplifierBody[];

  /** Attaches to `ik`. */
  constructor(ik: FullBodyBipedIK, options: AmplifierOptions = {}) {
    super(ik, options, AMPLIFIER_OPTION_KINDS);
    this.followsMotion = true;
    this.bodies = (options.bodies ?? []).map((b) => (b instanceof AmplifierBody ? b : new AmplifierBody(b)));
  }

  /** The class name, as Babylon's own objects report it. */
  override getClassName(): string {
    return "Amplifier";
  }

  /** No velocity spike from what moved while it was off. */
  protected override onResume(): void {
    for (let i = 0; i < this.bodies.length; i++) this.bodies[i]!.reset();
  }

  protected override onModifyOffset(): void {
    if (!this.ik.fixTransforms) {
      this.ik.solver.inner.warn(
        "amplifier:fixTransforms",
        "Amplifier needs the IK's fixTransforms to be true; otherwise it may amplify its own output without bound" +
          " when the animation stops writing the bones. It adds nothing until fixTransforms is true.",
      );
      // no velocity spike when it comes back
      for (let i = 0; i < this.bodies.length; i++) this.bodies[i]!.reset();
      return;
    }
    this.applyBodies(this.bodies);
  }
}
