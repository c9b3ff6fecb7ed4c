/**
 * LimbIK's `arm` bend modifier against real motion: the hands of UAL's clips (and Xbot's, when ../shared is there)
 * reached by arms that have no animation of their own (put back to rest each frame, as a VR controller drives
 * them), the body animated; how far the solved elbow's side lies from the clip's, about the shoulder–hand line.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import type { LimbBendModifier } from "../../src/limb/ik-solver-limb.js";
import { type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";

/** Every clip but UAL's T-pose (nothing to bend). */
const CLIPS = (n: string) => n !== "A_TPose";
/** Frames between samples: UAL has 45 clips, Xbot 7. */
const STEP: Record<string, number> = { UAL: 12, Xbot: 4 };
const MODELS = (["UAL", "Xbot"] as const).filter((m) => modelAvailable(m));

function worldPos(bone: Bone): Vector3 {
  const n = bone.getTransformNode()!;
  n.computeWorldMatrix(true);
  return n.absolutePosition.clone();
}

/** The mean angle (degrees) between the solved and the clip's elbow sides, per modifier, over the clips' frames. */
async function elbowErrors(name: ModelName, modifiers: LimbBendModifier[]): Promise<Record<string, number>> {
  const m = await loadModel(name, { clips: CLIPS });
  try {
    const scene = m.scene;
    const r = resolveBipedReferences(m.skeleton).references;
    for (const g of scene.animationGroups) g.stop();
    m.skeleton.returnToRest();
    scene.render();
    const arms = [
      [r.leftUpperArm, r.leftForearm, r.leftHand],
      [r.rightUpperArm, r.rightForearm, r.rightHand],
    ] as const;
    const iks = arms.map(([u, f, h]) => LimbIK.create(scene, u, f, h, { autoUpdate: false }));
    const rest = arms.map((a) => a.map((b) => b.getTransformNode()!.rotationQuaternion!.clone()));
    const sums: Record<string, number> = Object.fromEntries(modifiers.map((k) => [k, 0]));
    let n = 0;
    for (const g of scene.animationGroups) {
      g.start(false);
      g.pause();
      for (let f = g.from; f <= g.to; f += STEP[name]) {
        g.goToFrame(f);
        scene.render();
        arms.forEach(([u, fo, h], side) => {
          const S = worldPos(u);
          const E = worldPos(fo);
          const H = worldPos(h);
          const axis = H.subtract(S).normalize();
          const across = (p: Vector3) => {
            const o = p.subtract(S);
            return o.subtract(axis.scale(Vector3.Dot(o, axis))).normalize();
          };
          // an elbow bent less than 20° has no side worth measuring
          if (Vector3.Dot(E.subtract(S).normalize(), H.subtract(E).normalize()) > Math.cos((20 * Math.PI) / 180))
            return;
          const truth = across(E);
          n++;
          for (const mod of modifiers) {
            arms[side]!.forEach((b, i) => b.getTransformNode()!.rotationQuaternion!.copyFrom(rest[side]![i]!));
            const ik = iks[side]!;
            ik.solver.bendModifier = mod;
            ik.targetPosition.copyFrom(H);
            ik.update();
            expect(Vector3.Distance(worldPos(h), H)).toBeLessThan(1e-4);
            const c = Vector3.Dot(across(worldPos(fo)), truth);
            sums[mod]! += (Math.acos(Math.max(-1, Math.min(1, c))) * 180) / Math.PI;
          }
        });
      }
      g.stop();
    }
    expect(n).toBeGreaterThan(30);
    return Object.fromEntries(modifiers.map((k) => [k, sums[k]! / n]));
  } finally {
    m.dispose();
  }
}

describe.each(MODELS)("LimbIK's arm bend modifier on %s's clips", (name) => {
  it("puts un-animated elbows nearer the clip's than the rest pose's bend plane does", async () => {
    const e = await elbowErrors(name, ["parent", "arm"]);
    report(`${name}: elbow side off the clip's, mean (°): parent, arm`, e.parent!, e.arm!);
    // measured: UAL 41.4° → 27.0° (every 6th frame: 41.6° → 27.6°); Xbot 31.3° → 22.7°
    expect(e.arm!).toBeLessThan(0.8 * e.parent!);
  });
});
