/**
 * Long runs without animation (Mannequin): 100,000 frames of effectors wandering, then every weight back
 * to 0. With fixTransforms the pose returns to the stored default (within 1e-6 of the height; in fact
 * bit for bit); without it the IK reads its own output every frame, and the drift it leaves is measured.
 * Frames go through ik.update() with a cheap frame advance. LONGRUN_FRAMES overrides the frame count.
 * Rows are checked against docs/ROBUSTNESS.md (section "longrun").
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { Random } from "../helpers/random.js";
import { boneWorldPosition, characterSize, cheapFrame } from "./common.js";
import { ReportSection, bound, staleMessage } from "./report.js";

const report = new ReportSection("longrun");
const DEFAULT_FRAMES = 100_000;
const FRAMES = Number(process.env.LONGRUN_FRAMES ?? DEFAULT_FRAMES);
const open: { dispose(): void }[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

interface RunResult {
  /** Largest bone displacement from the stored default after the weights went back to 0, over the height. */
  drift: number;
  /** True when every node's local position and rotation equal the stored default exactly. */
  exact: boolean;
  /** Largest relative change of a bone's length (parent → child) from the start, the torso links excluded. */
  lengthDrift: number;
  /** The same for the links to the pelvis, the last spine bone, the upper arms and the thighs (placed by the mapping). */
  linkDrift: number;
  seconds: number;
}

async function run(fixTransforms: boolean, seed: number): Promise<RunResult> {
  const m = await loadModel("Mannequin");
  open.push(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton, { fixTransforms, autoUpdate: false });
  const s = ik.solver;
  m.scene.render();
  const bones = m.skeleton.bones;
  const nodes = bones.map((b) => b.getTransformNode()!);
  const world = () => bones.map((b) => boneWorldPosition(b));
  const start = world();
  const startLocal = nodes.map((n) => [n.position.clone(), n.rotationQuaternion!.clone()] as const);
  const lengths = (p: Vector3[]) =>
    bones.map((b, i) => (b.getParent() === null ? 0 : Vector3.Distance(p[i]!, p[bones.indexOf(b.getParent()!)]!)));
  const startLengths = lengths(start);
  const h = characterSize(m.skeleton, (b) => boneWorldPosition(b));
  const rng = new Random(seed);
  // smooth wandering: per effector, a sum of two sines per axis with random phases and rates
  const rest = s.effectors.map((e) => e.position.clone());
  const restRot = s.effectors.map((e) => e.rotation.clone());
  const phases = s.effectors.map(() => Array.from({ length: 9 }, () => rng.range(0, Math.PI * 2)));
  const rates = s.effectors.map(() => Array.from({ length: 9 }, () => rng.range(0.002, 0.02)));
  const wobble = new Quaternion();
  const t0 = performance.now();
  for (let f = 0; f < FRAMES; f++) {
    for (let i = 0; i < 9; i++) {
      const e = s.effectors[i]!;
      const ph = phases[i]!;
      const ra = rates[i]!;
      const a = (k: number) => Math.sin(f * ra[k]! + ph[k]!) * 0.5 + Math.sin(f * ra[k + 3]! * 0.37 + ph[k + 3]!) * 0.5;
      e.position.set(rest[i]!.x + a(0) * 0.25 * h, rest[i]!.y + a(1) * 0.25 * h, rest[i]!.z + a(2) * 0.25 * h);
      e.positionWeight = 0.5 + 0.5 * Math.sin(f * ra[6]! + ph[6]!);
      if (i >= 5) {
        Quaternion.RotationYawPitchRollToRef(a(0), a(1), a(2), wobble);
        restRot[i]!.multiplyToRef(wobble, e.rotation);
        e.rotationWeight = 0.5 + 0.5 * Math.sin(f * ra[7]! + ph[7]!);
      }
    }
    s.leftLegChain.bendConstraint.weight = 0.5 + 0.5 * Math.sin(f * 0.003);
    cheapFrame(m.scene, ik);
  }
  const seconds = (performance.now() - t0) / 1000;
  for (const e of s.effectors) {
    e.positionWeight = 0;
    e.rotationWeight = 0;
  }
  s.leftLegChain.bendConstraint.weight = 0;
  cheapFrame(m.scene, ik);
  m.scene.render();
  const end = world();
  let drift = 0;
  for (let i = 0; i < end.length; i++) drift = Math.max(drift, Vector3.Distance(end[i]!, start[i]!) / h);
  const endLengths = lengths(end);
  const r = ik.references;
  const moved = new Set([
    r.pelvis,
    r.spine[r.spine.length - 1]!,
    r.leftUpperArm,
    r.rightUpperArm,
    r.leftThigh,
    r.rightThigh,
  ]);
  let lengthDrift = 0;
  let linkDrift = 0;
  for (let i = 0; i < endLengths.length; i++) {
    if (!(startLengths[i]! > 0)) continue;
    const d = Math.abs(endLengths[i]! - startLengths[i]!) / startLengths[i]!;
    if (moved.has(bones[i]!)) linkDrift = Math.max(linkDrift, d);
    else lengthDrift = Math.max(lengthDrift, d);
  }
  const exact = nodes.every(
    (n, i) => n.position.equals(startLocal[i]![0]) && n.rotationQuaternion!.equals(startLocal[i]![1]),
  );
  ik.dispose();
  return { drift, exact, lengthDrift, linkDrift, seconds };
}

describe(`${FRAMES} frames without animation, effectors wandering, then weights back to 0`, () => {
  it("with fixTransforms: the pose returns to the stored default within 1e-6 of the height", async () => {
    const r = await run(true, 11);
    console.log(
      `longrun fixTransforms: ${FRAMES} frames in ${r.seconds.toFixed(1)} s (${Math.round(FRAMES / r.seconds)} frames/s); drift ${r.drift.toExponential(2)} × height, exact: ${r.exact}`,
    );
    expect(r.drift).toBeLessThan(1e-6);
    if (FRAMES === DEFAULT_FRAMES) {
      report.add({
        what: "fixTransforms on (default)",
        cases: `${FRAMES} frames`,
        outcome: r.exact
          ? "back to the stored default bit for bit (every local position and rotation of every bone)"
          : `back to the stored default within ${bound(r.drift)} of the height`,
      });
    }
  });

  it("without fixTransforms: each update still takes off the IK's own output first, so nothing accumulates", async () => {
    const r = await run(false, 11);
    console.log(
      `longrun no fixTransforms: ${FRAMES} frames in ${r.seconds.toFixed(1)} s; drift ${r.drift.toExponential(2)} × height; bone length drift ${r.lengthDrift.toExponential(2)}, torso links ${r.linkDrift.toExponential(2)}, exact: ${r.exact}`,
    );
    expect(r.drift).toBeLessThan(1e-6);
    expect(r.linkDrift).toBeLessThan(1e-6);
    if (FRAMES === DEFAULT_FRAMES) {
      report.add({
        what: "fixTransforms off",
        cases: `${FRAMES} frames`,
        outcome:
          (r.exact
            ? "back to the stored default bit for bit"
            : `back to the stored default within ${bound(r.drift)} of the height`) +
          " (FinalIK would accumulate on its own output here: each update takes off what the IK wrote and still stands before it reads, so no frame builds on the last one's output)",
      });
    }
  });
});

describe("docs/ROBUSTNESS.md", () => {
  it.skipIf(FRAMES !== DEFAULT_FRAMES)('section "longrun" matches what these tests measured', () => {
    const differences = report.check();
    expect(differences, staleMessage("longrun", differences)).toEqual([]);
  });
});
