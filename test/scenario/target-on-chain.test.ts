/**
 * A target on a point of its own chain (a user's slip: the chain's root node, or the aim bone's own node, given as
 * the target). Babylon's world matrices are float32, so such a node reads 1e-7–1e-6 of the chain's length off the
 * point, in a direction that changes with every animated frame: LimbIK, CCDIK and FABRIK folded the arm toward
 * that noise and AimIK aimed along it, the arm thrown 0.30–0.44 of the height a frame on UAL's idle. Within
 * ON_POINT (1e-4 of the chain) a target now counts as on the point: the joint chains fold along the animated tip,
 * LimbIK and AimIK keep the animated pose for the frame and warn once. JacobianIK's least squares drifted along
 * the sphere of equally near folds (0.06 h a frame): its effector is held at its animated position, warned once.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { AimIK } from "../../src/babylon/aim-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { CCDIK, FABRIK } from "../../src/babylon/chain-ik.js";
import { JacobianIK } from "../../src/babylon/jacobian-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import type { RigComponent } from "../../src/babylon/rig-component.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

type Make = (arm: [Bone, Bone, Bone]) => RigComponent;
const node = (b: Bone) => b.getTransformNode()!;
const CASES: [string, Make, string | null][] = [
  [
    "LimbIK, target on the upper arm",
    ([a, b, c]) => LimbIK.create(a.getScene(), a, b, c, { target: node(a) }),
    "target:on-root",
  ],
  ["CCDIK, target on the chain's root", (arm) => CCDIK.create(arm[0].getScene(), arm, { target: node(arm[0]) }), null],
  [
    "FABRIK, target on the chain's root",
    (arm) => FABRIK.create(arm[0].getScene(), arm, { target: node(arm[0]) }),
    null,
  ],
  [
    "JacobianIK, target on the chain's root",
    (arm) => JacobianIK.create(arm[0].getScene(), arm, { effectors: [{ bone: arm[2], target: node(arm[0]) }] }),
    "effector 0 (DEF-hand.L) target:on-root",
  ],
  [
    "AimIK, target on the aim bone",
    (arm) => AimIK.create(arm[0].getScene(), arm, { target: node(arm[2]) }),
    "target:on-aim-point",
  ],
];

describe("a target on its own chain's root or aim point (UAL, idle)", () => {
  for (const [what, make, warning] of CASES) {
    it(`${what}: no bone jumps, ${warning === null ? "folded along the animated tip" : `warned once (${warning})`}`, async () => {
      const m = await loadModel("UAL", { clips: (c) => c === "Idle_Loop" });
      m.container.animationGroups[0]!.start(true);
      const h = height(m);
      const r = resolveBipedReferences(m.skeleton).references;
      const ik = make([r.leftUpperArm, r.leftForearm, r.leftHand]);
      const warnings: string[] = [];
      ik.onWarningObservable.add((w) => warnings.push(w.cause));
      const bones = m.skeleton.bones;
      let last: Vector3[] = [];
      let jump = 0;
      for (let f = 0; f < 40; f++) {
        m.scene.render();
        const now = bones.map((b) => worldPos(b));
        if (f > 1) for (let i = 0; i < now.length; i++) jump = Math.max(jump, Vector3.Distance(now[i]!, last[i]!) / h);
        last = now;
      }
      console.log(`${what}: largest bone move a frame ${jump.toFixed(4)} h (the idle alone: 0.0014 h)`);
      expect(jump).toBeLessThan(0.005);
      expect(warnings).toEqual(warning === null ? [] : [warning]);
      m.dispose();
    });
  }
});
