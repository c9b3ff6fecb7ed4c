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
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { Curve } from "../../src/math/curve.js";
import { FullBodyBipedEffector, InteractionCurveType, InteractionObject, InteractionSystem } from "../../src/index.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { heightfield } from "../helpers/heightfield.js";
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

/** A node's world position, its world matrix recomputed. */
function nodeAt(n: TransformNode): Vector3 {
  return n.computeWorldMatrix(true).getTranslation();
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

  it("an interaction: the right hand reaches for a cup, picks it up and carries it", () => {
    // the interaction's scratch matrices are made when the library loads, before this NullEngine: Babylon leaves
    // them Float32Array there (a WebGL engine converts them), so they must take the engine's precision themselves
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    onTestFinished(() => ik.dispose());
    const hand = ik.references.rightHand;
    const reach = new Curve([
      { time: 0, value: 0 },
      { time: 0.3, value: 1 },
      { time: 0.6, value: 1 },
      { time: 1, value: 0 },
    ]);
    const carry = (shift: Vector3) => {
      const interactions = new InteractionSystem(ik);
      const cup = new TransformNode("cup", m.scene);
      m.root.position.copyFrom(start.add(shift));
      m.container.animationGroups[0]!.goToFrame(10);
      m.scene.render();
      cup.position.copyFrom(worldPos(hand).add(new Vector3(-0.05, 0.1, 0.2).scale(h)));
      const object = new InteractionObject(cup, {
        weightCurves: [{ type: InteractionCurveType.PositionWeight, curve: reach }],
        events: [{ time: 0.3, pickUp: true }],
      });
      interactions.startInteraction(FullBodyBipedEffector.RightHand, object, false);
      const frames = run(shift, () => [...m.skeleton.bones.map((b) => worldPos(b)), worldPos(hand), nodeAt(cup)]);
      expect(cup.parent, "the cup picked up").not.toBeNull();
      interactions.dispose();
      cup.dispose();
      return frames;
    };
    const base = carry(Vector3.Zero());
    for (const far of FAR) {
      const off = worst(base, carry(new Vector3(far, 0, -far)));
      console.log(
        `pick-up at ${far}: every bone and the cup within ${off.toExponential(2)} h of their place at the origin`,
      );
      expect(off).toBeLessThan(1e-7);
    }
  });

  it("GrounderFBBIK on a heightfield under the character, and a LookAtIK on the spine and head", () => {
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    onTestFinished(() => ik.dispose());
    const ground = heightfield(m.scene, 4, 40, (x, z) => 0.05 * Math.sin(x * 3) * Math.cos(z * 2.5) + 0.03 * x);
    onTestFinished(() => ground.dispose());
    const grounder = GrounderFBBIK.create(ik, { predicate: (mesh) => mesh === ground });
    onTestFinished(() => grounder.dispose());
    const r = ik.references;
    const [look] = targetsBeside([r.head!], [new Vector3(0.4, 0.1, 1)]);
    const lookAt = LookAtIK.create(m.scene, { spine: r.spine, head: r.head! }, { target: look! });
    onTestFinished(() => lookAt.dispose());
    const bones = () => m.skeleton.bones.map((b) => worldPos(b));
    const at = (shift: Vector3) => {
      ground.position.copyFrom(start.add(shift));
      grounder.resetPosition();
      return run(shift, bones);
    };
    const base = at(Vector3.Zero());
    grounder.weight = 0;
    expect(worst(base, at(Vector3.Zero())), "the grounder moves the legs").toBeGreaterThan(1e-3);
    grounder.weight = 1;
    for (const far of FAR) {
      const off = worst(base, at(new Vector3(far, 0, -far)));
      console.log(
        `grounder and LookAtIK at ${far}: every bone within ${off.toExponential(2)} h of its place at the origin`,
      );
      expect(off).toBeLessThan(1e-7);
    }
  });
});
