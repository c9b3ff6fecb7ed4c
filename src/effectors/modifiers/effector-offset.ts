/**
 * FinalIK's EffectorOffset (a demo modifier): a constant offset per effector in a node's space.
 * @module
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import { Vec3 } from "../../math/vec3.js";
import { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { CharacterFrame } from "./frame.js";
import { OFFSET_MODIFIER_OPTION_KINDS, OffsetModifier, type OffsetModifierOptions } from "./offset-modifier.js";
import type { OptionKinds } from "../../babylon/option-check.js";

/** Options of {@link EffectorOffset}. */
export interface EffectorOffsetOptions extends OffsetModifierOptions {
  /** The node whose frame the offsets are in (default null: the character root). */
  node?: TransformNode | null;
  /** Sets both hands' maintainRelativePositionWeight every frame (default null: left alone). */
  handsMaintainRelativePositionWeight?: number | null;
}

/** The kinds of {@link EffectorOffsetOptions}, for the check at create. */
export const EFFECTOR_OFFSET_OPTION_KINDS: OptionKinds<EffectorOffsetOptions> = {
  ...OFFSET_MODIFIER_OPTION_KINDS,
  node: "object|null",
  handsMaintainRelativePositionWeight: "number|null",
};

const tWorld = new Vec3();

/**
 * Adds a fixed offset to each effector every frame: the offset vector in the frame of {@link node} (x
 * its right, y its up, z its forward, as {@link CharacterFrame} defines them; world units) × weight.
 * With {@link handsMaintainRelativePositionWeight} set, it also drives both hand effectors'
 * maintainRelativePositionWeight (FinalIK sets it every frame; null here leaves them alone).
 *
 * ```ts
 * const eo = new EffectorOffset(ik);
 * eo.bodyOffset.set(0, -0.1, 0); // crouch 10 cm
 * ```
 */
export class EffectorOffset extends OffsetModifier {
  /** The node whose frame the offsets are in; null: the character root. */
  node: TransformNode | null;
  /** [0, 1] When not null, both hands' maintainRelativePositionWeight is set to it every frame. */
  handsMaintainRelativePositionWeight: number | null;
  /** Body effector offset. */
  readonly bodyOffset = new Vector3();
  /** Left shoulder effector offset. */
  readonly leftShoulderOffset = new Vector3();
  /** Right shoulder effector offset. */
  readonly rightShoulderOffset = new Vector3();
  /** Left thigh effector offset. */
  readonly leftThighOffset = new Vector3();
  /** Right thigh effector offset. */
  readonly rightThighOffset = new Vector3();
  /** Left hand effector offset. */
  readonly leftHandOffset = new Vector3();
  /** Right hand effector offset. */
  readonly rightHandOffset = new Vector3();
  /** Left foot effector offset. */
  readonly leftFootOffset = new Vector3();
  /** Right foot effector offset. */
  readonly rightFootOffset = new Vector3();
  private readonly offsets: readonly Vector3[];
  private readonly nodeFrame = new CharacterFrame();

  /** Attaches to `ik`. */
  constructor(ik: FullBodyBipedIK, options: EffectorOffsetOptions = {}) {
    super(ik, options, EFFECTOR_OFFSET_OPTION_KINDS);
    this.node = options.node ?? null;
    this.handsMaintainRelativePositionWeight = options.handsMaintainRelativePositionWeight ?? null;
    // in FullBodyBipedEffector order
    this.offsets = [
      this.bodyOffset,
      this.leftShoulderOffset,
      this.rightShoulderOffset,
      this.leftThighOffset,
      this.rightThighOffset,
      this.leftHandOffset,
      this.rightHandOffset,
      this.leftFootOffset,
      this.rightFootOffset,
    ];
  }

  /** The class name, as Babylon's own objects report it. */
  override getClassName(): string {
    return "EffectorOffset";
  }

  /** The offset vector of an effector (the same object as the named field). */
  getOffset(effector: FullBodyBipedEffector): Vector3 {
    return this.offsets[effector]!;
  }

  protected override onModifyOffset(): void {
    const hw = this.handsMaintainRelativePositionWeight;
    if (hw !== null) {
      this.ik.solver.getEffector(FullBodyBipedEffector.LeftHand).maintainRelativePositionWeight = hw;
      this.ik.solver.getEffector(FullBodyBipedEffector.RightHand).maintainRelativePositionWeight = hw;
    }
    const frame =
      this.node === null ? this.frame : this.nodeFrame.setFromNode(this.node, this.ik.scene.useRightHandedSystem);
    frame.lengthScale = this.frame.lengthScale;
    this.scalars.s = this.clock.weight;
    for (let i = 0; i < this.offsets.length; i++) {
      const o = this.offsets[i]!;
      if (o.x === 0 && o.y === 0 && o.z === 0) continue;
      frame.directionToWorld(o, tWorld);
      this.addOffsetScaled(i as FullBodyBipedEffector, tWorld);
    }
  }
}
