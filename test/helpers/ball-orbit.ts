/**
 * The demo tentacle's orbit (demo/src/scenarios/tail.ts), built in code: a 16-link chain of unit bones standing
 * from its base under an idle sway, a sphere collider on the base out to the side and up, and a target that starts
 * behind the ball (seen from the root) and orbits it, in the demo's proportions, tolerance and clearance. Measures
 * the tip's miss and how deep joints and segments go into the ball, over the orbit.
 */
import { ColliderSet } from "../../src/joints/colliders/collider-set.js";
import { SphereCollider } from "../../src/joints/colliders/sphere-collider.js";
import type { IKSolverJoints } from "../../src/joints/ik-solver-joints.js";
import { RotationLimitAngle } from "../../src/joints/limits/rotation-limit-angle.js";
import { Quat, rotateVector } from "../../src/math/quat.js";
import { Vec3 } from "../../src/math/vec3.js";
import { type TestChain, buildChain, chainPositions, worstLimitViolation } from "./joint-chains.js";

/** Links in the chain (the demo's 16, so 17 joints). */
export const ORBIT_LINKS = 16;
/**
 * The demo's proportions in chain lengths (its tentacle is 1.05 × the character's height): the ball's centre out
 * to the side and up from the root, its radius and the clearance kept from it, the orbit's radius about its centre.
 */
const BALL = { out: 0.24 / 1.05, up: 0.5 / 1.05, radius: 0.12 / 1.05, clearance: (0.8 * 0.035) / 1.05 };
const ORBIT = 0.3 / 1.05;
/** Samples over the orbit, and frames solved per sample (the demo's 0.6 rad/s at 60 frames/s: 10 frames apart). */
export const ORBIT_SAMPLES = 64;
const FRAMES_PER_SAMPLE = 10;

/** What {@link solveOrbit} measured, over the samples (lengths in chain lengths, angles in degrees). */
export interface OrbitRun {
  /** Tip's distance from the target per sample. */
  tips: number[];
  /** Deepest joint or segment inside the ball (radius minus distance; ≤ 0: clear) per sample. */
  depths: number[];
  /** Worst limit overshoot over all frames. */
  over: number;
}

/** How the orbit is solved. */
export interface OrbitSetup {
  /** A cone limit (28°, the demo's) on every joint. */
  limits: boolean;
  /** The ball as a collider (false: it is only measured). */
  colliders?: boolean;
  limitsAfterColliders?: boolean;
  /**
   * The demo's idle sway put on the links before every solve (default true), so each frame starts from the nearly
   * straight animated pose, as a chain under an animation does; false: each solve starts from the last one's.
   */
  animated?: boolean;
}

/** Builds the chain (straight, along the base's +Y), its solver and the ball. */
export function orbitRig(
  make: (c: TestChain) => IKSolverJoints,
  setup: OrbitSetup,
): { c: TestChain; s: IKSolverJoints; centre: Vec3; radius: number } {
  const c = buildChain({ bones: ORBIT_LINKS + 1, seed: 3, bend: 0, lengthOf: () => 1 });
  const s = make(c);
  // the demo's cone: 45° at the root, 28° on the other links, twist 20°
  if (setup.limits) {
    for (let i = 0; i < s.count; i++) s.setLimit(i, new RotationLimitAngle(new Vec3(0, 1, 0), i === 0 ? 45 : 28, 20));
  }
  s.subSteps = 2;
  // the demo's tolerance, 0.1 % of the height
  s.tolerance = (0.001 / 1.05) * c.length;
  s.colliderRadius = BALL.clearance * c.length;
  s.limitsAfterColliders = setup.limitsAfterColliders ?? true;
  // the ball on the base (bone 0): out along its X, up along its Y (the chain's rest direction)
  const centre = new Vec3(BALL.out * c.length, BALL.up * c.length, 0);
  const radius = BALL.radius * c.length;
  const set = new ColliderSet([new SphereCollider(0, radius, centre)]);
  set.keepLengths = true;
  if (setup.colliders !== false) s.colliders = set;
  // the ball's centre in component space (the base is turned)
  set.update(c.pose);
  const placed = new Vec3();
  set.getPlaced(0, 1, placed, new Vec3());
  return { c, s, centre: placed, radius };
}

/** Distance from `p` to the segment `a`–`b`. */
function segmentDistance(p: Vec3, a: number[], i: number): number {
  const ax = a[i]!;
  const ay = a[i + 1]!;
  const az = a[i + 2]!;
  const dx = a[i + 3]! - ax;
  const dy = a[i + 4]! - ay;
  const dz = a[i + 5]! - az;
  const l2 = dx * dx + dy * dy + dz * dz;
  let t = l2 > 0 ? ((p.x - ax) * dx + (p.y - ay) * dy + (p.z - az) * dz) / l2 : 0;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(ax + dx * t - p.x, ay + dy * t - p.y, az + dz * t - p.z);
}

/** Frames in one orbit. */
export const ORBIT_FRAMES = ORBIT_SAMPLES * FRAMES_PER_SAMPLE;

/**
 * Frame `f`'s setter (allocation-free, for the heap tests too): the target at its place on the orbit (from the
 * demo's start, 45° up from out, behind the ball seen from the root; once round in {@link ORBIT_FRAMES}) and, when
 * animated, the demo's idle sway on the links.
 */
export function orbitFrame(c: TestChain, s: IKSolverJoints, centre: Vec3, animated: boolean): (f: number) => void {
  // the orbit's plane: the base's X (out) and Y (up) in component space, as the demo's (out, up)
  const base = c.pose.rotations[0]!;
  const out = rotateVector(new Vec3(), base, new Vec3(1, 0, 0));
  const up = rotateVector(new Vec3(), base, new Vec3(0, 1, 0));
  const sway = new Quat();
  return (f) => {
    const a = Math.PI / 4 + (2 * Math.PI * f) / ORBIT_FRAMES;
    // the demo's orbit breathes: 0.3 ± 0.05 of the height
    const r = (ORBIT + (0.05 / 1.05) * Math.sin(1.7 * a)) * c.length;
    s.ikPosition.x = centre.x + r * (Math.cos(a) * out.x + Math.sin(a) * up.x);
    s.ikPosition.y = centre.y + r * (Math.cos(a) * out.y + Math.sin(a) * up.y);
    s.ikPosition.z = centre.z + r * (Math.cos(a) * out.z + Math.sin(a) * up.z);
    if (!animated) return;
    // the demo's idle sway (its links pitch by 0.05 sin(1.3 t − 0.5 i)), at 60 frames a second
    for (let i = 0; i < ORBIT_LINKS; i++) {
      const half = 0.025 * Math.sin((1.3 * f) / 60 - 0.5 * i);
      sway.x = Math.sin(half);
      sway.w = Math.cos(half);
      c.pose.setLocalRotation(c.ids[i]!, sway);
    }
  };
}

/**
 * The heap tests' frame `f` round the ball (allocation-free): the target at its place on the orbit, the idle sway on
 * the links, then a solve.
 */
export function orbitSolve(make: (c: TestChain) => IKSolverJoints, setup: OrbitSetup): (f: number) => void {
  const { c, s, centre } = orbitRig(make, setup);
  const frame = orbitFrame(c, s, centre, true);
  return (f) => {
    frame(f % ORBIT_FRAMES);
    s.update();
  };
}

/** Solves the orbit once round and measures every sample. */
export function solveOrbit(make: (c: TestChain) => IKSolverJoints, setup: OrbitSetup): OrbitRun {
  const { c, s, centre, radius } = orbitRig(make, setup);
  const frame = orbitFrame(c, s, centre, setup.animated !== false);
  const run: OrbitRun = { tips: [], depths: [], over: 0 };
  for (let f = 0; f < ORBIT_FRAMES; f++) {
    frame(f);
    s.update();
    run.over = Math.max(run.over, (worstLimitViolation(s, c) * 180) / Math.PI);
    if ((f + 1) % FRAMES_PER_SAMPLE !== 0) continue;
    const P = chainPositions(c.pose, c.ids);
    run.depths.push(ballDepth(c, centre, radius));
    const k = P.length - 3;
    const t = s.ikPosition;
    run.tips.push(Math.hypot(P[k]! - t.x, P[k + 1]! - t.y, P[k + 2]! - t.z) / c.length);
  }
  return run;
}

/** The deepest joint or segment of the chain inside the ball (radius minus distance, in chain lengths; ≤ 0: clear). */
export function ballDepth(c: TestChain, centre: Vec3, radius: number): number {
  const P = chainPositions(c.pose, c.ids);
  let depth = -Infinity;
  for (let i = 0; i < P.length; i += 3) {
    depth = Math.max(depth, radius - Math.hypot(P[i]! - centre.x, P[i + 1]! - centre.y, P[i + 2]! - centre.z));
    if (i + 3 < P.length) depth = Math.max(depth, radius - segmentDistance(centre, P, i));
  }
  return depth / c.length;
}

/** Median of `xs`. */
export function median(xs: readonly number[]): number {
  const a = [...xs].sort((p, q) => p - q);
  const m = a.length >> 1;
  return a.length % 2 === 1 ? a[m]! : 0.5 * (a[m - 1]! + a[m]!);
}
