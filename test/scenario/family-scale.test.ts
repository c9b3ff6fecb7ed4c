/**
 * The IK family's scale equivariance and long chains (issue 18). A model (Mannequin) and a tail built in code,
 * scaled ×0.01 and ×100 with their targets: CCDIK, FABRIK, LimbIK and AimIK put every bone where the ×1 copy
 * puts it, times the scale, to 1e-9 of the chain's length. Tails of 10 and 60 bones: CCDIK and FABRIK with a
 * limit on every joint keep each joint inside it after every solve (CCDIK also reaches targets posed inside the
 * limits); FABRIK without limits reaches posed targets within 0.01 % of the tail's length.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { AimIK } from "../../src/babylon/aim-ik.js";
import { CCDIK, FABRIK } from "../../src/babylon/chain-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import type { RigComponent } from "../../src/babylon/rig-component.js";
import { RotationLimitAngle } from "../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitHinge } from "../../src/joints/limits/rotation-limit-hinge.js";
import type { RotationLimit } from "../../src/joints/limits/rotation-limit.js";
import { Quat, angleBetween, copyQuat, fromAxisAngle, multiply } from "../../src/math/quat.js";
import { Vec3 } from "../../src/math/vec3.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { bonePos, chainLength, modelLimbs, posedEnd } from "../helpers/model-limbs.js";
import { Random } from "../helpers/random.js";
import { type TailRig, buildTail } from "../helpers/tail-rig.js";

const SCALES = [1, 0.01, 100];

/** A component driven toward one world point. */
interface Driven {
  ik: RigComponent;
  set(target: Vector3): void;
}

/** A solver on a chain of bones (root first); `aims`: AimIK, fed far targets. */
interface SolverCase {
  name: string;
  aims: boolean;
  make(scene: Scene, bones: readonly Bone[]): Driven;
}

const SOLVERS: SolverCase[] = [
  {
    name: "CCDIK",
    aims: false,
    // fixed iterations, no tolerance: a stop decision taken on rounding would break exactness, not equivariance
    make: (scene, bones) => {
      const ik = CCDIK.create(scene, bones, { maxIterations: 200 });
      return { ik, set: (p) => ik.targetPosition.copyFrom(p) };
    },
  },
  {
    name: "FABRIK",
    aims: false,
    make: (scene, bones) => {
      const ik = FABRIK.create(scene, bones, { maxIterations: 40 });
      return { ik, set: (p) => ik.targetPosition.copyFrom(p) };
    },
  },
  {
    name: "LimbIK",
    aims: false,
    make: (scene, bones) => {
      const n = bones.length;
      const ik = LimbIK.create(scene, bones[0]!, bones[Math.floor(n / 2)]!, bones[n - 1]!);
      ik.solver.ikRotationWeight = 0;
      return { ik, set: (p) => ik.targetPosition.copyFrom(p) };
    },
  },
  {
    name: "AimIK",
    aims: true,
    make: (scene, bones) => {
      // aim along the last bone of the chain: the tip bone's offset from it
      const tip = bones[bones.length - 1]!;
      const offset = tip.getTransformNode()?.position ?? tip.position;
      const ik = AimIK.create(scene, bones.slice(0, -1), { axis: offset.normalizeToNew() });
      ik.solver.clampWeight = 0;
      ik.solver.maxIterations = 6;
      return { ik, set: (p) => ik.targetPosition.copyFrom(p) };
    },
  },
];

/** `count` targets for a chain through `points`: posed ends, or far points for AimIK. */
function targetsFor(solver: SolverCase, points: readonly Vector3[], count: number, seed: number): Vector3[] {
  const rnd = new Random(seed);
  const length = chainLength(points);
  return Array.from({ length: count }, () => {
    if (!solver.aims) return posedEnd(points, rnd, 0.8);
    const u = rnd.unitVector();
    return points[0]!.add(new Vector3(u.x, u.y, u.z).scale(length * rnd.range(2, 4)));
  });
}

const angleDeg = (a: Vector3, b: Vector3): number =>
  (Math.acos(Math.min(1, Math.max(-1, Vector3.Dot(a.normalizeToNew(), b.normalizeToNew())))) * 180) / Math.PI;

/** Worst distance between the ×1 run's positions and another run's divided by its scale, over the length. */
function worstScaled(base: Vector3[][], scaled: Vector3[][], scale: number, length: number): number {
  let worst = 0;
  base.forEach((frame, k) =>
    frame.forEach((p, j) => {
      worst = Math.max(worst, Vector3.Distance(p, scaled[k]![j]!.scale(1 / scale)) / length);
    }),
  );
  return worst;
}

describe("scale equivariance on a model (Mannequin's arm): ×0.01 and ×100, root and targets scaled", () => {
  let m: LoadedModel;
  let rootScaling: Vector3;
  let rootPosition: Vector3;
  beforeAll(async () => {
    // Babylon's matrices are Float32Array by default (7 digits): equivariance to 1e-9 needs them in doubles
    m = await loadModel("Mannequin", { highPrecision: true });
    rootScaling = m.root.scaling.clone();
    // off the origin, so that scaling about the world's origin also moves the character
    rootPosition = new Vector3(0.7, 0.2, -1.3);
  });
  afterAll(() => m?.dispose());

  for (const solver of SOLVERS) {
    it(`${solver.name}: every bone of the arm at scale × its ×1 place, to 1e-9 of the arm's length`, () => {
      const arm = modelLimbs("Mannequin", m).arm;
      const runs: Vector3[][][] = [];
      let length = 0;
      let targets: Vector3[] = [];
      for (const s of SCALES) {
        m.root.scaling.copyFrom(rootScaling.scale(s));
        m.root.position.copyFrom(rootPosition.scale(s));
        m.scene.render();
        const points = arm.map((b) => bonePos(m, b));
        if (s === 1) {
          length = chainLength(points);
          targets = targetsFor(solver, points, 12, 31);
        }
        const d = solver.make(m.scene, arm);
        onTestFinished(() => d.ik.dispose());
        runs.push(
          targets.map((t) => {
            d.set(t.scale(s));
            m.scene.render();
            return arm.map((b) => bonePos(m, b));
          }),
        );
        expect(d.ik.warningsRaised).toEqual([]);
        d.ik.dispose();
      }
      m.root.scaling.copyFrom(rootScaling);
      m.root.position.setAll(0);
      const worst = Math.max(
        worstScaled(runs[0]!, runs[1]!, 0.01, length),
        worstScaled(runs[0]!, runs[2]!, 100, length),
      );
      if (process.env.FBBIK_REPORT) console.log(`Mannequin ${solver.name}: worst ${worst.toExponential(2)}`);
      expect(worst).toBeLessThan(1e-9);
      // the solver did its job (an equivariance of the unmoved pose would prove nothing)
      const [, mid, end] = runs[0]![0]!;
      if (solver.aims) expect(angleDeg(end!.subtract(mid!), targets[0]!.subtract(mid!))).toBeLessThan(0.01);
      else expect(Vector3.Distance(end!, targets[0]!) / length).toBeLessThan(1e-4);
    });
  }
});

describe("scale equivariance on a 20-bone tail (bone-only skeleton): ×0.01 and ×100, mesh and targets scaled", () => {
  for (const solver of SOLVERS) {
    it(`${solver.name}: every bone at scale × its ×1 place, to 1e-9 of the tail's length`, () => {
      const runs: Vector3[][][] = [];
      let length = 0;
      let targets: Vector3[] = [];
      for (const s of SCALES) {
        const position = new Vector3(1, 0.5, 2).scale(s);
        const rig = buildTail({ count: 20, curl: 0.05, scale: s, position, highPrecision: true });
        onTestFinished(() => rig.dispose());
        rig.scene.render();
        const pos = (b: Bone) => tailPos(rig, b);
        if (s === 1) {
          const points = rig.bones.map(pos);
          length = chainLength(points);
          targets = targetsFor(solver, points, 12, 37);
        }
        const d = solver.make(rig.scene, rig.bones);
        runs.push(
          targets.map((t) => {
            d.set(t.scale(s));
            rig.scene.render();
            return rig.bones.map(pos);
          }),
        );
        expect(d.ik.warningsRaised).toEqual([]);
        rig.dispose();
      }
      const worst = Math.max(
        worstScaled(runs[0]!, runs[1]!, 0.01, length),
        worstScaled(runs[0]!, runs[2]!, 100, length),
      );
      if (process.env.FBBIK_REPORT) console.log(`tail ${solver.name}: worst ${worst.toExponential(2)}`);
      expect(worst).toBeLessThan(1e-9);
    });
  }
});

/**
 * A tail bone's world position (bone-only skeleton: through its mesh), multiplied here: Bone.getAbsolutePosition
 * goes through a scratch matrix Babylon made in single precision before any engine asked for doubles.
 */
function tailPos(rig: TailRig, bone: Bone): Vector3 {
  rig.skeleton.computeAbsoluteMatrices(true);
  return bone.getAbsoluteMatrix().multiply(rig.mesh.computeWorldMatrix(true)).getTranslation();
}

/** The limit of joint `i`: hinges about the curl axis (z) and cones about the bone (y) in turn, ±20° (× `k`). */
function limitOf(i: number, k = 1): RotationLimit {
  if (i % 2 === 0) return new RotationLimitHinge(new Vec3(0, 0, 1), -20 * k, 20 * k);
  return new RotationLimitAngle(new Vec3(0, 1, 0), 20 * k, 10 * k);
}

/** A random turn inside joint `i`'s limit (90 % of it), relative to its rest rotation. */
function turnInside(i: number, rnd: Random): Quat {
  const deg = Math.PI / 180;
  if (i % 2 === 0) return fromAxisAngle(new Quat(), new Vec3(0, 0, 1), rnd.range(-18, 18) * deg);
  const a = rnd.range(0, Math.PI * 2);
  const swing = fromAxisAngle(new Quat(), new Vec3(Math.cos(a), 0, Math.sin(a)), rnd.range(0, 18) * deg);
  const twist = fromAxisAngle(new Quat(), new Vec3(0, 1, 0), rnd.range(-9, 9) * deg);
  return multiply(new Quat(), swing, twist);
}

/** A bone's local rotation as Babylon holds it (what was last set; Matrix.decompose goes through single precision). */
function localRotation(bone: Bone): Quat {
  const q = bone.rotationQuaternion;
  return new Quat(q.x, q.y, q.z, q.w);
}

/**
 * The chain solvers run with limits, and whether they reach targets posed inside the limits: FABRIK clamps
 * between its passes and stalls short of them under limits this tight (10 bones: 11 % of the length, 60 bones:
 * 0.15 %), as its unit test allows; CCD gets there.
 */
const LIMITED: [string, typeof CCDIK | typeof FABRIK, boolean][] = [
  ["CCDIK", CCDIK, true],
  ["FABRIK", FABRIK, false],
];

describe.each([10, 60])("a %i-bone tail built in code", (count) => {
  const CURL = 0.05;
  /** Tip positions of the tail posed inside the limits (on a copy), reachable by construction. */
  function insideTargets(n: number, seed: number): Vector3[] {
    const probe = buildTail({ count, curl: CURL, highPrecision: true });
    const rnd = new Random(seed);
    const rests = probe.bones.map(localRotation);
    const out: Vector3[] = [];
    for (let k = 0; k < n; k++) {
      probe.bones.forEach((b, i) => {
        const q = multiply(new Quat(), rests[i]!, turnInside(i, rnd));
        b.setRotationQuaternion(new Quaternion(q.x, q.y, q.z, q.w));
      });
      out.push(tailPos(probe, probe.bones[count - 1]!));
    }
    probe.dispose();
    return out;
  }

  for (const [name, Kind, reaches] of LIMITED) {
    it(`${name} with a limit on every joint: each inside it (1e-9 rad) after every solve`, () => {
      const rig = buildTail({ count, curl: CURL, highPrecision: true });
      onTestFinished(() => rig.dispose());
      const length = 0.1 * (count - 1);
      // targets posed near the limits converge slowly on a short chain (CCD: 1e-3 after 200 iterations, 1e-5 after 2000)
      const ik = Kind.create(rig.scene, rig.bones, { maxIterations: 2000, tolerance: 1e-6 * length });
      const limits = rig.bones.map((_, i) => limitOf(i));
      limits.forEach((l, i) => ik.solver.setLimit(i, l));
      // the same limits at 95 %: joints outside them show that the limits were pressed on, not idle
      const tighter = rig.bones.map((_, i) => limitOf(i, 0.95));
      rig.bones.forEach((b, i) => tighter[i]!.setDefaultLocalRotation(localRotation(b)));
      const clamped = new Quat();
      let outside = 0;
      let pressed = 0;
      let worstReach = 0;
      const targets = insideTargets(12, count);
      // far targets too: the limits must hold wherever the target is
      const rnd = new Random(5);
      for (let k = 0; k < 6; k++)
        targets.push(new Vector3(rnd.range(-2, 2), rnd.range(-2, 2), rnd.range(-2, 2)).scale(length));
      targets.forEach((t, k) => {
        ik.targetPosition.copyFrom(t);
        rig.scene.render();
        rig.bones.forEach((b, i) => {
          const q = localRotation(b);
          if (limits[i]!.apply(copyQuat(clamped, q))) outside = Math.max(outside, angleBetween(q, clamped));
          if (tighter[i]!.apply(copyQuat(clamped, q))) pressed++;
        });
        if (k < 12)
          worstReach = Math.max(worstReach, Vector3.Distance(tailPos(rig, rig.bones[count - 1]!), t) / length);
      });
      if (process.env.FBBIK_REPORT) {
        const out = `outside ${outside.toExponential(2)} rad, pressed ${pressed}, reach ${worstReach.toExponential(2)}`;
        console.log(`${count}-bone ${name} with limits: ${out}`);
      }
      expect(outside).toBeLessThan(1e-9);
      expect(pressed).toBeGreaterThan(count);
      if (reaches) expect(worstReach).toBeLessThan(1e-4);
      expect(ik.warningsRaised).toEqual([]);
    });
  }

  it("FABRIK reaches 20 posed targets within 0.01 % of the tail's length", () => {
    const rig = buildTail({ count, curl: CURL, highPrecision: true });
    onTestFinished(() => rig.dispose());
    rig.scene.render();
    const points = rig.bones.map((b) => tailPos(rig, b));
    const length = chainLength(points);
    const ik = FABRIK.create(rig.scene, rig.bones, { maxIterations: 200, tolerance: 1e-6 * length });
    const rnd = new Random(count);
    let worst = 0;
    for (let k = 0; k < 20; k++) {
      const t = posedEnd(points, rnd, 0.5);
      ik.targetPosition.copyFrom(t);
      rig.scene.render();
      worst = Math.max(worst, Vector3.Distance(tailPos(rig, rig.bones[count - 1]!), t) / length);
    }
    if (process.env.FBBIK_REPORT) console.log(`${count}-bone FABRIK: worst ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-4);
    expect(ik.warningsRaised).toEqual([]);
  });
});
