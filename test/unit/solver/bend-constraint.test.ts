/**
 * IKConstraintBend (FinalIK's IKConstraintBend: Initiate, LimitBend, GetDir): the default bend direction
 * captured at initiate, LimitBend un-inverting elbows and knees in the animated pose (ClampDirection with
 * clampF 0.505 × solver weight, and the bend plane turned toward the default side by the end effector's
 * weight), and GetDir for the final trigonometric pass (animated bend carried along the limb's swing, bend
 * goal / direction by weight, the end effector's rotation, the plane rotation offset).
 *
 * Closed forms used below (derived by hand from LimitBend's ClampDirection): for a lower bone at θ degrees
 * from the normal n with dot = 1 − θ/180 ≤ c (c = clampF × solverWeight), ClampDirection slerps it to
 * θ' = θ × (dot/c) × (1 − (c − dot)/(1 − dot)) = (180 − θ)(1 − c)/c degrees from n; at most 180(1 − c).
 */
import { describe, expect, it } from "vitest";
import { NumberRef } from "../../../src/math/number-ref.js";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import type { FBIKChain } from "../../../src/solver/chain.js";
import { Random } from "../../helpers/random.js";
import { bipedVariants } from "../../helpers/synthetic-biped.js";
import { type V, add, angleDeg, clone, cross, dist, dot, len, mul, perp, sub, unit } from "../../helpers/vectors.js";
import {
  LIMB_NAMES,
  type Stage,
  bonePos,
  boneRot,
  expectNear,
  expectSameRotation,
  put,
  qmul,
  qrot,
  quatAxisAngle,
  randomUnit,
  rotate,
  stage,
} from "./stage-fixture.js";

const DEG = Math.PI / 180;

/** The limb's animated geometry from the pose: joints, upper axis, and the bend side (unit, ⟂ upper, in plane, toward the joint). */
function geometry(st: Stage, chain: FBIKChain): { b0: V; b1: V; b2: V; u: V; side: V; axis: V } {
  const [n0, n1, n2] = chain.nodes;
  const b0 = bonePos(st.b.pose, n0!.bone);
  const b1 = bonePos(st.b.pose, n1!.bone);
  const b2 = bonePos(st.b.pose, n2!.bone);
  const u = unit(sub(b1, b0));
  const axis = sub(b2, b0);
  const normal = cross(axis, sub(b1, b0));
  let side = unit(cross(normal, u));
  if (dot(side, perp(sub(b1, b0), axis)) < 0) side = mul(side, -1);
  return { b0, b1, b2, u, side, axis };
}

/** Rotates `bone`'s world rotation so that the vector from it to `child` turns onto `target` (a direction). */
function aimBone(st: Stage, bone: number, child: number, target: V): void {
  const a = sub(bonePos(st.b.pose, child), bonePos(st.b.pose, bone));
  const axis = cross(a, target);
  const angle = Math.atan2(len(axis), dot(a, target));
  const q = qmul(quatAxisAngle(axis, angle), boneRot(st.b.pose, bone));
  st.b.pose.setRotation(bone, new Quat(q.x, q.y, q.z, q.w));
  st.s.readBones();
}

const variants = bipedVariants();

describe.each(variants.map((b) => [b.name, b] as const))("bend constraint on %s", (_name, variant) => {
  it("initiate: the direction is unit, perpendicular to the upper bone, in the limb plane, toward the elbow/knee", () => {
    const st = stage(variant);
    for (let ci = 1; ci <= 4; ci++) {
      const chain = st.s.chains[ci]!;
      const bc = chain.bendConstraint;
      const g = geometry(st, chain);
      const d = clone(bc.direction);
      const what = LIMB_NAMES[ci - 1];
      expect(bc.initiated).toBe(true);
      expect(bc.straightAtInitiate).toBe(false);
      expect(Math.abs(len(d) - 1), what).toBeLessThan(1e-12);
      expect(Math.abs(dot(d, g.u)), what).toBeLessThan(1e-12);
      expect(Math.abs(dot(d, unit(cross(g.axis, g.u)))), what).toBeLessThan(1e-12);
      expect(dot(d, perp(sub(g.b1, g.b0), g.axis)), what).toBeGreaterThan(0);
      expectNear(d, g.side, 1e-12, what);
      // stored in the upper bone's frame
      expectNear(
        qrot(boneRot(st.b.pose, chain.nodes[0]!.bone), clone(bc.defaultLocalDirection)),
        g.side,
        1e-12,
        `${what} local`,
      );
    }
  });

  it("limitBend leaves a naturally bent limb unchanged (exactly with position weight 0, to rounding with 1)", () => {
    const st = stage(variant);
    const p = st.b.pose;
    const positions = p.positions.map(clone);
    const rotations = p.rotations.map((r) => ({ x: r.x, y: r.y, z: r.z, w: r.w }));
    for (let ci = 1; ci <= 4; ci++)
      st.s.chains[ci]!.bendConstraint.limitBend(p, { ikPositionWeight: 1 }, new NumberRef(0));
    expect(p.positions.map(clone)).toEqual(positions);
    expect(p.rotations.map((r) => ({ x: r.x, y: r.y, z: r.z, w: r.w }))).toEqual(rotations);
    for (let ci = 1; ci <= 4; ci++)
      st.s.chains[ci]!.bendConstraint.limitBend(p, { ikPositionWeight: 1 }, new NumberRef(1));
    p.positions.forEach((q, i) => expectNear(q, positions[i]!, 1e-12 * variant.height, p.names[i]!));
    p.rotations.forEach((q, i) => expectSameRotation(q, rotations[i]!, 1e-12, p.names[i]!));
  });

  describe("limitBend un-inverts a hyperextended elbow or knee", () => {
    for (const [solverWeight, expectedAngle] of [
      [1, (30 * (1 - 0.505)) / 0.505], // ≈ 29.4°
      [0.5, (30 * (1 - 0.2525)) / 0.2525], // ≈ 88.8°
      [0.25, 150], // c = 0.126 < dot = 1/6: inside the allowed cone, unchanged
    ] as const) {
      it(`bent 60° past straight, solver weight ${solverWeight}: lower bone ${expectedAngle.toFixed(2)}° from the default bend side, in the same plane, hand rotation kept`, () => {
        const st = stage(variant);
        const p = st.b.pose;
        for (let ci = 1; ci <= 4; ci++) {
          const chain = st.s.chains[ci]!;
          const [n0, n1, n2] = chain.nodes;
          const g = geometry(st, chain);
          const lower = dist(g.b1, g.b2);
          // lower bone 60° past the straight line toward the bend side: the joint points the wrong way
          aimBone(st, n1!.bone, n2!.bone, add(mul(g.u, Math.cos(60 * DEG)), mul(g.side, Math.sin(60 * DEG))));
          const n = mul(g.side, -1);
          const inverted = sub(bonePos(p, n2!.bone), bonePos(p, n1!.bone));
          expect(Math.abs(angleDeg(n, inverted) - 150)).toBeLessThan(1e-9);
          const handBefore = boneRot(p, n2!.bone);
          const elbowBefore = bonePos(p, n1!.bone);

          chain.bendConstraint.limitBend(p, { ikPositionWeight: solverWeight }, new NumberRef(0));

          const what = `${LIMB_NAMES[ci - 1]} w ${solverWeight}`;
          const after = sub(bonePos(p, n2!.bone), bonePos(p, n1!.bone));
          expect(Math.abs(angleDeg(n, after) - expectedAngle), what).toBeLessThan(1e-8);
          expect(angleDeg(n, after), what).toBeLessThanOrEqual(180 * (1 - 0.505 * solverWeight) + 1e-9);
          expect(Math.abs(dot(unit(after), unit(cross(n, inverted)))), `${what} plane`).toBeLessThan(1e-12);
          expect(Math.abs(len(after) - lower) / lower, `${what} length`).toBeLessThan(1e-12);
          expectNear(bonePos(p, n1!.bone), elbowBefore, 0, `${what} elbow position`);
          expectSameRotation(boneRot(p, n2!.bone), handBefore, 1e-12, `${what} hand rotation`);
          // the node snapshots follow the pose
          expect({ ...n1!.boneRotation }).toEqual({ ...p.rotations[n1!.bone]! });
          expect(clone(n2!.bonePosition)).toEqual(bonePos(p, n2!.bone));
          expect({ ...n2!.boneRotation }).toEqual({ ...p.rotations[n2!.bone]! });
          expect(clone(n0!.bonePosition)).toEqual(g.b0);
        }
      });
    }

    it("through the pipeline: a driven frame at master weight 1 un-inverts the pose before the nodes read it", () => {
      const st = stage(variant);
      const p = st.b.pose;
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const g = geometry(st, chain);
        aimBone(
          st,
          chain.nodes[1]!.bone,
          chain.nodes[2]!.bone,
          add(mul(g.u, Math.cos(60 * DEG)), mul(g.side, Math.sin(60 * DEG))),
        );
      }
      // a body rotation weight drives the frame without moving anything (body rotation has no effect)
      st.s.bodyEffector.rotationWeight = 1;
      st.s.update();
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const [n0, , n2] = chain.nodes;
        const n = mul(clone(chain.bendConstraint.direction), -1);
        const after = sub(bonePos(p, n2!.bone), bonePos(p, chain.nodes[1]!.bone));
        expect(Math.abs(angleDeg(n, after) - (30 * (1 - 0.505)) / 0.505)).toBeLessThan(1e-8);
        // nodes read the corrected pose; the unweighted end node stays at its bone, the rest within rounding
        expect(clone(n2!.bonePosition)).toEqual(bonePos(p, n2!.bone));
        expect(clone(n2!.solverPosition)).toEqual(bonePos(p, n2!.bone));
        const d0 = sub(clone(n0!.solverPosition), bonePos(p, n0!.bone));
        expect(Math.hypot(d0.x, d0.y, d0.z)).toBeLessThan(1e-9 * st.b.height);
      }
    });

    it("through the pipeline: with nothing driving the solver the hyperextended pose passes through untouched", () => {
      const st = stage(variant);
      const p = st.b.pose;
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const g = geometry(st, chain);
        aimBone(
          st,
          chain.nodes[1]!.bone,
          chain.nodes[2]!.bone,
          add(mul(g.u, Math.cos(60 * DEG)), mul(g.side, Math.sin(60 * DEG))),
        );
      }
      const before = p.rotations.map((q) => ({ x: q.x, y: q.y, z: q.z, w: q.w }));
      st.s.update();
      expect(p.rotations.map((q) => ({ x: q.x, y: q.y, z: q.z, w: q.w }))).toEqual(before);
    });
  });

  it("limitBend with a weighted end effector turns a nearly straight limb's bend plane toward the default side by positionWeight × solverWeight; a bent limb keeps its plane", () => {
    // [bend, twist of the plane from the default side, remaining twist per (solverWeight, positionWeight)]:
    // 1.5° leaves the animated plane undefined (FinalIK's turn); at 30° the animated plane is kept
    for (const [bendDeg, twistDeg, remainders] of [
      [1.5, 30, [0, 15, 15, 30]],
      [30, 60, [60, 60, 60, 60]],
    ] as const) {
      const weights = [
        [1, 1],
        [1, 0.5],
        [0.5, 1],
        [1, 0],
      ] as const;
      weights.forEach(([solverWeight, positionWeight], wi) => {
        const remaining = remainders[wi]!;
        const st = stage(variant);
        const p = st.b.pose;
        for (let ci = 1; ci <= 4; ci++) {
          const chain = st.s.chains[ci]!;
          const [, n1, n2] = chain.nodes;
          const g = geometry(st, chain);
          const n = mul(g.side, -1);
          const m = unit(cross(g.u, n));
          // lower bone bent off the upper axis, its plane twisted away from the default side (inside the clamp's cone)
          const bent = add(
            mul(g.u, Math.cos(bendDeg * DEG)),
            mul(add(mul(n, Math.cos(twistDeg * DEG)), mul(m, Math.sin(twistDeg * DEG))), Math.sin(bendDeg * DEG)),
          );
          aimBone(st, n1!.bone, n2!.bone, bent);
          const handBefore = boneRot(p, n2!.bone);
          chain.bendConstraint.limitBend(p, { ikPositionWeight: solverWeight }, new NumberRef(positionWeight));
          const after = sub(bonePos(p, n2!.bone), bonePos(p, n1!.bone));
          const what = `${LIMB_NAMES[ci - 1]} bent ${bendDeg}° (${solverWeight}, ${positionWeight})`;
          expect(Math.abs(angleDeg(perp(after, g.u), n) - remaining), what).toBeLessThan(1e-7);
          expect(Math.abs(angleDeg(after, g.u) - bendDeg), `${what}: bend angle kept`).toBeLessThan(1e-7);
          expectSameRotation(boneRot(p, n2!.bone), handBefore, 1e-12, `${what} hand rotation`);
        }
      });
    }
  });

  describe("getDir", () => {
    it("weight 0, limb at its animated pose: the animated bend (elbow − shoulder)", () => {
      const st = stage(variant);
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const g = geometry(st, chain);
        const out = chain.bendConstraint.getDir(new Vec3(), { ikPositionWeight: 1 });
        expectNear(out, sub(g.b1, g.b0), 1e-12 * variant.height, LIMB_NAMES[ci - 1]);
      }
    });

    it("weight 0 carries the animated bend plane along a swing of the limb (100 swings per limb)", () => {
      const st = stage(variant);
      const rng = new Random(41);
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const [n0, , n2] = chain.nodes;
        const g = geometry(st, chain);
        for (let k = 0; k < 100; k++) {
          const swingAxis = cross(g.axis, randomUnit(rng));
          const angle = rng.range(-3, 3);
          const origin = add(g.b0, mul(randomUnit(rng), rng.range(0, variant.height)));
          put(n0!.solverPosition, origin);
          put(n2!.solverPosition, add(origin, rotate(g.axis, swingAxis, angle)));
          const out = chain.bendConstraint.getDir(new Vec3(), { ikPositionWeight: 1 });
          expectNear(
            out,
            rotate(sub(g.b1, g.b0), swingAxis, angle),
            1e-9 * len(g.axis),
            `${LIMB_NAMES[ci - 1]} swing ${angle}`,
          );
        }
      }
    });

    it("a bend goal at weight 1 points at the goal (normalized goal − first node); at master weight 0.5 it is half-way", () => {
      const st = stage(variant);
      const rng = new Random(43);
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const bc = chain.bendConstraint;
        const g = geometry(st, chain);
        bc.weight = 1;
        for (let k = 0; k < 20; k++) {
          const goal = add(g.b0, mul(randomUnit(rng), rng.range(0.1, 2) * variant.height));
          bc.bendGoal = new Vec3(goal.x, goal.y, goal.z);
          expectNear(bc.getDir(new Vec3(), { ikPositionWeight: 1 }), unit(sub(goal, g.b0)), 1e-12, LIMB_NAMES[ci - 1]);
          expectNear(bc.direction, sub(goal, g.b0), 1e-12 * variant.height, "direction follows the goal");
          const half = bc.getDir(new Vec3(), { ikPositionWeight: 0.5 });
          expectNear(
            half,
            mul(add(unit(sub(g.b1, g.b0)), unit(sub(goal, g.b0))), 0.5),
            1e-12,
            `${LIMB_NAMES[ci - 1]} master 0.5`,
          );
        }
      }
    });

    it("an explicit direction blends with the animated bend by weight (unit directions)", () => {
      const st = stage(variant);
      const rng = new Random(44);
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const bc = chain.bendConstraint;
        const g = geometry(st, chain);
        for (const w of [0.25, 0.5, 1]) {
          const d = mul(randomUnit(rng), rng.range(0.01, 100));
          put(bc.direction, d);
          bc.weight = w;
          const out = bc.getDir(new Vec3(), { ikPositionWeight: 1 });
          const expected = add(mul(unit(sub(g.b1, g.b0)), 1 - w), mul(unit(d), w));
          expectNear(out, expected, 1e-12, `${LIMB_NAMES[ci - 1]} w ${w}`);
        }
      }
    });

    it("end effector rotation weight 1: the hand/foot target rotation defines the bend plane, and twisting it about the limb twists the direction", () => {
      const st = stage(variant);
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const effector = st.s.effectors[4 + ci]!;
        const g = geometry(st, chain);
        const handRot = boneRot(st.b.pose, chain.nodes[2]!.bone);
        const animatedSide = unit(perp(sub(g.b1, g.b0), g.axis));
        for (const alpha of [0, 30, -75, 140]) {
          effector.rotationWeight = 1;
          const q = qmul(quatAxisAngle(g.axis, alpha * DEG), handRot);
          effector.rotation.x = q.x;
          effector.rotation.y = q.y;
          effector.rotation.z = q.z;
          effector.rotation.w = q.w;
          st.s.update();
          expect(chain.nodes[2]!.effectorRotationWeight).toBe(1);
          for (const c of st.s.chains) for (const n of c.nodes) put(n.solverPosition, n.bonePosition);
          const out = chain.bendConstraint.getDir(new Vec3(), { ikPositionWeight: 1 });
          const what = `${LIMB_NAMES[ci - 1]} twist ${alpha}°`;
          expectNear(unit(out), rotate(animatedSide, g.axis, alpha * DEG), 1e-9, what);
          expect(Math.abs(dot(out, g.axis)) / len(out), `${what}: perpendicular to the limb`).toBeLessThan(1e-9);
        }
      }
    });

    it("rotation weight 0.5 blends the effector's plane with the animated bend", () => {
      const st = stage(variant);
      const chain = st.s.chains[1]!;
      const g = geometry(st, chain);
      const n2 = chain.nodes[2];
      const handRot = boneRot(st.b.pose, n2!.bone);
      const animated = sub(g.b1, g.b0);
      n2!.effectorRotationWeight = 1;
      const q = qmul(quatAxisAngle(g.axis, 90 * DEG), handRot);
      n2!.solverRotation.x = q.x;
      n2!.solverRotation.y = q.y;
      n2!.solverRotation.z = q.z;
      n2!.solverRotation.w = q.w;
      const full = clone(chain.bendConstraint.getDir(new Vec3(), { ikPositionWeight: 1 }));
      n2!.effectorRotationWeight = 0.5;
      const half = clone(chain.bendConstraint.getDir(new Vec3(), { ikPositionWeight: 1 }));
      expectNear(half, mul(add(animated, full), 0.5), 1e-12 * variant.height);
    });

    it("a rotation offset about the limb axis twists the direction by the same angle; any offset only twists about the limb", () => {
      const st = stage(variant);
      const rng = new Random(47);
      for (let ci = 1; ci <= 4; ci++) {
        const chain = st.s.chains[ci]!;
        const bc = chain.bendConstraint;
        const g = geometry(st, chain);
        const animated = sub(g.b1, g.b0);
        for (const alpha of [10, -45, 120]) {
          const q = quatAxisAngle(g.axis, alpha * DEG);
          Object.assign(bc.rotationOffset, q);
          expectNear(
            bc.getDir(new Vec3(), { ikPositionWeight: 1 }),
            rotate(animated, g.axis, alpha * DEG),
            1e-12 * variant.height,
            `${LIMB_NAMES[ci - 1]} ${alpha}°`,
          );
        }
        for (let k = 0; k < 50; k++) {
          const r = rng.unitQuaternion();
          if (Math.abs(r.w) > 0.999) continue;
          Object.assign(bc.rotationOffset, r);
          const out = clone(bc.getDir(new Vec3(), { ikPositionWeight: 1 }));
          const what = `${LIMB_NAMES[ci - 1]} random offset ${k}`;
          expect(Math.abs(len(out) - len(animated)) / len(animated), what).toBeLessThan(1e-12);
          expect(Math.abs(dot(out, unit(g.axis)) - dot(animated, unit(g.axis))) / len(animated), what).toBeLessThan(
            1e-12,
          );
        }
        // within Unity's identity tolerance: ignored
        Object.assign(bc.rotationOffset, quatAxisAngle(g.axis, 1e-4));
        expect(clone(bc.getDir(new Vec3(), { ikPositionWeight: 1 }))).toEqual(
          clone(bc.getDir(new Vec3(), { ikPositionWeight: 1 })),
        );
        const nearIdentity = clone(bc.getDir(new Vec3(), { ikPositionWeight: 1 }));
        Object.assign(bc.rotationOffset, { x: 0, y: 0, z: 0, w: 1 });
        expect(nearIdentity).toEqual(clone(bc.getDir(new Vec3(), { ikPositionWeight: 1 })));
      }
    });
  });
});
