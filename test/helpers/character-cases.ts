/**
 * The characters a QA round runs a part on, each a case: a model in a left- or right-handed scene, maybe scaled
 * (Xbot ×0.01, ×100) or made a VRM 0.x avatar (the Mannequin), loaded with its file's clips stopped; and BipedIK's
 * reach of targets reachable by construction, shared by its tests.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { onTestFinished } from "vitest";
import type { BipedIK } from "../../src/babylon/biped-ik.js";
import { type LoadedModel, type ModelName, loadModel } from "./babylon-scene.js";
import { bonePos, posedEnd } from "./model-limbs.js";
import type { Random } from "./random.js";
import { mannequinAsVrm } from "./vrm-from-glb.js";

/** A character to test on. */
export interface CharacterCase {
  label: string;
  name: ModelName;
  rightHanded: boolean;
  /** The root's scale (Xbot ×0.01, ×100). */
  scale?: number;
  /** The Mannequin made a VRM 0.x avatar. */
  vrm?: boolean;
}

/** The case of `name` in a left- or right-handed scene (`label`: name, then LH or RH). */
export function characterCase(
  name: ModelName,
  rightHanded: boolean,
  more: { label?: string; scale?: number; vrm?: boolean } = {},
): CharacterCase {
  return {
    name,
    rightHanded,
    scale: more.scale,
    vrm: more.vrm,
    label: `${more.label ?? name} ${rightHanded ? "RH" : "LH"}`,
  };
}

/** The VRM and Xbot ×0.01 and ×100 cases in one scene. */
export function vrmAndScaledXbot(rightHanded: boolean): CharacterCase[] {
  return [
    characterCase("Mannequin", rightHanded, { label: "VRM", vrm: true }),
    characterCase("Xbot", rightHanded, { label: "Xbot ×0.01", scale: 0.01 }),
    characterCase("Xbot", rightHanded, { label: "Xbot ×100", scale: 100 }),
  ];
}

/** Loads the case's model (disposed when the test ends), scaled: its clips as the file starts them. */
export async function loadCaseModel(c: CharacterCase, highPrecision = false): Promise<LoadedModel> {
  const m = await loadModel(c.name, {
    rightHanded: c.rightHanded,
    glb: c.vrm ? mannequinAsVrm : undefined,
    highPrecision,
  });
  onTestFinished(() => m.dispose());
  if (c.scale !== undefined) m.root.scaling.scaleInPlace(c.scale);
  return m;
}

/**
 * Loads the case's model with its file's clips stopped (the `.babylon` file starts one at load), rendered once,
 * and its height (the joints' extent along y, plain Bones too).
 */
export async function loadCase(c: CharacterCase, highPrecision = false): Promise<{ m: LoadedModel; h: number }> {
  const m = await loadCaseModel(c, highPrecision);
  m.scene.stopAllAnimations();
  m.scene.render();
  const ys = m.skeleton.bones.map((b) => bonePos(m, b).y);
  return { m, h: Math.max(...ys) - Math.min(...ys) };
}

const LIMBS = ["leftFoot", "rightFoot", "leftHand", "rightHand"] as const;

/** Every target of BipedIK's parts at `point` (the weights left as they are). */
export function targetEveryPart(ik: BipedIK, point: Vector3): void {
  for (const key of LIMBS) ik.solvers[key].targetPosition.copyFrom(point);
  ik.solvers.spine.targetPosition.copyFrom(point);
  ik.solvers.aim.targetPosition.copyFrom(point);
  ik.solvers.lookAt.targetPosition.copyFrom(point);
  ik.solvers.pelvis.targetPosition.copyFrom(point);
}

/**
 * BipedIK's hands and feet sent to targets reachable by construction (the end of each limb posed at random), fully
 * weighted, `rounds` times: the worst distance from a target, × `h`. The weights are left at 1.
 */
export function bipedReach(m: LoadedModel, ik: BipedIK, rnd: Random, h: number, rounds = 8): number {
  let worst = 0;
  for (let k = 0; k < rounds; k++) {
    const targets = LIMBS.map((key) => {
      const limb = ik.solvers[key];
      const target = posedEnd(
        limb.bones.map((b) => bonePos(m, b)),
        rnd,
        1,
      );
      limb.targetPosition.copyFrom(target);
      limb.solver.ikPositionWeight = 1;
      return target;
    });
    m.scene.render();
    LIMBS.forEach((key, i) => {
      worst = Math.max(worst, Vector3.Distance(bonePos(m, ik.solvers[key].bones[2]), targets[i]!) / h);
    });
  }
  return worst;
}
