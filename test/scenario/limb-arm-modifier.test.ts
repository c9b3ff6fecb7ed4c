/**
 * LimbIK's `arm` bend modifier against real motion: the hands of UAL's clips (and Xbot's and Soldier's, when
 * ../shared is there) reached by arms that have no animation of their own (put back to rest each frame, as a VR
 * controller drives them), the body animated; how far the solved elbow's side lies from the clip's, about the
 * shoulder–hand line. The modifier's table is fitted to UAL's fold-0 clips (scripts/fit-elbow-table.ts): UAL's
 * fold-1 clips, Xbot and Soldier are held out.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { fold } from "../../scripts/fit-elbow-table.js";
import { detectBipedFacing } from "../../src/babylon/character-forward.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import type { LimbBendModifier } from "../../src/limb/ik-solver-limb.js";
import { Vec3 } from "../../src/math/vec3.js";
import { type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { summary } from "../helpers/elbow-sides.js";
import { report } from "../helpers/modifier-scene.js";

/** Every clip but UAL's T-pose (nothing to bend). */
const CLIPS = (n: string) => n !== "A_TPose";
/** Frames between samples: UAL has 45 clips, Xbot 7, Soldier 4. */
const STEP: Record<string, number> = { UAL: 12, Xbot: 4, Soldier: 4 };
const MODELS = (["UAL", "Xbot", "Soldier"] as const).filter((m) => modelAvailable(m));

/** The ways of bending compared: `rule` is the `arm` modifier on FullBodyBipedIK's rule (no outward side). */
type Way = Exclude<LimbBendModifier, "animation" | "target" | "goal"> | "rule";
const WAYS: Way[] = ["parent", "rule", "arm"];
/**
 * The most the mean elbow side may lie off the clip's with the `parent` modifier and with FullBodyBipedIK's rule (°),
 * the baselines the fitted side is measured against: measured 42.6 / 30.8 (UAL), 31.3 / 26.3 (Xbot), 34.9 / 29.1
 * (Soldier).
 */
const BASELINE_MEAN: Record<string, { parent: number; rule: number }> = {
  UAL: { parent: 48, rule: 35 },
  Xbot: { parent: 36, rule: 30 },
  Soldier: { parent: 40, rule: 33 },
};

function worldPos(bone: Bone): Vector3 {
  const n = bone.getTransformNode()!;
  n.computeWorldMatrix(true);
  return n.absolutePosition.clone();
}

/** Per way, the angles (degrees) between the solved and the clip's elbow sides, and each sample's clip. */
async function elbowErrors(name: ModelName): Promise<{ angles: Record<Way, number[]>; clips: string[] }> {
  const m = await loadModel(name, { clips: CLIPS });
  try {
    const scene = m.scene;
    for (const g of scene.animationGroups) g.stop();
    m.skeleton.returnToRest();
    scene.render();
    const facing = detectBipedFacing(m.skeleton, null)!;
    const r = facing.references;
    const arms = [
      [r.leftUpperArm, r.leftForearm, r.leftHand],
      [r.rightUpperArm, r.rightForearm, r.rightHand],
    ] as const;
    const iks = arms.map(([u, f, h]) => LimbIK.create(scene, u, f, h, { autoUpdate: false }));
    // the same arms on the rule: its frame as LimbIK sets it, without the outward side
    const rules = arms.map(([u, f, h]) => {
      const ik = LimbIK.create(scene, u, f, h, { autoUpdate: false, bendModifier: "arm" });
      const forward = ik.rig.worldToComponentVector(facing.forward, new Vec3());
      ik.solver.setNaturalFrame(-1, forward, ik.rig.worldToComponentVector(facing.up, new Vec3()));
      return ik;
    });
    const rest = arms.map((a) => a.map((b) => b.getTransformNode()!.rotationQuaternion!.clone()));
    const angles = Object.fromEntries(WAYS.map((k) => [k, [] as number[]])) as Record<Way, number[]>;
    const clips: string[] = [];
    for (const g of scene.animationGroups) {
      g.start(false);
      g.pause();
      for (let f = g.from; f <= g.to; f += STEP[name]!) {
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
          clips.push(g.name);
          for (const way of WAYS) {
            arms[side]!.forEach((b, i) => b.getTransformNode()!.rotationQuaternion!.copyFrom(rest[side]![i]!));
            const ik = way === "rule" ? rules[side]! : iks[side]!;
            if (way !== "rule") ik.solver.bendModifier = way;
            ik.targetPosition.copyFrom(H);
            ik.update();
            expect(Vector3.Distance(worldPos(h), H)).toBeLessThan(1e-4);
            const c = Vector3.Dot(across(worldPos(fo)), truth);
            angles[way].push((Math.acos(Math.max(-1, Math.min(1, c))) * 180) / Math.PI);
          }
        });
      }
      g.stop();
    }
    expect(clips.length).toBeGreaterThan(30);
    return { angles, clips };
  } finally {
    m.dispose();
  }
}

describe.each(MODELS)("LimbIK's arm bend modifier on %s's clips", (name) => {
  it("puts un-animated elbows nearer the clip's than the rule and the rest pose's bend plane do", async () => {
    const { angles, clips } = await elbowErrors(name);
    // UAL: only the clips the table was not fitted to
    const names = [...new Set(clips)];
    const held = clips.map((c) => name !== "UAL" || fold(c, names) === 1);
    const e = Object.fromEntries(WAYS.map((w) => [w, summary(angles[w].filter((_, i) => held[i]))])) as Record<
      Way,
      ReturnType<typeof summary>
    >;
    report(
      `${name}${name === "UAL" ? " (held-out clips)" : ""}: elbow side off the clip's, mean and p90 (°): ` +
        "parent, rule, fitted",
      ...WAYS.flatMap((w) => [e[w].mean, e[w].p90]),
    );
    // measured, mean °, parent / rule / fitted: UAL's held-out clips 42.6 / 30.8 / 13.0; Xbot 31.3 / 26.3 / 12.6;
    // Soldier 34.9 / 29.1 / 14.0. The rule is the pole that stays continuous overhead (ARCHITECTURE.md, deviation
    // 35), 45° below back for an arm raised sideways where the clips have 17°: it beats the parent by 16–28 %, not
    // the 20 % the pole before it did (27.3 / 22.7 / 24.0), which flipped elbows 0.75 h on overhead reaches
    expect(e.parent.mean).toBeLessThan(BASELINE_MEAN[name]!.parent);
    expect(e.rule.mean).toBeLessThan(BASELINE_MEAN[name]!.rule);
    expect(e.rule.mean).toBeLessThan(0.85 * e.parent.mean);
    expect(e.arm.mean).toBeLessThan(0.7 * e.rule.mean);
    expect(e.arm.p90).toBeLessThan(0.7 * e.rule.p90);
    expect(e.arm.mean).toBeLessThan(17);
  });
});
