/**
 * The biped solver end to end on the synthetic biped variants (T, A, ×0.01, ×100, mirrored): exactness
 * at zero weight, reaching, pulling, the body effector, partial weights, the limbs-only mode, and the
 * mirror and scale symmetries.
 */
import { describe, expect, it } from "vitest";
import { Quat, inverseRotateVector, lookRotation, rotateVector } from "../../src/math/quat.js";
import { Vec3, sub } from "../../src/math/vec3.js";
import { FullBodyBipedChain } from "../../src/solver/biped-bones.js";
import type { IKSolverFullBodyBiped } from "../../src/solver/full-body-biped.js";
import { Random } from "../helpers/random.js";
import {
  bonePositions,
  chainBoneLengthError,
  clearWeights,
  harness,
  limbEnd,
  maxBoneLengthError,
  maxRootLengthError,
  nodePositions,
} from "../helpers/solver-harness.js";
import { bipedVariants, syntheticBiped } from "../helpers/synthetic-biped.js";
import { dist } from "../helpers/vectors.js";

const LIMBS = [
  FullBodyBipedChain.LeftArm,
  FullBodyBipedChain.RightArm,
  FullBodyBipedChain.LeftLeg,
  FullBodyBipedChain.RightLeg,
];

/** A point at `reach` × limb length from the limb's animated first bone, in a random direction. */
function targetAround(
  solver: IKSolverFullBodyBiped,
  limb: FullBodyBipedChain,
  rng: Random,
  minReach: number,
  maxReach: number,
): Vec3 {
  const chain = solver.getChain(limb);
  const start = chain.nodes[0]!.bonePosition;
  const d = rng.unitVector();
  const r = rng.range(minReach, maxReach) * (chain.nodes[0]!.length + chain.nodes[1]!.length);
  return new Vec3(start.x + d.x * r, start.y + d.y * r, start.z + d.z * r);
}

function exactlyEqual(a: Vec3[], b: Vec3[]): boolean {
  return a.length === b.length && a.every((p, i) => p.x === b[i]!.x && p.y === b[i]!.y && p.z === b[i]!.z);
}

function poseSnapshot(h: ReturnType<typeof harness>): number[] {
  const out: number[] = [];
  for (let i = 0; i < h.b.pose.count; i++) {
    const p = h.b.pose.positions[i]!;
    const q = h.b.pose.rotations[i]!;
    out.push(p.x, p.y, p.z, q.x, q.y, q.z, q.w);
  }
  return out;
}

describe.each(bipedVariants().map((v) => [v.name, v] as const))("biped solver on %s", (_name, variant) => {
  const fresh = () =>
    harness(
      syntheticBiped({
        pose: variant.name.startsWith("A") ? "A" : "T",
        scale: variant.scale,
        mirrored: variant.mirrored,
      }),
    );

  it("sets up without warnings and picks the spine bone below mid-torso as root node", () => {
    const h = fresh();
    expect(h.warnings).toEqual([]);
    expect(h.b.pose.getName(h.solver.rootNode)).toBe("Spine");
  });

  it("with all weights 0 outputs exactly the input, frame after frame", () => {
    const h = fresh();
    const before = poseSnapshot(h);
    for (let frame = 0; frame < 5; frame++) {
      h.solver.update();
      expect(exactlyEqual(nodePositions(h.solver), bonePositions(h.solver))).toBe(true);
      expect(poseSnapshot(h)).toEqual(before);
      expect(h.solver.solvedLastUpdate).toBe(false);
    }
  });

  it("after weights 1 then back to 0 outputs exactly the input again", () => {
    const h = fresh();
    const rng = new Random(7);
    for (const limb of LIMBS) {
      const e = h.solver.getEndEffector(limb);
      const t = targetAround(h.solver, limb, rng, 0.3, 0.8);
      e.position.x = t.x;
      e.position.y = t.y;
      e.position.z = t.z;
      e.positionWeight = 1;
      e.rotationWeight = 1;
    }
    h.solver.bodyEffector.positionWeight = 1;
    h.solver.bodyEffector.position.y -= 0.1 * h.b.height;
    h.solver.update();
    expect(h.solver.solvedLastUpdate).toBe(true);
    expect(exactlyEqual(nodePositions(h.solver), bonePositions(h.solver))).toBe(false);
    clearWeights(h.solver);
    h.solver.update();
    expect(exactlyEqual(nodePositions(h.solver), bonePositions(h.solver))).toBe(true);
  });

  it("a solve that asks for the animated pose returns it to 1e-9 of the height (no drift in the pipeline)", () => {
    const h = fresh();
    // every effector pinned where the animation has it: a full solve that must change nothing
    for (const e of h.solver.effectors) e.pinToBone(1, 1);
    for (let frame = 0; frame < 3; frame++) {
      h.solver.update();
      expect(h.solver.solvedLastUpdate).toBe(true);
      const out = nodePositions(h.solver);
      const input = bonePositions(h.solver);
      for (let i = 0; i < out.length; i++) expect(dist(out[i]!, input[i]!)).toBeLessThan(1e-9 * h.b.height);
    }
  });

  it("reaches reachable hand and foot targets one limb at a time, keeping bone and root lengths", () => {
    const h = fresh();
    const rng = new Random(11);
    for (let trial = 0; trial < 200; trial++) {
      const limb = LIMBS[trial % 4]!;
      clearWeights(h.solver);
      const e = h.solver.getEndEffector(limb);
      const t = targetAround(h.solver, limb, rng, 0.25, 0.9);
      e.position.x = t.x;
      e.position.y = t.y;
      e.position.z = t.z;
      e.positionWeight = 1;
      h.solver.update();
      const chain = h.solver.getChain(limb);
      const limbLength = chain.nodes[0]!.length + chain.nodes[1]!.length;
      expect(dist(limbEnd(chain), t) / limbLength).toBeLessThan(1e-4);
      expect(maxBoneLengthError(h.solver)).toBeLessThan(1e-4);
      expect(maxRootLengthError(h.solver)).toBeLessThan(1e-4);
    }
  });

  it("reaches four reachable targets at once", () => {
    const h = fresh();
    const rng = new Random(12);
    for (let trial = 0; trial < 100; trial++) {
      const targets = LIMBS.map((limb) => targetAround(h.solver, limb, rng, 0.25, 0.75));
      LIMBS.forEach((limb, i) => {
        const e = h.solver.getEndEffector(limb);
        e.position.x = targets[i]!.x;
        e.position.y = targets[i]!.y;
        e.position.z = targets[i]!.z;
        e.positionWeight = 1;
      });
      h.solver.update();
      LIMBS.forEach((limb, i) => {
        const chain = h.solver.getChain(limb);
        const limbLength = chain.nodes[0]!.length + chain.nodes[1]!.length;
        expect(dist(limbEnd(chain), targets[i]!) / limbLength).toBeLessThan(1e-4);
      });
      expect(maxBoneLengthError(h.solver)).toBeLessThan(1e-4);
      expect(maxRootLengthError(h.solver)).toBeLessThan(1e-4);
    }
  });

  it("an unreachable hand target pulls shoulder and root toward it with pull 1, and the hand gets closer than with pull 0", () => {
    const run = (pull: number) => {
      const h = fresh();
      const arm = h.solver.leftArmChain;
      arm.pull = pull;
      const shoulder = arm.nodes[0]!.bonePosition;
      const root = h.solver.bodyChain.nodes[0]!.bonePosition;
      const armLength = arm.nodes[0]!.length + arm.nodes[1]!.length;
      // 1.6 arm lengths out to the character's left and a little forward: far beyond reach
      const side = variant.mirrored ? -1 : 1;
      const t = new Vec3(shoulder.x + side * 1.5 * armLength, shoulder.y, shoulder.z + 0.4 * armLength);
      const e = h.solver.leftHandEffector;
      e.position.x = t.x;
      e.position.y = t.y;
      e.position.z = t.z;
      e.positionWeight = 1;
      h.solver.update();
      const toTarget = new Vec3(t.x - shoulder.x, t.y - shoulder.y, t.z - shoulder.z);
      const move = (p: Vec3, from: Vec3) =>
        ((p.x - from.x) * toTarget.x + (p.y - from.y) * toTarget.y + (p.z - from.z) * toTarget.z) /
        Math.hypot(toTarget.x, toTarget.y, toTarget.z);
      return {
        hand: dist(limbEnd(arm), t) / armLength,
        shoulderMove: move(arm.nodes[0]!.solverPosition, shoulder) / armLength,
        rootMove: move(h.solver.bodyChain.nodes[0]!.solverPosition, root) / armLength,
        boneError: maxBoneLengthError(h.solver),
      };
    };
    const pulled = run(1);
    const free = run(0);
    expect(pulled.shoulderMove).toBeGreaterThan(0.05);
    expect(pulled.rootMove).toBeGreaterThan(0.02);
    expect(pulled.hand).toBeLessThan(free.hand - 0.05);
    // with pull 0 the body stays (only reach's small drag remains)
    expect(Math.abs(free.rootMove)).toBeLessThan(0.02);
  });

  it("the body effector at weight 1 puts the root node within 1e-4 of its target, even with limbs pulling", () => {
    const h = fresh();
    const body = h.solver.bodyEffector;
    const start = h.solver.bodyChain.nodes[0]!.bonePosition;
    const t = new Vec3(start.x + 0.05 * h.b.height, start.y - 0.15 * h.b.height, start.z + 0.08 * h.b.height);
    body.position.x = t.x;
    body.position.y = t.y;
    body.position.z = t.z;
    body.positionWeight = 1;
    // feet pinned where they are: a crouch
    h.solver.leftFootEffector.pinToBone(1, 0);
    h.solver.rightFootEffector.pinToBone(1, 0);
    h.solver.update();
    expect(dist(h.solver.bodyChain.nodes[0]!.solverPosition, t) / h.b.height).toBeLessThan(1e-4);
    for (const limb of [FullBodyBipedChain.LeftLeg, FullBodyBipedChain.RightLeg]) {
      const chain = h.solver.getChain(limb);
      expect(dist(limbEnd(chain), chain.nodes[2]!.bonePosition) / h.b.height).toBeLessThan(1e-4);
      // the pinned legs keep their bone lengths (the unweighted arms stretch toward their animated
      // hands, as in FinalIK: maintainRelativePositionWeight is what carries them along)
      for (let i = 0; i < 2; i++) {
        const n = chain.nodes[i]!;
        expect(Math.abs(dist(n.solverPosition, chain.nodes[i + 1]!.solverPosition) - n.length) / n.length).toBeLessThan(
          1e-4,
        );
      }
      // knees bend forward (the character faces +Z)
      const knee = chain.nodes[1]!;
      expect(knee.solverPosition.z - knee.bonePosition.z).toBeGreaterThan(0);
    }
    expect(maxRootLengthError(h.solver)).toBeLessThan(1e-4);
  });

  it("maintainRelativePositionWeight 1 keeps unweighted hands at their animated place in the shoulder–root triangle", () => {
    const h = fresh();
    const body = h.solver.bodyEffector;
    body.position.x += 0.03 * h.b.height;
    body.position.y -= 0.1 * h.b.height;
    body.position.z += 0.05 * h.b.height;
    body.positionWeight = 1;
    h.solver.leftHandEffector.maintainRelativePositionWeight = 1;
    h.solver.rightHandEffector.maintainRelativePositionWeight = 0;
    h.solver.update();
    const [root, left, right] = [
      h.solver.bodyChain.nodes[0]!,
      h.solver.leftArmChain.nodes[0]!,
      h.solver.rightArmChain.nodes[0]!,
    ];
    // the triangle's frame from animated and from solved positions (forward = to the other shoulder, up = to the root)
    const frame = (p1: Vec3, p2: Vec3, p3: Vec3) => {
      const f = new Vec3();
      const u = new Vec3();
      const q = new Quat();
      lookRotation(q, sub(f, p2, p1), sub(u, p3, p1));
      return q;
    };
    const animated = frame(left.bonePosition, right.bonePosition, root.bonePosition);
    const solved = frame(left.solverPosition, right.solverPosition, root.solverPosition);
    const hand = h.solver.leftArmChain.nodes[2]!;
    const local = inverseRotateVector(new Vec3(), animated, sub(new Vec3(), hand.bonePosition, left.bonePosition));
    const expected = rotateVector(new Vec3(), solved, local);
    expected.x += left.solverPosition.x;
    expected.y += left.solverPosition.y;
    expected.z += left.solverPosition.z;
    expect(dist(hand.solverPosition, expected) / h.b.height).toBeLessThan(1e-9);
    expect(dist(hand.solverPosition, hand.bonePosition) / h.b.height).toBeGreaterThan(0.01);
    expect(dist(limbEnd(h.solver.leftArmChain), hand.solverPosition) / h.b.height).toBeLessThan(1e-4);
    // the right hand (mrp 0) stays exactly where it was animated
    const rightHand = h.solver.rightArmChain.nodes[2]!;
    expect(dist(rightHand.solverPosition, rightHand.bonePosition)).toBe(0);
  });

  it("effector weight 0.5 and master weight 0.5 land strictly between weight 0 and weight 1", () => {
    const results = (weight: number, master: number) => {
      const h = fresh();
      const e = h.solver.rightHandEffector;
      const shoulder = h.solver.rightArmChain.nodes[0]!.bonePosition;
      e.position.x = shoulder.x;
      e.position.y = shoulder.y - 0.2 * h.b.height;
      e.position.z = shoulder.z + 0.2 * h.b.height;
      e.positionWeight = weight;
      h.solver.ikPositionWeight = master;
      h.solver.update();
      const hand = limbEnd(h.solver.rightArmChain);
      return { toTarget: dist(hand, e.position), fromStart: dist(hand, h.solver.rightArmChain.nodes[2]!.bonePosition) };
    };
    const w0 = results(0, 1);
    const w1 = results(1, 1);
    for (const half of [results(0.5, 1), results(1, 0.5)]) {
      expect(half.toTarget).toBeLessThan(w0.toTarget);
      expect(half.toTarget).toBeGreaterThan(w1.toTarget);
      expect(half.fromStart).toBeGreaterThan(w0.fromStart);
      expect(half.fromStart).toBeLessThan(w1.fromStart);
    }
  });

  it("iterations = 0: the body translates rigidly by the body effector and each limb solves two-bone IK from there", () => {
    const h = fresh();
    h.solver.iterations = 0;
    const body = h.solver.bodyEffector;
    const shift = new Vec3(0.02 * h.b.height, -0.05 * h.b.height, 0.03 * h.b.height);
    body.positionOffset.x = shift.x;
    body.positionOffset.y = shift.y;
    body.positionOffset.z = shift.z;
    const foot = h.solver.leftFootEffector;
    foot.pinToBone(1, 0);
    const hand = h.solver.rightHandEffector;
    const rs = h.solver.rightArmChain.nodes[0]!.bonePosition;
    hand.position.x = rs.x + shift.x;
    hand.position.y = rs.y + shift.y - 0.2 * h.b.height;
    hand.position.z = rs.z + shift.z + 0.1 * h.b.height;
    hand.positionWeight = 1;
    h.solver.update();
    expect(dist(h.solver.bodyOffset, shift) / h.b.height).toBeLessThan(1e-12);
    // shoulders and thighs moved by exactly the body offset
    for (let c = 1; c < 5; c++) {
      const n = h.solver.chains[c]!.nodes[0]!;
      expect(
        dist(
          n.solverPosition,
          new Vec3(n.bonePosition.x + shift.x, n.bonePosition.y + shift.y, n.bonePosition.z + shift.z),
        ) / h.b.height,
      ).toBeLessThan(1e-12);
    }
    // limbs reach from the moved shoulder/thigh
    expect(dist(limbEnd(h.solver.leftLegChain), foot.position) / h.b.height).toBeLessThan(1e-4);
    expect(dist(limbEnd(h.solver.rightArmChain), hand.position) / h.b.height).toBeLessThan(1e-4);
    expect(chainBoneLengthError(h.solver.leftLegChain)).toBeLessThan(1e-4);
    expect(chainBoneLengthError(h.solver.rightArmChain)).toBeLessThan(1e-4);
    // unweighted ends are not carried by the body in this mode (as in FinalIK): the right foot stays
    expect(
      dist(h.solver.rightLegChain.nodes[2]!.solverPosition, h.solver.rightLegChain.nodes[2]!.bonePosition),
    ).toBeLessThan(1e-12 * h.b.height);
  });

  it("fabrikPass = false: hands cannot pull the body", () => {
    const h = fresh();
    h.solver.fabrikPass = false;
    const e = h.solver.leftHandEffector;
    const s = h.solver.leftArmChain.nodes[0]!.bonePosition;
    e.position.x = s.x + (variant.mirrored ? -2 : 2) * h.b.height;
    e.position.y = s.y;
    e.position.z = s.z;
    e.positionWeight = 1;
    h.solver.update();
    const root = h.solver.bodyChain.nodes[0]!;
    expect(dist(root.solverPosition, root.bonePosition) / h.b.height).toBeLessThan(1e-9);
  });
});

describe("biped solver symmetries", () => {
  const solveWith = (h: ReturnType<typeof harness>, map: (p: Vec3) => Vec3, seed: number) => {
    const rng = new Random(seed);
    // targets are defined on the plain T-pose and mapped into the variant's space
    const plain = harness(syntheticBiped({ pose: "T" }));
    LIMBS.forEach((limb) => {
      const t = map(targetAround(plain.solver, limb, rng, 0.3, 1.3));
      const e = h.solver.getEndEffector(limb);
      e.position.x = t.x;
      e.position.y = t.y;
      e.position.z = t.z;
      e.positionWeight = 1;
    });
    const bodyT = map(new Vec3(0.05, 0.95, 0.1));
    h.solver.bodyEffector.position.x = bodyT.x;
    h.solver.bodyEffector.position.y = bodyT.y;
    h.solver.bodyEffector.position.z = bodyT.z;
    h.solver.bodyEffector.positionWeight = 0.5;
    h.solver.update();
    return nodePositions(h.solver);
  };

  it("a mirrored rig with mirrored targets gives the mirrored solution (1e-9 of height)", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const plain = solveWith(harness(syntheticBiped({ pose: "T" })), (p) => p, seed);
      const mirrored = solveWith(
        harness(syntheticBiped({ pose: "T", mirrored: true })),
        (p) => new Vec3(-p.x, p.y, p.z),
        seed,
      );
      plain.forEach((p, i) => {
        expect(dist(new Vec3(-p.x, p.y, p.z), mirrored[i]!) / 1.75).toBeLessThan(1e-9);
      });
    }
  });

  it("a rig scaled ×0.01 or ×100 with scaled targets gives the scaled solution (1e-9 relative)", () => {
    for (const s of [0.01, 100]) {
      for (let seed = 1; seed <= 20; seed++) {
        const plain = solveWith(harness(syntheticBiped({ pose: "T" })), (p) => p, seed);
        const scaled = solveWith(
          harness(syntheticBiped({ pose: "T", scale: s })),
          (p) => new Vec3(p.x * s, p.y * s, p.z * s),
          seed,
        );
        plain.forEach((p, i) => {
          expect(dist(new Vec3(p.x * s, p.y * s, p.z * s), scaled[i]!) / (1.75 * s)).toBeLessThan(1e-9);
        });
      }
    }
  });
});
