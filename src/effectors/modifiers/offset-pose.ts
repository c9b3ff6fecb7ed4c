/**
 * FinalIK's OffsetPose: a set of effector offsets (and pins) in the character root's space, applied with a
 * weight. BodyTilt blends two of them; apply one yourself from an `ik.solver.onPreUpdateObservable` observer.
 * @module
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { FullBodyBipedIK } from "../../babylon/full-body-biped-ik.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";
import type { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import { Vec3 } from "../../math/vec3.js";
import { CharacterFrame, Scalars, addScaled, readCharacterFrame, worldPositionOf } from "./frame.js";

/** One effector of an {@link OffsetPose}. */
export interface OffsetPoseEffectorLink {
  /** The effector. */
  effector: FullBodyBipedEffector;
  /** Offset in root space (x right, y up, z forward), world units, at pose weight 1. */
  readonly offset: Vector3;
  /** A position in root space relative to the character root that the effector is pinned to. */
  readonly pin: Vector3;
  /** [0, 1] per root axis: how much the effector's offset is replaced by the pin, × |pose weight|. */
  readonly pinWeight: Vector3;
}

/** What {@link OffsetPose}'s constructor takes per effector (vectors are copied). */
export interface OffsetPoseEffectorLinkInit {
  /** The effector. */
  effector: FullBodyBipedEffector;
  /** Offset in root space (default zero). */
  offset?: ReadonlyVec3;
  /** Pin position in root space relative to the character root (default zero). */
  pin?: ReadonlyVec3;
  /** Pin weight per root axis (default zero: no pin). */
  pinWeight?: ReadonlyVec3;
}

const poseFrame = new CharacterFrame();
const tOffset = new Vec3();
const tPin = new Vec3();
const tBone = new Vec3();
const applyIo = new Scalars();

/**
 * Effector offsets in the character root's space applied with a weight (FinalIK's OffsetPose). For each
 * link, `apply(ik, w)`:
 * 1. adds `offset` (root space → world) × w to the effector's positionOffset;
 * 2. pins: the offset that would bring the effector's bone (as animated this frame) to
 *    `root position + pin` (root space → world) replaces the effector's offset on each root axis by
 *    `pinWeight` × |w| (a linear blend per axis).
 *
 * Call it before the IK solves: in `ik.solver.onPreUpdateObservable`, or in `ik.solver.onSkeletonRead` as the
 * modifiers do.
 */
export class OffsetPose {
  /** The effectors this pose moves. */
  readonly effectorLinks: OffsetPoseEffectorLink[];

  /** Creates a pose from its links (vectors copied). */
  constructor(links: readonly OffsetPoseEffectorLinkInit[] = []) {
    this.effectorLinks = links.map((l) => ({
      effector: l.effector,
      offset: new Vector3(l.offset?.x ?? 0, l.offset?.y ?? 0, l.offset?.z ?? 0),
      pin: new Vector3(l.pin?.x ?? 0, l.pin?.y ?? 0, l.pin?.z ?? 0),
      pinWeight: new Vector3(l.pinWeight?.x ?? 0, l.pinWeight?.y ?? 0, l.pinWeight?.z ?? 0),
    }));
  }

  /**
   * Applies the pose to `ik`'s effector offsets with `weight` (not clamped; pins use |weight| clamped to
   * [0, 1]), in `frame` (default: the character root's frame this frame). Nothing happens at weight 0.
   */
  apply(ik: FullBodyBipedIK, weight: number, frame?: CharacterFrame): void {
    applyIo.s = weight;
    this._apply(ik, applyIo, frame ?? readCharacterFrame(ik, poseFrame));
  }

  /** @internal {@link apply} with the weight in `io.s` (no double crosses the call). */
  _apply(ik: FullBodyBipedIK, io: Scalars, f: CharacterFrame): void {
    const weight = io.s;
    if (weight === 0 || !Number.isFinite(weight)) return;
    // clamp01 written out here and below (see ARCHITECTURE.md, "Doubles across calls")
    const abs = Math.abs(weight);
    const aw = abs > 0 ? (abs < 1 ? abs : 1) : 0;
    const links = this.effectorLinks;
    for (let i = 0; i < links.length; i++) {
      const link = links[i]!;
      const effector = ik.solver.getEffector(link.effector);
      const o = effector.positionOffset;
      f.directionToWorld(link.offset, tOffset);
      addScaled(o, tOffset, io);
      const pw = link.pinWeight;
      if (pw.x === 0 && pw.y === 0 && pw.z === 0) continue;
      const bone = effector.bone;
      if (bone === null) continue;
      // the offset that puts the animated bone on the pin, in root space
      f.pointToWorld(link.pin, tPin);
      worldPositionOf(ik, bone, tBone);
      tPin.x -= tBone.x;
      tPin.y -= tBone.y;
      tPin.z -= tBone.z;
      f.directionToLocal(tPin, tPin);
      f.directionToLocal(o, tOffset);
      const kx = pw.x * aw;
      const ky = pw.y * aw;
      const kz = pw.z * aw;
      tOffset.x += (tPin.x - tOffset.x) * (kx > 0 ? (kx < 1 ? kx : 1) : 0);
      tOffset.y += (tPin.y - tOffset.y) * (ky > 0 ? (ky < 1 ? ky : 1) : 0);
      tOffset.z += (tPin.z - tOffset.z) * (kz > 0 ? (kz < 1 ? kz : 1) : 0);
      f.directionToWorld(tOffset, o);
    }
  }
}
