/**
 * The engine-neutral Grounding solver against analytic terrains (planes over x ranges): easing, maxStep,
 * missing ground, the three probe qualities, foot rotation and its limit, the sphere probe at an edge,
 * prediction with the heel clamp, the lift limit, the pelvis weights and damper, reset, zero time steps and
 * raycast sanitising, non-finite settings.
 */
import { describe, expect, it } from "vitest";
import {
  type GroundingHit,
  GroundingQuality,
  type GroundingRaycast,
  lerpValue,
} from "../../../src/effectors/grounding/grounding-common.js";
import { Grounding } from "../../../src/effectors/grounding/grounding.js";
import type { ReadonlyVec3 } from "../../../src/math/vec3.js";

/** A plane valid for xMin ≤ x < xMax. */
interface Patch {
  xMin: number;
  xMax: number;
  /** A point on the plane. */
  p: [number, number, number];
  /** Unit normal. */
  n: [number, number, number];
}

function flat(y: number, xMin = -Infinity, xMax = Infinity): Patch {
  return { xMin, xMax, p: [0, y, 0], n: [0, 1, 0] };
}

/** A plane through the origin tilted by `deg` about +Z: y = x·tan(deg). */
function slope(deg: number): Patch {
  const a = (deg * Math.PI) / 180;
  return { xMin: -Infinity, xMax: Infinity, p: [0, 0, 0], n: [-Math.sin(a), Math.cos(a), 0] };
}

/** The closest patch hit along the ray (both faces), with the patch's normal. */
function terrainRaycast(patches: Patch[], log?: ReadonlyVec3[]): GroundingRaycast {
  return (origin, direction, maxDistance, out) => {
    log?.push({ x: direction.x, y: direction.y, z: direction.z });
    let best = Infinity;
    for (const s of patches) {
      const dn = direction.x * s.n[0] + direction.y * s.n[1] + direction.z * s.n[2];
      if (dn === 0) continue;
      const t = ((s.p[0] - origin.x) * s.n[0] + (s.p[1] - origin.y) * s.n[1] + (s.p[2] - origin.z) * s.n[2]) / dn;
      if (!(t >= 0 && t <= maxDistance && t < best)) continue;
      const x = origin.x + direction.x * t;
      if (x < s.xMin || x >= s.xMax) continue;
      best = t;
      out.distance = t;
      out.point.x = x;
      out.point.y = origin.y + direction.y * t;
      out.point.z = origin.z + direction.z * t;
      out.normal.x = s.n[0];
      out.normal.y = s.n[1];
      out.normal.z = s.n[2];
    }
    return best < Infinity;
  };
}

/** A two-legged grounding over `patches`, feet at x = ±0.1, 0.08 above the root at the origin. */
function make(patches: Patch[], quality = GroundingQuality.Best): Grounding {
  const g = new Grounding(2, terrainRaycast(patches));
  g.quality = quality;
  setFeet(g, [-0.1, 0.08, 0], [0.1, 0.08, 0]);
  return g;
}

function setFeet(g: Grounding, left: [number, number, number], right: [number, number, number]): void {
  const [l, r] = g.legs;
  l!.footPosition.x = left[0];
  l!.footPosition.y = left[1];
  l!.footPosition.z = left[2];
  r!.footPosition.x = right[0];
  r!.footPosition.y = right[1];
  r!.footPosition.z = right[2];
}

function run(g: Grounding, frames: number, dt = 1 / 60): void {
  for (let i = 0; i < frames; i++) g.update(dt);
}

/** Angle (radians) of the rotation `q` applies to +Y against `n`. */
function upAngleTo(q: { x: number; y: number; z: number; w: number }, n: [number, number, number]): number {
  // rotate (0,1,0) by q
  const { x, y, z, w } = q;
  const ux = 2 * (x * y - w * z);
  const uy = 1 - 2 * (x * x + z * z);
  const uz = 2 * (y * z + w * x);
  return Math.acos(Math.min(1, ux * n[0] + uy * n[1] + uz * n[2]));
}

const QUALITIES = [GroundingQuality.Fastest, GroundingQuality.Simple, GroundingQuality.Best];

describe("lerpValue", () => {
  it("steps toward the target at the given rates without overshooting", () => {
    expect(lerpValue(0, 1, 2, 5, 0.1)).toBeCloseTo(0.2, 15);
    expect(lerpValue(1, 0, 2, 5, 0.1)).toBeCloseTo(0.5, 15);
    expect(lerpValue(0.95, 1, 2, 5, 0.1)).toBe(1);
    expect(lerpValue(0.05, 0, 2, 5, 0.1)).toBe(0);
    expect(lerpValue(0.3, 0.3, 2, 5, 0.1)).toBe(0.3);
  });
});

describe("Grounding", () => {
  it("eases the feet to higher ground: constant rate then exponential, exactly as specified", () => {
    const g = make([flat(0.2)], GroundingQuality.Fastest);
    const dt = 0.016;
    g.update(dt);
    // the root probe finds the ground within maxStep below it (it is above the root: grounded)
    expect(g.rootGrounded).toBe(true);
    const leg = g.legs[0]!;
    expect(leg.heightFromGround).toBeCloseTo(-0.2, 12);
    // lerpValue by footSpeed × dt = 0.04, then 0.04 of the rest
    const o1 = -0.04 + (-0.2 + 0.04) * 0.04;
    expect(leg.ikOffset).toBeCloseTo(o1, 12);
    expect(leg.ikPosition.y).toBeCloseTo(0.08 - o1, 12);
    run(g, 200, dt);
    for (const l of g.legs) {
      expect(l.ikOffset).toBeCloseTo(-0.2, 9);
      expect(l.ikPosition.y).toBeCloseTo(0.28, 9);
      expect(l.isGrounded).toBe(true);
    }
    // the pelvis does not rise (liftPelvisWeight 0)
    expect(g.pelvis.heightOffset).toBe(0);
  });

  it("lengthScale k: in a world scaled by k, k times the unscaled solution, the settings as set", () => {
    const terrain = (k: number): Patch[] => [
      { ...flat(0.2 * k, -Infinity, 0) },
      { xMin: 0, xMax: Infinity, p: [0, -0.1 * k, 0], n: slope(20).n },
    ];
    for (const quality of QUALITIES)
      for (const k of [0.1, 10]) {
        const a = make(terrain(1), quality);
        const b = make(terrain(k), quality);
        for (const g of [a, b]) {
          g.heightOffset = 0.02;
          g.footCenterOffset = 0.03;
          g.lengthUnit = 1.1;
          g.liftPelvisWeight = 0.5;
          g.pelvisDamper = 0.3;
        }
        b.lengthScale = k;
        setFeet(b, [-0.1 * k, 0.08 * k, 0], [0.1 * k, 0.08 * k, 0]);
        for (let f = 0; f < 40; f++) {
          // the root goes down, the feet forward: the damper and the prediction act
          a.rootPosition.y = -0.002 * f;
          b.rootPosition.y = -0.002 * f * k;
          a.legs[0]!.footPosition.z = 0.003 * f;
          b.legs[0]!.footPosition.z = 0.003 * f * k;
          a.update(1 / 60);
          b.update(1 / 60);
          for (let i = 0; i < 2; i++) {
            expect(b.legs[i]!.ikOffset).toBeCloseTo(a.legs[i]!.ikOffset * k, 12);
            expect(b.legs[i]!.rotationOffset.x).toBeCloseTo(a.legs[i]!.rotationOffset.x, 12);
            expect(b.legs[i]!.rotationOffset.z).toBeCloseTo(a.legs[i]!.rotationOffset.z, 12);
          }
          expect(b.pelvis.ikOffset.y).toBeCloseTo(a.pelvis.ikOffset.y * k, 12);
        }
        expect(Math.abs(a.legs[0]!.ikOffset)).toBeGreaterThan(0.05);
        expect([b.maxStep, b.footRadius, b.heightOffset, b.footCenterOffset, b.lengthUnit]).toEqual([
          0.5, 0.15, 0.02, 0.03, 1.1,
        ]);
      }
  });

  it("scales the constant-rate part of footSpeed by lengthUnit", () => {
    const g = make([flat(2)], GroundingQuality.Fastest);
    g.maxStep = 5;
    g.footRadius = 1.5;
    g.lengthUnit = 10;
    g.update(0.016);
    expect(g.legs[0]!.ikOffset).toBeCloseTo(-0.4 + (-2 + 0.4) * 0.04, 12);
  });

  it.each(QUALITIES)(
    "quality %i: follows a lower foot down within maxStep, clamps beyond, and lets the feet fall or stay when nothing is found",
    (quality) => {
      // the left foot over ground 0.3 below the root, the right on the root's level
      const g = make([flat(-0.3, -Infinity, -0.05), flat(0, -0.05, Infinity)], quality);
      g.footRadius = 0.02;
      run(g, 300);
      expect(g.legs[0]!.ikOffset).toBeCloseTo(0.3, 6);
      expect(g.legs[1]!.ikOffset).toBeCloseTo(0, 9);
      // the pelvis lowers by the lower foot's offset
      expect(g.pelvis.heightOffset).toBeCloseTo(-0.3, 6);
      expect(g.pelvis.ikOffset.y).toBeCloseTo(-0.3, 6);

      // 0.7 below: the ray (2 × maxStep from maxStep above the foot) finds nothing
      const deep = make([flat(-0.7, -Infinity, -0.05), flat(0, -0.05, Infinity)], quality);
      deep.footRadius = 0.02;
      run(deep, 300);
      // overstepFallsDown: the default ground is maxStep below the foot (0.08 above the root): 0.42 below the root
      expect(deep.legs[0]!.ikOffset).toBeCloseTo(0.42, 6);
      const stay = make([flat(-0.7, -Infinity, -0.05), flat(0, -0.05, Infinity)], quality);
      stay.footRadius = 0.02;
      stay.overstepFallsDown = false;
      run(stay, 300);
      expect(stay.legs[0]!.ikOffset).toBeCloseTo(0, 9);
    },
  );

  it("with the ground far below the root (airborne) the offsets ease back to zero", () => {
    const g = make([flat(-0.2)]);
    run(g, 200);
    expect(g.legs[0]!.ikOffset).toBeCloseTo(0.2, 6);
    g.raycast = terrainRaycast([flat(-3)]);
    run(g, 300);
    expect(g.rootGrounded).toBe(false);
    expect(Math.abs(g.legs[0]!.ikOffset)).toBeLessThan(1e-9);
    expect(Math.abs(g.pelvis.heightOffset)).toBeLessThan(1e-6);
  });

  it.each(QUALITIES)(
    "quality %i on a 20° slope: the ground under the foot and its normal, the foot turned to the normal",
    (quality) => {
      const s = slope(20);
      const g = make([s], quality);
      run(g, 300);
      const tan = Math.tan((20 * Math.PI) / 180);
      for (const leg of g.legs) {
        // the plane's height under the foot
        const ground = leg.footPosition.x * tan;
        expect(leg.heightFromGround).toBeCloseTo(-ground, 9);
        expect(leg.ikOffset).toBeCloseTo(-ground, 6);
        expect(leg.groundNormal.x).toBeCloseTo(s.n[0], 9);
        expect(leg.groundNormal.y).toBeCloseTo(s.n[1], 9);
        expect(upAngleTo(leg.rotationOffset, s.n)).toBeLessThan(1e-6);
      }
    },
  );

  it.each(QUALITIES)(
    "quality %i: a foot lifted out of the probes' reach on a 20° slope (a stride's swing) lands turned to it",
    (quality) => {
      const s = slope(20);
      const g = make([s], quality);
      run(g, 300);
      const leg = g.legs[0]!;
      // 1.2 above the root: the probes reach 0.5 below the foot, the slope is at -0.036 under it
      leg.footPosition.y = 1.2;
      run(g, 12);
      expect(g.rootGrounded).toBe(true);
      leg.footPosition.y = 0.08;
      g.update(1 / 60);
      // measured: 0 (easing toward up during the miss, as FinalIK does, left it 13.7° off)
      expect((upAngleTo(leg.rotationOffset, s.n) * 180) / Math.PI).toBeLessThan(1e-6);
      // with the root off the ground too, a miss turns the foot back toward up, as in FinalIK
      g.raycast = terrainRaycast([{ ...s, p: [0, -3, 0] }]);
      run(g, 300);
      expect(g.rootGrounded).toBe(false);
      expect(upAngleTo(leg.rotationOffset, [0, 1, 0])).toBeLessThan(1e-6);
      g.raycast = terrainRaycast([s]);
      run(g, 300);
      g.reset();
      expect(leg.groundNormal).toEqual({ x: 0, y: 1, z: 0 });
    },
  );

  it("limits the foot rotation to maxFootRotationAngle and scales it by footRotationWeight", () => {
    const g = make([slope(60)], GroundingQuality.Fastest);
    g.maxStep = 1;
    run(g, 300);
    const leg = g.legs[0]!;
    const angle = (q: { w: number }) => (2 * Math.acos(Math.min(1, Math.abs(q.w))) * 180) / Math.PI;
    expect(angle(leg.rotationOffset)).toBeCloseTo(45, 6);
    g.footRotationWeight = 0.5;
    g.update(1 / 60);
    expect(angle(leg.rotationOffset)).toBeCloseTo(22.5, 4);
  });

  it("Best: the sphere probe lifts a foot whose circle reaches a ledge; a ray (Fastest) does not", () => {
    // a ledge 0.1 high starting at x = 0.05: the left foot (x = −0.1) is 0.15 away, the right foot on it
    const patches = [flat(0, -Infinity, 0.05), flat(0.1, 0.05, Infinity)];
    const best = make(patches, GroundingQuality.Best);
    best.footRadius = 0.2;
    run(best, 300);
    expect(best.legs[0]!.ikOffset).toBeCloseTo(-0.1, 6);
    expect(best.legs[0]!.probeHit.point.x).toBeGreaterThanOrEqual(0.05);
    const narrow = make(patches, GroundingQuality.Best);
    narrow.footRadius = 0.1;
    run(narrow, 300);
    expect(narrow.legs[0]!.ikOffset).toBeCloseTo(0, 9);
    const fastest = make(patches, GroundingQuality.Fastest);
    fastest.footRadius = 0.2;
    run(fastest, 300);
    expect(fastest.legs[0]!.ikOffset).toBeCloseTo(0, 9);
    expect(fastest.legs[1]!.ikOffset).toBeCloseTo(-0.1, 6);
  });

  it("prediction: a foot moving toward a ledge rises early; moving toward a drop, the heel keeps it up (Best)", () => {
    // ground 0.1 up for x ≥ 0.02 (ahead of the left foot moving +x), and 0.1 down for x ≥ 0.02 in the other run
    for (const [h, expected] of [
      [0.1, -0.1],
      [-0.1, 0],
    ] as const) {
      const g = new Grounding(1, terrainRaycast([flat(0, -Infinity, 0.02), flat(h, 0.02, Infinity)]));
      g.footRadius = 0.01;
      g.prediction = 0.1;
      const leg = g.legs[0]!;
      leg.footPosition.y = 0.08;
      leg.footPosition.x = -0.1;
      g.update(1 / 60);
      // 1.5 units per second along +x: 0.15 ahead with prediction 0.1 s
      for (let i = 0; i < 5; i++) {
        leg.footPosition.x += 1.5 / 60 / 5;
        g.update(1 / 300);
      }
      expect(leg.velocity.x).toBeCloseTo(1.5, 9);
      // the foot itself is still over the root's level
      expect(leg.footPosition.x).toBeLessThan(0.02);
      expect(leg.heightFromGround).toBeCloseTo(expected, 9);
    }
  });

  it("a foot is lifted at most to maxStep above the root", () => {
    const g = make([flat(0.3)], GroundingQuality.Fastest);
    setFeet(g, [-0.1, 0.45, 0], [0.1, 0.08, 0]);
    run(g, 300);
    expect(g.legs[0]!.ikOffset).toBeCloseTo(-0.05, 9);
    expect(g.legs[1]!.ikOffset).toBeCloseTo(-0.3, 6);
  });

  it("the pelvis lowers by lowerPelvisWeight and rises by liftPelvisWeight", () => {
    const patches = [flat(0.2, -Infinity, 0), flat(-0.1, 0, Infinity)];
    const g = make(patches, GroundingQuality.Fastest);
    run(g, 400);
    expect(g.pelvis.heightOffset).toBeCloseTo(-0.1, 6);
    g.lowerPelvisWeight = 0.5;
    g.liftPelvisWeight = 1;
    run(g, 400);
    expect(g.pelvis.heightOffset).toBeCloseTo(-0.05 + 0.2, 6);
  });

  it("pelvisReachWeight: a grounded foot eased down faster than the pelvis keeps its knee bent, never lowering the pelvis past the lowest foot; 0 is FinalIK's ease alone", () => {
    // thighs 0.82 above the feet on legs of 0.85 (animated at 0.965 of their length); the right foot's ground
    // drops by 0.2: its foot eases down at 2.5 units a second, the pelvis exponentially at 5 a second
    const length = 0.85;
    const limit = 0.999 * length;
    const start = (reach: number, legLength = length) => {
      const g = make([flat(0)], GroundingQuality.Fastest);
      g.pelvisReachWeight = reach;
      g.legs.forEach((leg, i) => {
        leg.thighPosition.x = i === 0 ? -0.1 : 0.1;
        leg.thighPosition.y = 0.9;
        leg.legLength = legLength;
      });
      run(g, 30);
      g.raycast = terrainRaycast([flat(0, -Infinity, 0), flat(-0.2, 0, Infinity)]);
      return g;
    };
    /** Each leg's thigh, moved with the pelvis, to its foot's goal, over the leg's length. */
    const stretch = (g: Grounding) =>
      g.legs.map((leg) =>
        Math.hypot(
          leg.thighPosition.x + g.pelvis.ikOffset.x - leg.ikPosition.x,
          leg.thighPosition.y + g.pelvis.ikOffset.y - leg.ikPosition.y,
          leg.thighPosition.z + g.pelvis.ikOffset.z - leg.ikPosition.z,
        ),
      );
    const reaching = start(1);
    const finalIK = start(0);
    const unknown = start(1, 0);
    let mostStretched = 0;
    let extra = 0;
    for (let f = 0; f < 120; f++) {
      for (const g of [reaching, finalIK, unknown]) g.update(1 / 60);
      for (const d of stretch(reaching)) expect(d).toBeLessThanOrEqual(limit * (1 + 1e-12));
      const p = reaching.pelvis;
      // lower than the ease, never lower than the lowest foot asks
      expect(p.ikOffset.y).toBeLessThanOrEqual(p.heightOffset);
      expect(p.ikOffset.y).toBeGreaterThanOrEqual(p.lowestOffset - 1e-12);
      extra = Math.max(extra, p.heightOffset - p.ikOffset.y);
      // the ease is FinalIK's either way; without the reach (or without the legs' lengths) the offset is it, bit for bit
      expect(p.heightOffset).toBe(finalIK.pelvis.heightOffset);
      expect(finalIK.pelvis.ikOffset.y).toBe(finalIK.pelvis.heightOffset);
      expect(unknown.pelvis.ikOffset.y).toBe(unknown.pelvis.heightOffset);
      mostStretched = Math.max(mostStretched, ...stretch(finalIK));
    }
    // FinalIK's leg would have to stretch (measured: to 1.14 of its length); the reach lowered the pelvis by up to 0.12
    expect(mostStretched / length).toBeGreaterThan(1.05);
    expect(extra).toBeGreaterThan(0.08);
    // settled, both are the ease's: the pelvis down by the drop
    expect(reaching.pelvis.ikOffset.y).toBeCloseTo(-0.2, 4);
    expect(finalIK.pelvis.ikOffset.y).toBeCloseTo(-0.2, 4);
  });

  it("pelvisReachWeight: the reach's lowering goes back up at pelvisSpeed, not in a frame, when the root leaves the ground", () => {
    // the setup above: the right foot's ground drops by 0.2 and the reach lowers the pelvis beyond the ease
    const g = make([flat(0)], GroundingQuality.Fastest);
    g.legs.forEach((leg, i) => {
      leg.thighPosition.x = i === 0 ? -0.1 : 0.1;
      leg.thighPosition.y = 0.9;
      leg.legLength = 0.85;
    });
    run(g, 30);
    g.raycast = terrainRaycast([flat(0, -Infinity, 0), flat(-0.2, 0, Infinity)]);
    let extra = 0;
    for (let f = 0; f < 60 && extra < 0.05; f++) {
      g.update(1 / 60);
      extra = g.pelvis.heightOffset - g.pelvis.ikOffset.y;
    }
    expect(extra).toBeGreaterThan(0.05);
    // the character walks out over a gap: nothing under the root, the grounder eases back to the animation (the
    // feet slowly here, so that what the pelvis does is its own)
    g.raycast = terrainRaycast([]);
    g.footSpeed = 0.5;
    let worst = 0;
    let last = g.pelvis.ikOffset.y;
    for (let f = 0; f < 120; f++) {
      g.update(1 / 60);
      expect(g.rootGrounded).toBe(false);
      worst = Math.max(worst, Math.abs(g.pelvis.ikOffset.y - last));
      last = g.pelvis.ikOffset.y;
    }
    // measured: 0.0085 a frame (the pelvis eases back at 5 a second); 0.055 in one frame when the drop let go at once
    expect(worst).toBeLessThan(0.02);
    expect(Math.abs(last)).toBeLessThan(1e-3);
  });

  it("pelvisDamper holds the pelvis back when the root moves up", () => {
    const g = make([flat(0)], GroundingQuality.Fastest);
    g.pelvisDamper = 1;
    run(g, 60);
    expect(g.pelvis.heightOffset).toBe(0);
    g.rootPosition.y += 0.1;
    g.legs[0]!.footPosition.y += 0.1;
    g.legs[1]!.footPosition.y += 0.1;
    g.raycast = terrainRaycast([flat(0.1)]);
    g.update(1 / 60);
    expect(g.pelvis.heightOffset).toBeCloseTo(-0.1, 12);
    run(g, 400);
    expect(Math.abs(g.pelvis.heightOffset)).toBeLessThan(1e-6);
  });

  it("a zero time step eases nothing and keeps the offsets on the current feet; reset forgets everything", () => {
    const g = make([slope(20)]);
    run(g, 100);
    const leg = g.legs[0]!;
    const offset = leg.ikOffset;
    const rot = { ...leg.rotationOffset };
    leg.footPosition.y += 0.01;
    g.update(0);
    expect(leg.ikOffset).toBe(offset);
    expect(leg.ikPosition.y).toBeCloseTo(leg.footPosition.y - offset, 15);
    expect({ ...leg.rotationOffset }).toEqual(rot);
    g.reset();
    expect(leg.ikOffset).toBe(0);
    expect(leg.rotationOffset.w).toBe(1);
    expect(g.pelvis.heightOffset).toBe(0);
    expect(leg.ikPosition.y).toBe(leg.footPosition.y);
    expect(leg.initiated).toBe(false);
  });

  it("rotateSolver probes along the root's up", () => {
    const log: ReadonlyVec3[] = [];
    const g = new Grounding(2, terrainRaycast([flat(0)], log));
    g.rotateSolver = true;
    g.rootUp.x = 1;
    g.rootUp.y = 1;
    g.rootUp.z = 0;
    g.update(1 / 60);
    expect(g.up.x).toBeCloseTo(Math.SQRT1_2, 12);
    expect(log.every((d) => Math.abs(d.x + Math.SQRT1_2) < 1e-12 && Math.abs(d.y + Math.SQRT1_2) < 1e-12)).toBe(true);
    expect(log.length).toBeGreaterThan(0);
  });

  it("sanitises the raycast: a downward normal is flipped, a non-finite hit is a miss", () => {
    const bad: GroundingRaycast = (origin, direction, maxDistance, out) => {
      out.point.x = origin.x;
      out.point.y = origin.y - 0.3;
      out.point.z = origin.z;
      out.normal.x = 0;
      out.normal.y = -2;
      out.normal.z = 0;
      out.distance = 0.3;
      return maxDistance > 0 && direction.y < 0;
    };
    const g = new Grounding(1, bad);
    g.quality = GroundingQuality.Fastest;
    g.update(1 / 60);
    expect(g.legs[0]!.groundNormal.y).toBe(1);
    const nan = new Grounding(1, (_o, _d, _m, out: GroundingHit) => {
      out.point.y = Number.NaN;
      return true;
    });
    nan.quality = GroundingQuality.Fastest;
    nan.update(1 / 60);
    expect(nan.rootGrounded).toBe(false);
    expect(Number.isFinite(nan.legs[0]!.ikPosition.y)).toBe(true);
  });

  it("a frame with a non-finite root position or foot eases nothing: restored, the state is as if the frame had not been", () => {
    // a foot on higher and one on lower ground, still easing
    const a = make([flat(0.2, -Infinity, 0), flat(-0.1, 0, Infinity)], GroundingQuality.Best);
    const b = make([flat(0.2, -Infinity, 0), flat(-0.1, 0, Infinity)], GroundingQuality.Best);
    run(a, 20);
    run(b, 20);
    const bad: [string, () => void, () => void][] = [
      ["root position", () => (a.rootPosition.x = Number.NaN), () => (a.rootPosition.x = 0)],
      ["left foot", () => (a.legs[0]!.footPosition.y = Number.NaN), () => (a.legs[0]!.footPosition.y = 0.08)],
    ];
    for (const [label, spoil, restore] of bad) {
      spoil();
      a.update(1 / 60);
      a.update(1 / 60);
      restore();
      run(a, 3);
      run(b, 3);
      expect(a.pelvis.heightOffset, label).toBe(b.pelvis.heightOffset);
      expect(
        a.legs.map((l) => l.ikOffset),
        label,
      ).toEqual(b.legs.map((l) => l.ikOffset));
      expect(
        a.legs.map((l) => ({ ...l.rotationOffset })),
        label,
      ).toEqual(b.legs.map((l) => ({ ...l.rotationOffset })));
    }
    expect(a.legs[0]!.ikOffset).toBeLessThan(-0.1);
  });

  it("a non-finite setting keeps its last valid value for the frame, warned once through onWarning; restored, the state is as if nothing happened", () => {
    // a foot on higher and one on lower ground, still easing: pelvis and feet move every frame
    const a = make([flat(0.2, -Infinity, 0), flat(-0.1, 0, Infinity)], GroundingQuality.Fastest);
    const b = make([flat(0.2, -Infinity, 0), flat(-0.1, 0, Infinity)], GroundingQuality.Fastest);
    const warnings: string[] = [];
    a.onWarning = (cause) => warnings.push(cause);
    a.liftPelvisWeight = b.liftPelvisWeight = 0.3;
    run(a, 20);
    run(b, 20);
    for (const [k, v] of [
      ["lowerPelvisWeight", Number.NaN],
      ["liftPelvisWeight", Number.POSITIVE_INFINITY],
      ["pelvisReachWeight", Number.NaN],
      ["footSpeed", Number.NaN],
      ["lengthUnit", 0],
      ["lengthScale", Number.NaN],
      ["maxStep", Number.NEGATIVE_INFINITY],
    ] as const) {
      const good = a[k];
      for (let f = 0; f < 2; f++) {
        a[k] = v;
        a.update(1 / 60);
        b.update(1 / 60);
        // written back: the last valid value
        expect(a[k]).toBe(good);
      }
      run(a, 3);
      run(b, 3);
      expect(a.pelvis.heightOffset).toBe(b.pelvis.heightOffset);
      expect(a.legs.map((l) => l.ikOffset)).toEqual(b.legs.map((l) => l.ikOffset));
    }
    expect(Math.abs(a.pelvis.heightOffset)).toBeGreaterThan(0.01);
    expect(warnings).toEqual([
      "grounding:lowerPelvisWeight",
      "grounding:liftPelvisWeight",
      "grounding:pelvisReachWeight",
      "grounding:footSpeed",
      "grounding:lengthUnit",
      "grounding:lengthScale",
      "grounding:maxStep",
    ]);
  });
});
