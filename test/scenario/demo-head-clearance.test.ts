/**
 * What a chibi's head (the Mannequin's: 40 % of its height, from the shoulders up, overhanging the chest) hid in
 * the demo, counted from the camera through the head skin's box: the crowd's right hands circled under the heads
 * (a wrist behind its own head in 23 % of the samples of 20 Mannequins; 0 to 4.5 % now), the VR headset sat above the face on
 * the forehead (0.16 m above the eyes; on them now), and the climb, seen from the side and behind, hid a hand
 * behind the head in 15 of 57 samples (1 now, from the front three quarters). Realistic heads are narrow but as
 * high as the top rungs: from the front three quarters the left hand on a rung beside the head hid behind it in
 * 10 (UAL) and 18 (Xbot) of 57 samples; seen straight on, 1 and 0. The VR script's turn to the left swung the
 * left hand at the top of its wave behind the Mannequin's head, seen from the front right: in 29 of 360 poses.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { behindHeadBox, headBox, toCharacter } from "../../demo/src/head-box.js";
import { bonePos } from "../../demo/src/kit.js";
import { type LoadedModel, type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { openScenario } from "../helpers/demo-scenario.js";

const report = (s: string) => process.env.FBBIK_REPORT && console.log(s);

describe.each<ModelName>(["Mannequin", "UAL", "Xbot", "Soldier"])("the head hides nothing on %s", (model) => {
  let m: LoadedModel;
  beforeAll(async () => {
    if (modelAvailable(model)) m = await loadModel(model);
  });
  afterAll(() => m?.dispose());
  const open = async (name: string) => {
    // the panel's controls listen on the page as their module loads
    vi.stubGlobal("addEventListener", () => undefined);
    const { scenarioNamed } = await import("../../demo/src/scenarios/index.js");
    return openScenario(m, scenarioNamed(name)!, 1280, 800);
  };

  it.skipIf(!modelAvailable(model))("crowd: the right hands circle clear of their heads", async () => {
    const { run, camera, ctx } = await open("crowd");
    run.control!("count", 20);
    let [hidden, samples] = [0, 0];
    for (let f = 0; f < 240; f++) {
      m.scene.render();
      if (f < 30 || f % 10 !== 0) continue;
      for (const c of ctx.characters) {
        samples++;
        if (behindHeadBox(camera, c, headBox(c), bonePos(c.ik.references.rightHand))) hidden++;
      }
    }
    report(`${model} crowd: right wrist behind its head in ${hidden} of ${samples} samples`);
    expect(samples).toBeGreaterThan(300);
    expect(hidden / samples, "wrists behind their heads").toBeLessThan(0.08);
  });

  it.skipIf(!modelAvailable(model))("vr: the headset on the eyes", async () => {
    const { c, ctx } = await open("vr");
    const box = headBox(c);
    const at = toCharacter(c, ctx.scene.getMeshByName("headset")!.getAbsolutePosition());
    const size = box.hi.y - box.lo.y;
    report(
      `${model} vr: headset ${((at.y - box.eyes) / size).toFixed(2)} head heights above the eyes, its centre ` +
        `${((at.z - box.hi.z) / size).toFixed(2)} ahead of the face`,
    );
    expect(Math.abs(at.y - box.eyes) / size, "at the eyes' height").toBeLessThan(0.1);
    expect(Math.abs(at.z - box.hi.z) / size, "on the face").toBeLessThan(0.15);
    expect(Math.abs(at.x - 0.5 * (box.lo.x + box.hi.x)) / size).toBeLessThan(0.05);
  });

  it.skipIf(!modelAvailable(model))("climb: the hands on the rungs in view", async () => {
    const { camera, c } = await open("climb");
    let [hidden, samples] = [0, 0];
    for (let f = 0; f < 600; f++) {
      m.scene.render();
      if (f < 30 || f % 10 !== 0) continue;
      samples++;
      const box = headBox(c);
      const r = c.ik.references;
      if ([r.leftHand, r.rightHand].some((b) => behindHeadBox(camera, c, box, bonePos(b)))) hidden++;
    }
    report(`${model} climb: a hand behind the head in ${hidden} of ${samples} samples`);
    expect(samples).toBe(57);
    expect(hidden, "samples with a hand behind the head").toBeLessThanOrEqual(3);
  });

  it.skipIf(!modelAvailable(model))("vr: the controllers in view through the whole script", async () => {
    const { camera, c, ctx, run } = await open("vr");
    for (let f = 0; f < 5; f++) m.scene.render();
    // the script's poses over 36 s (its turn, crouch, wave and reach meet in every phase), each solved twice
    run.control!("script", false);
    const r = c.ik.references;
    const grips = ["left controller", "right controller"].map((n) => ctx.scene.getMeshByName(n)!);
    let [hidden, samples] = [0, 0];
    for (let k = 0; k < 360; k++) {
      run.control!("pose", k / 10);
      m.scene.render();
      m.scene.render();
      samples++;
      const box = headBox(c);
      const points = [...grips.map((g) => g.getAbsolutePosition()), bonePos(r.leftHand), bonePos(r.rightHand)];
      if (points.some((p) => behindHeadBox(camera, c, box, p))) hidden++;
    }
    report(`${model} vr: a controller or hand behind the head in ${hidden} of ${samples} poses`);
    expect(hidden, "poses with a controller or hand behind the head").toBe(0);
  });
});
