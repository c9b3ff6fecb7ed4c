/**
 * A knee's MMD-style Euler limit whose sign is read from the leg as posed, so that it bends the way the knee
 * already bends whatever the rig's axes and the scene's handedness.
 * @module
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { RotationLimitEuler } from "../joints/limits/rotation-limit-euler.js";
import { Vec3 } from "../math/vec3.js";
import { FBBIKError } from "../solver/errors.js";
import { boneWorldMatrixToRef, skinnedMeshOf } from "./world-matrix.js";
import { type OptionKinds, checkLoggedOptions } from "./option-check.js";

/** Options of {@link kneeEulerLimit}. */
export interface KneeLimitOptions {
  /** Least bend beyond the rest pose, degrees (default 0.5, MMD's knee). */
  minBend?: number;
  /** Most bend beyond the rest pose, degrees (default 180). */
  maxBend?: number;
  /**
   * The character's forward, world: decides for a leg that is straight as posed (the knee then bends toward
   * it, the foot back). Without it such a leg throws.
   */
  forward?: Vector3;
}

/** The kinds of {@link KneeLimitOptions}, for the check at create. */
export const KNEE_LIMIT_OPTION_KINDS: OptionKinds<KneeLimitOptions> = {
  minBend: "number",
  maxBend: "number",
  forward: "object",
};

/** Below this sine of the knee's deviation from straight (0.5°) the pose says nothing about the bend's side. */
const STRAIGHT = Math.sin((0.5 * Math.PI) / 180);
/** The bend's axis within about 45° of the shin's X axis, or an X-only limit cannot bend it. */
const ACROSS = Math.SQRT1_2;

/**
 * A {@link RotationLimitEuler} for a knee (X only, Y and Z fixed at 0, as MMD's knees) whose X range has the sign
 * that bends the knee the way the leg bends now: read this in the rest or animated pose, with the knee a little
 * bent. The sign is worked out in the shin's own space (a positive X rotation moves the foot toward the thigh, or
 * not), so it holds for a shin whose X axis points left or right and in left- and right-handed scenes (the glTF
 * loader's mirrored root included). A straight leg needs `forward`. Give it to the solver at the shin's index:
 * `solver.setLimit(1, kneeEulerLimit(thigh, shin, foot))`.
 *
 * @param thigh - The leg's upper bone.
 * @param shin - The knee: the bone the limit is for.
 * @param foot - The bone below the shin (its position is the ankle).
 * @throws FBBIKError when the leg is straight and `forward` is not given, or the shin's X axis is not across the
 * leg (then an X-only range cannot bend it: use a `RotationLimitHinge` about the bend's axis).
 */
export function kneeEulerLimit(
  thigh: Bone,
  shin: Bone,
  foot: Bone,
  options: KneeLimitOptions = {},
): RotationLimitEuler {
  checkLoggedOptions("kneeEulerLimit", options, KNEE_LIMIT_OPTION_KINDS);
  const space = skinnedMeshOf(shin);
  const toShin = boneWorldMatrixToRef(shin, space, new Matrix()).invert();
  const at = (b: Bone) =>
    Vector3.TransformCoordinates(boneWorldMatrixToRef(b, space, new Matrix()).getTranslation(), toShin);
  // the knee at the origin of the shin's space: the thigh above it, the foot below
  const t = at(thigh);
  const f = at(foot);
  const bent = Vector3.Cross(f, t).length() > STRAIGHT * f.length() * t.length();
  let toward: Vector3;
  if (bent) toward = t;
  else if (options.forward !== undefined) toward = Vector3.TransformNormal(options.forward, toShin).negate();
  else throw new FBBIKError([`${shin.name}: the leg is straight as posed; give forward`], "kneeEulerLimit");
  // the axis about which a positive turn moves the foot toward `toward` (d f/dθ = axis × f)
  const axis = Vector3.Cross(f, toward).normalize();
  if (!(Math.abs(axis.x) >= ACROSS)) {
    const off = (Math.acos(Math.min(1, Math.abs(axis.x))) * 180) / Math.PI;
    throw new FBBIKError(
      [`${shin.name}: its X axis is ${off.toFixed(0)}° off the knee's bend axis; use a RotationLimitHinge`],
      "kneeEulerLimit",
    );
  }
  const sign = Math.sign(axis.x);
  const a = (sign * (options.minBend ?? 0.5) * Math.PI) / 180;
  const b = (sign * (options.maxBend ?? 180) * Math.PI) / 180;
  return new RotationLimitEuler(new Vec3(Math.min(a, b), 0, 0), new Vec3(Math.max(a, b), 0, 0));
}
