/**
 * The tentacle's link limits (demo/src/scenarios/tail.ts): one shape for every link, as a RotationLimit for CCDIK
 * and FABRIK, and as JacobianIK's per-axis angle ranges, which hold a box of Euler angles, not a cone or a fan:
 * the box given is inside the shape (no twist), measured against the RotationLimit by the scenario's checks.
 */
import type { JacobianIKJoint } from "../../src/babylon/jacobian-ik";
import type { RotationLimit } from "../../src/joints/limits/rotation-limit";
import { RotationLimitAngle } from "../../src/joints/limits/rotation-limit-angle";
import { RotationLimitHinge } from "../../src/joints/limits/rotation-limit-hinge";
import { RotationLimitPolygonal } from "../../src/joints/limits/rotation-limit-polygonal";
import { Vec3, type ReadonlyVec3 } from "../../src/math/vec3";

/** The links' limit shapes the panel offers. */
export const SHAPES = ["cone (Angle)", "fan (Polygonal)", "hinge", "none"] as const;
/** Index in {@link SHAPES}. */
export const CONE = 0;
export const FAN = 1;
export const HINGE = 2;
export const NONE = 3;
/** Points of the fan's outline. */
const FAN_POINTS = 12;
/** The fan's reach out of the orbit's plane, as a share of its reach across it. */
const FAN_DEPTH = 1 / 4;
/** Degrees a link may twist about itself (cone and fan). */
const TWIST = 20;
/**
 * JacobianIK's box of Euler angles (x, z within ±k·reach, no twist) inside the cone of that reach: its corners touch
 * the cone at k = 1/√2 (measured against the RotationLimit over the box: 0° beyond for 5–60°).
 */
const BOX_CONE = Math.SQRT1_2;
/** The same inside the fan, whose 12-point outline cuts its ellipse between points: 0.62 left 0.33° out, 0.55 0°. */
const BOX_FAN = 0.55;

/** Where the links' limits point: `axis` along a link at rest, `across` the orbit's plane, `depth` at the camera. */
export interface LimitFrame {
  axis: ReadonlyVec3;
  across: ReadonlyVec3;
  depth: ReadonlyVec3;
}

/** Link `i`'s limit for `shape`: the root's 45°, the others' `bend`, twist within 20°; null for none. */
export function limitFor(shape: number, i: number, bend: number, f: LimitFrame): RotationLimit | null {
  const a = i === 0 ? 45 : bend;
  if (shape === NONE) return null;
  if (shape === HINGE) return new RotationLimitHinge(f.depth, -a, a);
  if (shape === CONE) return new RotationLimitAngle(f.axis, a, TWIST);
  // an ellipse of swings, `a` across the orbit's plane, a quarter of it out of the plane
  const points: Vec3[] = [];
  for (let k = 0; k < FAN_POINTS; k++) {
    const phi = (2 * Math.PI * k) / FAN_POINTS;
    const c = Math.cos(phi) / a;
    const sn = Math.sin(phi) / (a * FAN_DEPTH);
    const polar = (1 / Math.sqrt(c * c + sn * sn)) * (Math.PI / 180);
    const side = Math.sin(polar);
    const { axis, across, depth } = f;
    points.push(
      new Vec3(
        axis.x * Math.cos(polar) + side * (across.x * Math.cos(phi) + depth.x * Math.sin(phi)),
        axis.y * Math.cos(polar) + side * (across.y * Math.cos(phi) + depth.y * Math.sin(phi)),
        axis.z * Math.cos(polar) + side * (across.z * Math.cos(phi) + depth.z * Math.sin(phi)),
      ),
    );
  }
  return new RotationLimitPolygonal(f.axis, points, TWIST);
}

/**
 * Link `i`'s JacobianIK joint for `shape` (angles about the parent's X, Y, Z; the links stand along +Y and the
 * character faces along X or Z): the hinge as is, the cone and fan as a box inside them without twist.
 */
export function jacobianJointFor(shape: number, i: number, bend: number, f: LimitFrame): JacobianIKJoint {
  const a = ((i === 0 ? 45 : bend) * Math.PI) / 180;
  if (shape === NONE) return {};
  if (shape === HINGE) return { hingeAxis: f.depth, min: [-a], max: [a] };
  // turning about `depth` swings the link across the orbit's plane: the fan's full reach; about the other, its depth
  const depthIsZ = Math.abs(f.depth.z) >= Math.abs(f.depth.x);
  const aboutDepth = (shape === FAN ? BOX_FAN : BOX_CONE) * a;
  const aboutAcross = shape === FAN ? aboutDepth * FAN_DEPTH : aboutDepth;
  const x = depthIsZ ? aboutAcross : aboutDepth;
  const z = depthIsZ ? aboutDepth : aboutAcross;
  return { min: [-x, 0, -z], max: [x, 0, z] };
}
