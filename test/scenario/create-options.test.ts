/**
 * What a plain-JavaScript user's slips in a component's options give at create (src/babylon/option-check.ts): an
 * array where a node or vector goes, one object where an array goes, a string option's typo. Each throws an
 * FBBIKError naming the option, attaches nothing (the same create succeeds right after), and no frame fails.
 */
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { CCDIK } from "../../src/babylon/chain-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** The problems of the FBBIKError `create` throws (none when it does not throw: then it is disposed). */
function problems(create: () => { dispose(): void }): readonly string[] {
  try {
    create().dispose();
    return [];
  } catch (e) {
    if (!(e instanceof FBBIKError)) throw e;
    return e.problems;
  }
}

describe("options a JavaScript user gets wrong, at create", () => {
  it("throws for an array where a node or vector goes, one object where an array goes, a choice's typo", async () => {
    const m = await loadModel("UAL");
    open.push(m);
    const node = new TransformNode("target", m.scene);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const r = ik.references;
    const arm = [r.leftUpperArm, r.leftForearm, r.leftHand] as const;
    expect(problems(() => CCDIK.create(m.scene, arm, { target: [node] } as never))).toEqual([
      'option "target" is an array of 1 (array): object or null expected',
    ]);
    expect(problems(() => LimbIK.create(m.scene, ...arm, { bendModifier: "Goal" } as never))).toEqual([
      'option "bendModifier" is "Goal": one of "animation", "target", "parent", "goal", "arm" expected',
    ]);
    expect(problems(() => FBBIKHeadEffector.create(ik, { bendBones: r.spine[0] } as never))).toEqual([
      'option "bendBones" is a Bone (object): array expected',
    ]);
    // nothing was attached: the same components set up right after, and the frames run clean
    const ccd = CCDIK.create(m.scene, arm, { target: node });
    FBBIKHeadEffector.create(ik);
    const failed: string[] = [];
    ik.onWarningObservable.add((w) => void failed.push(w.cause));
    ccd.onWarningObservable.add((w) => void failed.push(w.cause));
    for (let f = 0; f < 3; f++) m.scene.render();
    expect(failed).toEqual([]);
    ccd.dispose();
    expect(problems(() => LimbIK.create(m.scene, ...arm, { bendModifier: "goal" }))).toEqual([]);
  });
});
