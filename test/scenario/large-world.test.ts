/**
 * Large worlds: a character a million units from the origin, in an engine with `useHighPrecisionMatrix` (what
 * Babylon's large world rendering turns on), solves as it does at the origin. The IK's own math is in doubles,
 * so the only float32 left would be ours; Babylon's default Float32Array matrices lose that precision themselves.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

/** How far the character is moved: the tests compare each bone's place relative to the root. */
const FAR = [1e4, 1e6];

let m: LoadedModel;
let h: number;
let start: Vector3;
beforeAll(async () => {
  m = await loadModel("UAL", { highPrecision: true, clips: (name) => name === "Idle_Loop" });
  h = height(m);
  start = m.root.position.clone();
  m.container.animationGroups[0]!.start(true);
  m.scene.render();
});
afterAll(() => m?.dispose());

/** 20 frames of the idle clip from the same frame with the root at its place plus `shift`: `frames()` each frame, relative to the root. */
function run(shift: Vector3, frames: () => Vector3[]): Vector3[][] {
  const at = start.add(shift);
  m.root.position.copyFrom(at);
  m.container.animationGroups[0]!.goToFrame(10);
  const out: Vector3[][] = [];
  for (let f = 0; f < 20; f++) {
    m.scene.render();
    out.push(frames().map((p) => p.subtract(at)));
  }
  return out;
}

/** The largest distance between the same bone in two runs, as a fraction of the height. */
function worst(a: Vector3[][], b: Vector3[][]): number {
  let w = 0;
  a.forEach((frame, k) => frame.forEach((p, j) => (w = Math.max(w, Vector3.Distance(p, b[k]![j]!)))));
  return w / h;
}

/** Targets hung from the root at the bones' places plus `offsets` (fractions of the height). */
function targetsBeside(bones: Bone[], offsets: Vector3[]): TransformNode[] {
  return offsets.map((o, i) => {
    const t = new TransformNode(`target ${i}`, m.scene);
    t.parent = m.root;
    t.setAbsolutePosition(worldPos(bones[i]!).add(o.scale(h)));
    onTestFinished(() => t.dispose());
    return t;
  });
}

describe("a character 1e6 from the origin, high-precision matrices: the pose it has at the origin", () => {
  it("FullBodyBipedIK, both hands and a foot on targets", () => {
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    onTestFinished(() => ik.dispose());
    const r = ik.references;
    const effectors = [ik.solver.leftHandEffector, ik.solver.rightHandEffector, ik.solver.leftFootEffector];
    const targets = targetsBeside(
      [r.leftHand, r.rightHand, r.leftFoot],
      [new Vector3(0.2, 0.1, 0.15), new Vector3(-0.15, 0.2, 0.1), new Vector3(0, 0.05, 0.1)],
    );
    effectors.forEach((e, i) => {
      e.target = targets[i]!;
      e.positionWeight = 1;
    });
    const bones = () => m.skeleton.bones.map((b) => worldPos(b));
    const base = run(Vector3.Zero(), bones);
    const reached = Vector3.Distance(worldPos(r.leftHand), targets[0]!.getAbsolutePosition()) / h;
    expect(reached, "the left hand on its target").toBeLessThan(1e-4);
    for (const far of FAR) {
      const off = worst(base, run(new Vector3(far, 0, -far), bones));
      console.log(`FBBIK at ${far}: every bone within ${off.toExponential(2)} h of its place at the origin`);
      expect(off).toBeLessThan(1e-7);
    }
  });

  it("LimbIK, the left arm", () => {
    const r = resolveBipedReferences(m.skeleton).references;
    const arm = [r.leftUpperArm, r.leftForearm, r.leftHand] as const;
    const ik = LimbIK.create(m.scene, arm[0], arm[1], arm[2]);
    onTestFinished(() => ik.dispose());
    const [target] = targetsBeside([arm[2]], [new Vector3(0.1, 0.15, 0.1)]);
    ik.target = target!;
    const bones = () => arm.map((b) => worldPos(b));
    const base = run(Vector3.Zero(), bones);
    expect(Vector3.Distance(worldPos(arm[2]), target!.getAbsolutePosition()) / h).toBeLessThan(1e-4);
    for (const far of FAR) {
      const off = worst(base, run(new Vector3(far, 0, -far), bones));
      console.log(`LimbIK at ${far}: the arm within ${off.toExponential(2)} h of its place at the origin`);
      expect(off).toBeLessThan(1e-7);
    }
  });
});
