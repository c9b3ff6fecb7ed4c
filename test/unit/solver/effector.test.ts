/**
 * IKEffector (FinalIK's IKEffector: OnPreSolve, Update, OnPostWrite): positionOffset lifecycle, the body
 * effector carrying the thighs, end effectors restarting from the animated pose every pass, non-end
 * effectors lerping toward their target, maintainRelativePositionWeight carrying an unweighted hand or foot
 * with the plane of its plane nodes, and bad input (weights clamped in place; non-finite values ignored for
 * the frame with one warning per cause).
 */
import { describe, expect, it } from "vitest";
import { FullBodyBipedEffector as E } from "../../../src/solver/biped-bones.js";
import { Random } from "../../helpers/random.js";
import { type SyntheticBiped, bipedVariants, syntheticBiped } from "../../helpers/synthetic-biped.js";
import { type V, add, clone, cross, dot, mul, sub, unit, v } from "../../helpers/vectors.js";
import {
  type Q,
  type Stage,
  expectNear,
  put,
  qmul,
  quatAxisAngle,
  randomVec,
  snapshot,
  stage,
} from "./stage-fixture.js";

const variants = bipedVariants();

/** Node of effector `e`. */
function nodeOf(st: Stage, e: E) {
  return st.s.effectors[e]!.node;
}

/** Runs `fn` at onPostSolve of the next update. */
function atPostSolve(st: Stage, fn: () => void): void {
  const cb = st.s.onPostSolve.add(fn);
  st.s.update();
  st.s.onPostSolve.remove(cb);
}

/** Runs `fn` at onPreSolve (right after the pose was read) of the next update. */
function atPreSolve(st: Stage, fn: () => void): void {
  const cb = st.s.onPreSolve.add(fn);
  st.s.update();
  st.s.onPreSolve.remove(cb);
}

/**
 * The rotation carrying the frame of triangle (a1, a2, a3) onto that of (s1, s2, s3): forward along
 * p2 − p1, up from p3 − p1 (LookRotation's frame), written with plain Gram–Schmidt.
 */
function planeCarry(a: [V, V, V], s: [V, V, V]): (x: V) => V {
  const frame = (p: [V, V, V]): [V, V, V] => {
    const z = unit(sub(p[1], p[0]));
    const w = sub(p[2], p[0]);
    const y = unit(sub(w, mul(z, dot(w, z))));
    return [cross(y, z), y, z];
  };
  const fa = frame(a);
  const fs = frame(s);
  return (x: V) => add(add(mul(fs[0], dot(x, fa[0])), mul(fs[1], dot(x, fa[1]))), mul(fs[2], dot(x, fa[2])));
}

describe.each(variants.map((b) => [b.name, b] as const))("effectors on %s", (_name, variant) => {
  const h = variant.height;

  describe("positionOffset", () => {
    it("is added × ikPositionWeight for one solve and reset to zero after update()", () => {
      const st = stage(variant);
      const hand = st.s.effectors[E.LeftHand]!;
      const o = v(0.05 * h, -0.03 * h, 0.04 * h);
      put(hand.positionOffset, o);
      st.s.ikPositionWeight = 0.5;
      atPostSolve(st, () => {
        expectNear(
          hand.node.solverPosition,
          add(clone(hand.node.bonePosition), mul(o, 0.5)),
          1e-12 * h,
          "hand during the solve",
        );
      });
      expect(st.s.solvedLastUpdate).toBe(true);
      expect(clone(hand.positionOffset)).toEqual(v(0, 0, 0));
      // the next frame does not see it again
      atPreSolve(st, () => {
        expect(clone(hand.node.offset)).toEqual(v(0, 0, 0));
        expect(clone(hand.node.solverPosition)).toEqual(clone(hand.node.bonePosition));
      });
      expect(st.s.solvedLastUpdate).toBe(false);
    });

    it("is reset without solving when ikPositionWeight is 0", () => {
      const st = stage(variant);
      const hand = st.s.effectors[E.RightFoot]!;
      put(hand.positionOffset, v(0.1 * h, 0, 0));
      st.s.ikPositionWeight = 0;
      const before = snapshot(st.s);
      st.s.update();
      expect(clone(hand.positionOffset)).toEqual(v(0, 0, 0));
      expect(snapshot(st.s)).toEqual(before);
      st.s.ikPositionWeight = 1;
      st.s.update();
      expect(st.s.solvedLastUpdate).toBe(false);
    });

    it("on the body also moves both thigh nodes (effectChildNodes), and only the body when effectChildNodes is false or iterations = 0", () => {
      for (const [effectChildNodes, iterations, carried] of [
        [true, 4, true],
        [false, 4, false],
        [true, 0, false],
      ] as const) {
        const st = stage(variant);
        const body = st.s.effectors[E.Body]!;
        body.effectChildNodes = effectChildNodes;
        st.s.iterations = iterations;
        st.s.ikPositionWeight = 0.8;
        const o = v(-0.02 * h, 0.07 * h, 0.03 * h);
        put(body.positionOffset, o);
        atPreSolve(st, () => {
          const what = `effectChildNodes ${effectChildNodes}, iterations ${iterations}`;
          expectNear(
            body.node.solverPosition,
            add(clone(body.node.bonePosition), mul(o, 0.8)),
            1e-12 * h,
            `${what}: root`,
          );
          for (const t of [nodeOf(st, E.LeftThigh), nodeOf(st, E.RightThigh)]) {
            expectNear(
              t.solverPosition,
              add(clone(t.bonePosition), carried ? mul(o, 0.8) : v(0, 0, 0)),
              1e-12 * h,
              `${what}: thigh`,
            );
          }
          for (const sh of [nodeOf(st, E.LeftShoulder), nodeOf(st, E.RightShoulder)]) {
            expect(clone(sh.solverPosition), `${what}: shoulders are not carried`).toEqual(clone(sh.bonePosition));
          }
        });
      }
    });
  });

  it("an end effector with position weight 0 restarts from its animated position (+ offset) on every pass", () => {
    const st = stage(variant);
    const hand = st.s.effectors[E.LeftHand]!;
    const body = st.s.effectors[E.Body]!;
    body.positionWeight = 1;
    put(body.position, add(clone(body.node.bonePosition), v(0.1 * h, -0.15 * h, 0.05 * h)));
    const o = v(0.02 * h, 0.01 * h, -0.03 * h);
    put(hand.positionOffset, o);
    const rng = new Random(61);
    const seen: V[] = [];
    const pre = st.s.onPostIteration.add(() => {
      // wherever the pass left it, the next end-effector update puts it back
      put(hand.node.solverPosition, add(clone(hand.node.solverPosition), randomVec(rng, 0.3 * h)));
    });
    atPostSolve(st, () => {
      const animated = add(clone(hand.node.bonePosition), o);
      expectNear(hand.node.solverPosition, animated, 1e-12 * h, "after the final pass");
      for (let k = 0; k < 3; k++) {
        put(hand.node.solverPosition, randomVec(rng, h));
        hand.update(st.s);
        seen.push(clone(hand.node.solverPosition));
      }
      for (const p of seen) expectNear(p, animated, 1e-12 * h, "after a direct update");
    });
    st.s.onPostIteration.remove(pre);
  });

  it("a non-end effector lerps its node toward its position by positionWeight × ikPositionWeight on every update", () => {
    const st = stage(variant);
    const shoulder = st.s.effectors[E.RightShoulder]!;
    const target = add(clone(shoulder.node.bonePosition), v(0.1 * h, 0.05 * h, -0.1 * h));
    put(shoulder.position, target);
    shoulder.positionWeight = 0.5;
    st.s.ikPositionWeight = 0.8;
    st.s.update();
    const start = add(clone(shoulder.node.bonePosition), v(-0.2 * h, 0, 0.1 * h));
    put(shoulder.node.solverPosition, start);
    shoulder.update(st.s);
    expectNear(shoulder.node.solverPosition, add(start, mul(sub(target, start), 0.4)), 1e-12 * h, "first update");
    shoulder.update(st.s);
    expectNear(
      shoulder.node.solverPosition,
      add(start, mul(sub(target, start), 1 - 0.6 * 0.6)),
      1e-12 * h,
      "second update",
    );
  });

  it("the body effector lerps the thighs toward the moved body + their animated offsets by the same weight", () => {
    const st = stage(variant);
    const body = st.s.effectors[E.Body]!;
    const target = add(clone(body.node.bonePosition), v(0.05 * h, -0.1 * h, 0.02 * h));
    put(body.position, target);
    body.positionWeight = 0.5;
    // FinalIK's lerp: the thighs keep their animated offsets (preserveBoneLengths would carry the pelvis's turn)
    st.s.preserveBoneLengths = false;
    st.s.update();
    const thighs = [nodeOf(st, E.LeftThigh), nodeOf(st, E.RightThigh)];
    const starts = thighs.map((t) => add(clone(t.bonePosition), v(0.01 * h, 0.02 * h, -0.03 * h)));
    thighs.forEach((t, i) => put(t.solverPosition, starts[i]!));
    put(body.node.solverPosition, body.node.bonePosition);
    body.update(st.s);
    const root = add(clone(body.node.bonePosition), mul(sub(target, clone(body.node.bonePosition)), 0.5));
    expectNear(body.node.solverPosition, root, 1e-12 * h, "root");
    thighs.forEach((t, i) => {
      const wanted = add(root, sub(clone(t.bonePosition), clone(body.node.bonePosition)));
      expectNear(t.solverPosition, add(starts[i]!, mul(sub(wanted, starts[i]!), 0.5)), 1e-12 * h, "thigh");
    });
  });

  describe("maintainRelativePositionWeight", () => {
    /** Moves body and both shoulders rigidly: x ↦ root + R(x − root) + T. */
    function moveTorso(st: Stage, rotate: (x: V) => V, t: V): void {
      st.s.spineStiffness = 0; // the torso diagonals would otherwise resist a rotated torso against unrotated thighs
      const root = clone(st.s.effectors[E.Body]!.node.bonePosition);
      for (const e of [E.Body, E.LeftShoulder, E.RightShoulder]) {
        const eff = st.s.effectors[e]!;
        eff.positionWeight = 1;
        put(eff.position, add(add(root, rotate(sub(clone(eff.node.bonePosition), root))), t));
      }
    }

    it("1 carries an unweighted hand along with a translated torso by the same translation; 0 leaves it; 0.5 half-way", () => {
      for (const mrp of [1, 0.5, 0]) {
        const st = stage(variant);
        const t = v(0.1 * h, -0.08 * h, 0.06 * h);
        moveTorso(st, (x) => x, t);
        for (const e of [E.LeftHand, E.RightHand]) st.s.effectors[e]!.maintainRelativePositionWeight = mrp;
        atPostSolve(st, () => {
          for (const e of [E.LeftHand, E.RightHand]) {
            const n = nodeOf(st, e);
            expectNear(n.solverPosition, add(clone(n.bonePosition), mul(t, mrp)), 1e-9 * h, `mrp ${mrp}`);
            const pro = st.s.effectors[e]!.planeRotationOffset;
            expect(Math.abs(pro.w)).toBeGreaterThan(1 - 1e-12);
          }
        });
      }
    });

    it("1 carries an unweighted hand and foot along with a rotated torso (about the root), and reports the rotation as planeRotationOffset", () => {
      const st = stage(variant);
      const axis = v(0.3, 1, -0.2);
      const angle = 0.4;
      const q = quatAxisAngle(axis, angle);
      const rot = (x: V): V => {
        const k = unit(axis);
        return add(
          add(mul(x, Math.cos(angle)), mul(cross(k, x), Math.sin(angle))),
          mul(k, dot(k, x) * (1 - Math.cos(angle))),
        );
      };
      const t = v(0.02 * h, 0, -0.05 * h);
      moveTorso(st, rot, t);
      const hand = st.s.effectors[E.LeftHand]!;
      hand.maintainRelativePositionWeight = 1;
      atPostSolve(st, () => {
        const root = clone(st.s.effectors[E.Body]!.node.bonePosition);
        const expected = add(add(root, rot(sub(clone(hand.node.bonePosition), root))), t);
        expectNear(hand.node.solverPosition, expected, 1e-9 * h, "hand");
        const pro = hand.planeRotationOffset;
        const s = Math.sign(pro.w * q.w + pro.x * q.x + pro.y * q.y + pro.z * q.z);
        for (const c of ["x", "y", "z", "w"] as const) expect(Math.abs(pro[c] - s * (q as Q)[c])).toBeLessThan(1e-9);
      });
    });

    it("1 keeps an unweighted hand at its animated place in the frame of its plane nodes when only the body moves", () => {
      const st = stage(variant);
      const body = st.s.effectors[E.Body]!;
      body.positionWeight = 1;
      const t = v(0.1 * h, -0.05 * h, 0.08 * h);
      put(body.position, add(clone(body.node.bonePosition), t));
      for (const e of [E.LeftHand, E.RightHand]) st.s.effectors[e]!.maintainRelativePositionWeight = 1;
      atPostSolve(st, () => {
        for (const e of [E.LeftHand, E.RightHand]) {
          const eff = st.s.effectors[e]!;
          const planes = [eff.planeNode1!, eff.planeNode2!, eff.planeNode3!];
          const carry = planeCarry(
            planes.map((n) => clone(n.bonePosition)) as [V, V, V],
            planes.map((n) => clone(n.solverPosition)) as [V, V, V],
          );
          const expected = add(
            clone(planes[0]!.solverPosition),
            carry(sub(clone(eff.node.bonePosition), clone(planes[0]!.bonePosition))),
          );
          expectNear(eff.node.solverPosition, expected, 1e-9 * h, "hand in its plane");
        }
      });
    });
  });

  it("weights outside [0, 1] are clamped in place", () => {
    const st = stage(variant);
    const [a, b, c] = [st.s.effectors[E.LeftHand]!, st.s.effectors[E.Body]!, st.s.effectors[E.RightFoot]!];
    a.positionWeight = 1.7;
    a.rotationWeight = -0.3;
    a.maintainRelativePositionWeight = 5;
    b.positionWeight = -2;
    b.rotationWeight = 3;
    c.maintainRelativePositionWeight = -1;
    st.s.update();
    expect([a.positionWeight, a.rotationWeight, a.maintainRelativePositionWeight]).toEqual([1, 0, 1]);
    expect([b.positionWeight, b.rotationWeight]).toEqual([0, 1]);
    expect(c.maintainRelativePositionWeight).toBe(0);
    expect(a.node.effectorPositionWeight).toBe(1);
    expect(b.node.effectorPositionWeight).toBe(0);
  });
});

describe("bad effector input", () => {
  const b0 = syntheticBiped();
  const h = b0.height;

  /** The good input the recovery frame uses. */
  function good(st: Stage): void {
    const hand = st.s.effectors[E.LeftHand]!;
    hand.positionWeight = 1;
    hand.rotationWeight = 1;
    hand.maintainRelativePositionWeight = 0;
    put(hand.position, add(clone(hand.node.bonePosition), v(-0.1 * h, -0.1 * h, 0.1 * h)));
    const q = qmul(quatAxisAngle(v(1, 0.2, 0), 0.5), { ...hand.node.boneRotation });
    Object.assign(hand.rotation, q);
    const foot = st.s.effectors[E.RightFoot]!;
    foot.positionWeight = 1;
    put(foot.position, add(clone(foot.node.bonePosition), v(0, 0.1 * h, 0.1 * h)));
    put(st.s.effectors[E.Body]!.positionOffset, v(0, -0.02 * h, 0));
  }

  /** Node positions at onPostSolve of a frame on a fresh solver with only the good input. */
  function reference(b: SyntheticBiped): V[] {
    const st = stage(b);
    good(st);
    let out: V[] = [];
    atPostSolve(st, () => (out = snapshot(st.s)));
    return out;
  }

  const expectedGood = reference(syntheticBiped());

  const cases: [string, (st: Stage) => void][] = [
    ["position NaN", (st) => (st.s.effectors[E.LeftHand]!.position.y = Number.NaN)],
    ["position Infinity", (st) => (st.s.effectors[E.LeftHand]!.position.x = Number.POSITIVE_INFINITY)],
    ["rotation with Infinity", (st) => (st.s.effectors[E.LeftHand]!.rotation.z = Number.NEGATIVE_INFINITY)],
    ["rotation NaN", (st) => (st.s.effectors[E.LeftHand]!.rotation.w = Number.NaN)],
    [
      "zero rotation quaternion",
      (st) => Object.assign(st.s.effectors[E.LeftHand]!.rotation, { x: 0, y: 0, z: 0, w: 0 }),
    ],
    ["positionWeight NaN", (st) => (st.s.effectors[E.LeftHand]!.positionWeight = Number.NaN)],
    ["rotationWeight Infinity", (st) => (st.s.effectors[E.LeftHand]!.rotationWeight = Number.POSITIVE_INFINITY)],
    [
      "maintainRelativePositionWeight NaN",
      (st) => (st.s.effectors[E.LeftHand]!.maintainRelativePositionWeight = Number.NaN),
    ],
    ["positionOffset NaN", (st) => (st.s.effectors[E.LeftHand]!.positionOffset.x = Number.NaN)],
    ["positionOffset Infinity", (st) => (st.s.effectors[E.Body]!.positionOffset.y = Number.NEGATIVE_INFINITY)],
  ];

  it.each(cases)(
    "%s: ignored for the frame, one warning over several frames, then the next good frame solves normally",
    (_label, spoil) => {
      const st = stage(syntheticBiped());
      const count = st.warnings.length;
      for (let frame = 0; frame < 4; frame++) {
        good(st);
        spoil(st);
        atPostSolve(st, () => {
          for (const p of snapshot(st.s))
            expect(Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.z)).toBe(true);
        });
        for (const p of st.b.pose.positions) expect(Number.isFinite(p.x + p.y + p.z)).toBe(true);
        for (const r of st.b.pose.rotations) expect(Number.isFinite(r.x + r.y + r.z + r.w)).toBe(true);
      }
      expect(st.warnings.length - count).toBe(1);
      const w = st.warnings[st.warnings.length - 1]!;
      expect(w.message.length).toBeGreaterThan(0);
      // recovery: the same frame as on a fresh solver
      good(st);
      let got: V[] = [];
      atPostSolve(st, () => (got = snapshot(st.s)));
      got.forEach((p, i) => expectNear(p, expectedGood[i]!, 1e-14 * h, `node ${i}`));
      expect(st.warnings.length - count).toBe(1);
    },
  );

  it("each bad value is ignored for its effector only: the bad position leaves the hand at its animated place", () => {
    const st = stage(syntheticBiped());
    good(st);
    const hand = st.s.effectors[E.LeftHand]!;
    hand.position.x = Number.NaN;
    put(st.s.effectors[E.Body]!.positionOffset, v(0, 0, 0));
    atPostSolve(st, () => {
      expect(hand.node.effectorPositionWeight).toBe(0);
      expectNear(hand.node.solverPosition, clone(hand.node.bonePosition), 1e-12 * h, "hand");
      // the foot effector still solves
      const foot = st.s.effectors[E.RightFoot]!;
      expectNear(foot.node.solverPosition, clone(foot.position), 1e-12 * h, "foot");
    });
  });

  it("a zero quaternion with rotation weight 1 is ignored (rotation weight 0 in the node) with a warning; with rotation weight 0 it is not looked at", () => {
    const st = stage(syntheticBiped());
    const hand = st.s.effectors[E.RightHand]!;
    Object.assign(hand.rotation, { x: 0, y: 0, z: 0, w: 0 });
    hand.rotationWeight = 0;
    st.s.update();
    expect(st.warnings).toHaveLength(0);
    hand.rotationWeight = 1;
    atPreSolve(st, () => expect(hand.node.effectorRotationWeight).toBe(0));
    expect(st.warnings).toHaveLength(1);
    expect(st.warnings[0]!.message).toMatch(/RightHand/);
  });

  it("a non-finite master weight turns the solver off for the frame with one warning, then it recovers", () => {
    const st = stage(syntheticBiped());
    good(st);
    st.s.ikPositionWeight = Number.NaN;
    const poseBefore = st.b.pose.positions.map(clone);
    for (let k = 0; k < 3; k++) {
      good(st);
      st.s.update();
      expect(st.s.solvedLastUpdate).toBe(false);
    }
    expect(st.warnings).toHaveLength(1);
    expect(st.b.pose.positions.map(clone)).toEqual(poseBefore);
    st.s.ikPositionWeight = 1;
    good(st);
    let got: V[] = [];
    atPostSolve(st, () => (got = snapshot(st.s)));
    expect(got).toEqual(expectedGood);
  });

  it("a rotation of any non-zero length counts as its direction", () => {
    const a = stage(syntheticBiped());
    const b = stage(syntheticBiped());
    good(a);
    good(b);
    const r = b.s.effectors[E.LeftHand]!.rotation;
    Object.assign(r, { x: r.x * 3, y: r.y * 3, z: r.z * 3, w: r.w * 3 });
    let pa: V[] = [];
    let pb: V[] = [];
    atPostSolve(a, () => (pa = snapshot(a.s)));
    atPostSolve(b, () => (pb = snapshot(b.s)));
    pa.forEach((p, i) => expectNear(pb[i]!, p, 1e-12 * h, `node ${i}`));
    expect(b.warnings).toHaveLength(0);
  });
});
