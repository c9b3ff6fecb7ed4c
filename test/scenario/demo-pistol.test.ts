/**
 * The demo's aim prop (demo/src/props/pistol.ts) in the Mannequin's fist, which is about four times a realistic
 * one: a pistol sized from the height alone vanished inside it. Fitted to the fist, the slide shows above the
 * skin under it and the muzzle ahead of the fist.
 */
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { bonePos } from "../../demo/src/kit.js";
import { handVertices, quantile } from "../../demo/src/props/hand-shape.js";
import { makePistol } from "../../demo/src/props/pistol.js";
import { loadModel } from "../helpers/babylon-scene.js";

const noShadows = { addShadowCaster: () => undefined } as unknown as ShadowGenerator;

describe("the demo's pistol in the Mannequin's big fist", () => {
  it("shows: the slide's upper half above the skin under it, nothing of the fist ahead of the muzzle", async () => {
    const m = await loadModel("Mannequin");
    onTestFinished(() => m.dispose());
    const joints = m.skeleton.bones.filter((b) => b.getTransformNode() !== null).map((b) => bonePos(b).y);
    const h = Math.max(...joints) - Math.min(...joints);
    const hand = m.skeleton.bones.find((b) => b.name === "hand.r")!;
    // as the aim scenario does without a pistol clip: the barrel along the hanging forearm, its top forward
    const barrel = bonePos(hand).subtract(bonePos(hand.getParent()!)).normalize();
    const pistol = makePistol(m.scene, noShadows, hand, h, barrel, Vector3.Forward());
    const slide = m.scene.getMeshByName("pistol slide")!;
    const half = slide.getBoundingInfo().boundingBox.extendSize;
    // the skin in the muzzle's frame (x side, y top, z barrel; the muzzle on the slide's axis, at its front)
    const toMuzzle = Matrix.Invert(pistol.muzzle.computeWorldMatrix(true));
    const skin = handVertices(hand).map((p) => Vector3.TransformCoordinates(p, toMuzzle));
    const inSlide = (p: Vector3) => Math.abs(p.x) < half.x && p.z > -2 * half.z;
    const over = quantile(
      skin.filter((p) => inSlide(p) && p.z < 0).map((p) => p.y),
      0.95,
    );
    const ahead = skin.filter((p) => inSlide(p) && Math.abs(p.y) < half.y && p.z > 0).length;
    if (process.env.FBBIK_REPORT)
      console.log(
        `Mannequin fist: ${skin.length} skin vertices; under the slide up to ${((over / h) * 100).toFixed(2)} % of h ` +
          `from its axis (half its height ${((half.y / h) * 100).toFixed(2)} %); ${ahead} ahead of the muzzle`,
      );
    expect(skin.length, "the hand's skin found").toBeGreaterThan(50);
    expect(over / h, "the skin under the slide stays below its axis").toBeLessThan(0.002);
    expect(ahead, "no skin ahead of the muzzle").toBe(0);
  });
});
