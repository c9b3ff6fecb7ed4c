/**
 * The mocap-rebuild harness (test/helpers/mocap-rebuild.ts) on a few of the UAL character's clips: a still clip is
 * rebuilt exactly from its own effectors, and FullBodyBipedIK's rebuild of an idle and a walk stays within today's
 * figures. The whole measurement (every clip, Xbot too) is `npm run bench -- mocap`.
 */
import { describe, expect, it } from "vitest";
import { mocapRebuild } from "../helpers/mocap-rebuild.js";

describe("mocap rebuild from five effectors (UAL)", () => {
  it("rebuilds a still clip exactly and an idle and a walk within today's error", async () => {
    const r = await mocapRebuild("UAL", { clips: ["A_TPose", "Idle_Loop", "Walk_Loop"], framesPerClip: 4 });
    if (process.env.FBBIK_REPORT === "1") console.log(JSON.stringify(r.clips));
    expect(r.bones.length).toBe(19);
    expect(r.rootNode).toBe("DEF-hips");
    const [still, idle, walk] = r.clips;
    // every frame of the T-pose clip is its first: the solve starts at the answer
    expect(still!.fbbikPercent).toBeLessThan(1e-3);
    expect(still!.limbPercent).toBeLessThan(1e-3);
    for (const c of [idle!, walk!]) {
      expect(c.fbbikPercent).toBeGreaterThan(0.01);
      expect(c.fbbikPercent).toBeLessThan(1.5);
      expect(c.limbPercent).toBeLessThan(2);
      // the hands and feet reach their targets (the LimbIKs' pelvis keeps its first-frame turn: a foot may fall short)
      expect(c.fbbikEffectorPercent).toBeLessThan(0.01);
      expect(c.limbEffectorPercent).toBeLessThan(0.1);
    }
  });

  it("the body effector's rotation brings clips that turn the whole body closer (rolls, a death, standing up)", async () => {
    const clips = ["Roll", "Death01", "Sitting_Exit"];
    const plain = await mocapRebuild("UAL", { clips, framesPerClip: 4 });
    const turned = await mocapRebuild("UAL", { clips, framesPerClip: 4, bodyRotation: true });
    if (process.env.FBBIK_REPORT === "1") console.log(plain.fbbikPercent, turned.fbbikPercent);
    // measured: 8.25 without the body's rotation (the default), 2.23 with it
    expect(plain.fbbikPercent).toBeLessThan(9.5);
    expect(turned.fbbikPercent).toBeLessThan(0.9 * plain.fbbikPercent);
    // the pelvis takes the clip's rotation exactly (it is the body effector's bone here)
    expect(turned.fbbikBonePercent[0]!).toBeLessThan(1e-3);
  });
});
