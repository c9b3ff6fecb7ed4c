/**
 * Property tests of the biped solver over seeded random inputs on every synthetic biped variant.
 */
import { describe, expect, it } from "vitest";
import type { Vec3 } from "../../src/math/vec3.js";
import { FullBodyBipedChain } from "../../src/solver/biped-bones.js";
import type { IKSolverFullBodyBiped } from "../../src/solver/full-body-biped.js";
import { Random } from "../helpers/random.js";
import { clearWeights, harness, type Harness } from "../helpers/solver-harness.js";
import { bipedVariants } from "../helpers/synthetic-biped.js";
import { type V, cross, dot, len, mul, perp, sub } from "../helpers/vectors.js";

const LIMBS = [
  FullBodyBipedChain.LeftArm,
  FullBodyBipedChain.RightArm,
  FullBodyBipedChain.LeftLeg,
  FullBodyBipedChain.RightLeg,
];

/** Rodrigues: rotates v by the shortest arc taking direction a onto direction b (independent of the library). */
function swing(v: V, a: V, b: V): V {
  const na = mul(a, 1 / len(a));
  const nb = mul(b, 1 / len(b));
  const axis = cross(na, nb);
  const s = len(axis);
  const c = dot(na, nb);
  if (s < 1e-12) return c > 0 ? v : { x: Number.NaN, y: Number.NaN, z: Number.NaN };
  const k = mul(axis, 1 / s);
  const kv = cross(k, v);
  const kdv = dot(k, v);
  return {
    x: v.x * c + kv.x * s + k.x * kdv * (1 - c),
    y: v.y * c + kv.y * s + k.y * kdv * (1 - c),
    z: v.z * c + kv.z * s + k.z * kdv * (1 - c),
  };
}

function setTarget(
  solver: IKSolverFullBodyBiped,
  limb: FullBodyBipedChain,
  rng: Random,
  minReach: number,
  maxReach: number,
): void {
  const chain = solver.getChain(limb);
  const start = chain.nodes[0]!.bonePosition;
  const d = rng.unitVector();
  const r = rng.range(minReach, maxReach) * (chain.nodes[0]!.length + chain.nodes[1]!.length);
  const e = solver.getEndEffector(limb);
  e.position.x = start.x + d.x * r;
  e.position.y = start.y + d.y * r;
  e.position.z = start.z + d.z * r;
}

function allFinite(solver: IKSolverFullBodyBiped): boolean {
  for (const c of solver.chains) {
    for (const n of c.nodes) {
      const p: Vec3 = n.solverPosition;
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y) || !Number.isFinite(p.z)) return false;
    }
  }
  return true;
}

describe("solver properties over seeded random inputs", () => {
  it("over 10,000 random reachable targets every fully driven elbow and knee bends within 80° of its natural pole, and every output is finite", () => {
    const harnesses: Harness[] = bipedVariants().map((v) => harness(v));
    const rng = new Random(20261121);
    const failures: string[] = [];
    let checked = 0;
    let folded = 0;
    let natural = 0;
    for (let sample = 0; sample < 10_000; sample++) {
      const h = harnesses[sample % harnesses.length]!;
      const s = h.solver;
      clearWeights(s);
      s.iterations = sample % 10 === 0 ? rng.int(11) : 4;
      for (const limb of LIMBS) {
        setTarget(s, limb, rng, 0.15, 0.97);
        s.getEndEffector(limb).positionWeight = rng.next() < 0.5 ? 1 : rng.range(0.2, 1);
      }
      if (rng.next() < 0.3) {
        const body = s.bodyEffector;
        const d = rng.unitVector();
        const r = rng.range(0, 0.1) * h.b.height;
        body.position.x = body.node.bonePosition.x + d.x * r;
        body.position.y = body.node.bonePosition.y + d.y * r;
        body.position.z = body.node.bonePosition.z + d.z * r;
        body.positionWeight = rng.next();
      }
      s.update();
      if (!allFinite(s)) {
        failures.push(`sample ${sample} (${h.b.name}): non-finite output`);
        continue;
      }
      for (const limb of LIMBS) {
        const [n0, n1, n2] = s.getChain(limb).nodes;
        const axis = sub(n2!.solverPosition, n0!.solverPosition);
        const bendSolved = perp(sub(n1!.solverPosition, n0!.solverPosition), axis);
        // the animated bend carried along by the swing of the limb
        const carried = swing(sub(n1!.bonePosition, n0!.bonePosition), sub(n2!.bonePosition, n0!.bonePosition), axis);
        const expected = perp(carried, axis);
        const limbLength = n0!.length + n1!.length;
        // an exactly reversed limb has no defined carried bend (FinalIK's documented singularity), and a
        // fully folded limb (hand on the shoulder: the elbow lies on the axis) has no bend side at all
        if (!(len(expected) > 1e-6 * limbLength)) continue;
        if (!(len(bendSolved) > 1e-6 * limbLength)) {
          folded++;
          continue;
        }
        checked++;
        // the natural side (test/helpers/limb-bends.ts: knees forward, elbows back, turned with the limb)
        // in the solver's own character frame: a limb whose end effector has full weight and whose natural
        // pole is at least 0.4 long bends within 80° of that pole
        const bc = s.getChain(limb).bendConstraint;
        const f = bc.naturalForward;
        const u = bc.naturalUp;
        const z = mul(axis, 1 / len(axis));
        const isLeg = limb === FullBodyBipedChain.LeftLeg || limb === FullBodyBipedChain.RightLeg;
        const c = sub(mul(f, dot(z, u) - (1 - dot(z, u) ** 2)), mul(u, 1 + dot(z, f)));
        const pole = isLeg ? sub(mul(u, dot(z, f)), mul(f, dot(z, u))) : sub(c, mul(z, dot(c, z)));
        const judged = len(pole) >= 0.4 && s.getEndEffector(limb).positionWeight >= 1;
        if (judged) natural++;
        const ok =
          !judged || dot(bendSolved, pole) / (len(bendSolved) * len(pole)) >= Math.cos((80 * Math.PI) / 180) - 1e-9;
        if (!ok) {
          failures.push(
            `sample ${sample} (${h.b.name}) limb ${FullBodyBipedChain[limb]}: bend ${JSON.stringify(bendSolved)} vs ${JSON.stringify(expected)}`,
          );
        }
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(39_000);
    expect(folded).toBeLessThan(40);
    expect(natural).toBeGreaterThan(10_000);
  });

  it("over 10,000 random frames of every input (rotations, offsets, pulls, pushes, bend goals, iterations) every output is finite", () => {
    const harnesses: Harness[] = bipedVariants().map((v) => harness(v));
    const rng = new Random(4242);
    const failures: string[] = [];
    for (let sample = 0; sample < 10_000; sample++) {
      const h = harnesses[sample % harnesses.length]!;
      const s = h.solver;
      const size = h.b.height;
      s.iterations = rng.int(11);
      s.ikPositionWeight = rng.next() < 0.2 ? 1 : rng.next();
      s.spineStiffness = rng.next();
      s.pullBodyVertical = rng.range(-1, 1);
      s.pullBodyHorizontal = rng.range(-1, 1);
      s.fabrikPass = rng.next() < 0.9;
      for (const e of s.effectors) {
        const d = rng.unitVector();
        const r = rng.range(0, 1.5) * size;
        e.position.x = e.node.bonePosition.x + d.x * r;
        e.position.y = e.node.bonePosition.y + d.y * r;
        e.position.z = e.node.bonePosition.z + d.z * r;
        const q = rng.unitQuaternion();
        e.rotation.x = q.x;
        e.rotation.y = q.y;
        e.rotation.z = q.z;
        e.rotation.w = q.w;
        e.positionWeight = rng.next() < 0.5 ? 0 : rng.next();
        e.rotationWeight = rng.next() < 0.5 ? 0 : rng.next();
        e.maintainRelativePositionWeight = rng.next() < 0.7 ? 0 : rng.next();
        if (rng.next() < 0.2) {
          const o = rng.unitVector();
          const m = rng.range(0, 0.3) * size;
          e.positionOffset.x = o.x * m;
          e.positionOffset.y = o.y * m;
          e.positionOffset.z = o.z * m;
        }
      }
      for (let c = 1; c < 5; c++) {
        const chain = s.chains[c]!;
        chain.pull = rng.next();
        chain.push = rng.next() < 0.5 ? 0 : rng.next();
        chain.pushParent = rng.range(-1, 1);
        chain.reach = rng.next() < 0.5 ? 0.1 : rng.next();
        chain.reachSmoothing = rng.int(3);
        chain.pushSmoothing = rng.int(3);
        const bc = chain.bendConstraint;
        bc.weight = rng.next() < 0.5 ? 0 : rng.next();
        if (rng.next() < 0.3) {
          const d = rng.unitVector();
          bc.bendGoal = {
            x: chain.nodes[1]!.bonePosition.x + d.x * size * 0.3,
            y: chain.nodes[1]!.bonePosition.y + d.y * size * 0.3,
            z: chain.nodes[1]!.bonePosition.z + d.z * size * 0.3,
          } as Vec3;
        } else {
          bc.bendGoal = null;
        }
      }
      s.update();
      if (!allFinite(s)) failures.push(`sample ${sample} (${h.b.name}): non-finite output`);
      // the pose itself (LimitBend writes it) must stay finite too
      for (let i = 0; i < h.b.pose.count; i++) {
        const p = h.b.pose.positions[i]!;
        const q = h.b.pose.rotations[i]!;
        if (![p.x, p.y, p.z, q.x, q.y, q.z, q.w].every(Number.isFinite)) {
          failures.push(`sample ${sample} (${h.b.name}): non-finite pose bone ${i}`);
          break;
        }
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });
});
