/**
 * A hand's target hanging from a bone the hand's own pull moves: UAL jogs, the right hand effector's target a node
 * under the first spine bone 0.3 h in front of the hand (out of the straight arm's reach as the arm swings back),
 * weights 1. The target anchor (target-anchor.ts) placed the target where the last solve left the spine, so the
 * body chased it: one pull further each frame, the pelvis 0.24 h off the clip's after 30 frames, then 0.87 h of
 * finger motion in one frame as the loop wrapped. Placed half-way, the chase settles (0.033 h, 0.067 h).
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { type LoadedModel, modelAvailable } from "../helpers/babylon-scene.js";
import { ikTwin, largestChange } from "../helpers/ik-twin.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

describe("a hand target under the spine, out of reach", () => {
  it.skipIf(!modelAvailable("UAL"))("UAL jogging: the body does not chase it, no bone jumps", async () => {
    const { m, ik, h, twin, twinBone, offsets } = await ikTwin("UAL", "Jog_Fwd_Loop", open);
    m.scene.render();
    const r = ik.references;
    const forward = Vector3.TransformNormal(ik.characterForward, m.root.getWorldMatrix()).normalize();
    const box = new TransformNode("box", m.scene);
    box.parent = r.spine[0]!.getTransformNode();
    box.setAbsolutePosition(worldPos(r.rightHand).add(forward.scale(0.3 * h)));
    const e = ik.solver.rightHandEffector;
    e.target = box;
    e.positionWeight = 1;
    e.rotationWeight = 1;
    const clipBones = twin.skeleton.bones;
    let before = offsets();
    let clipBefore = clipBones.map(worldPos);
    let jump = 0;
    let clipJump = 0;
    let pelvis = 0;
    // past the loop's wrap (frame 33)
    for (let f = 1; f <= 60; f++) {
      m.scene.render();
      const after = offsets();
      const clipAfter = clipBones.map(worldPos);
      if (f >= 2) jump = Math.max(jump, largestChange(before, after, h));
      clipJump = Math.max(clipJump, largestChange(clipBefore, clipAfter, h));
      pelvis = Math.max(pelvis, Vector3.Distance(worldPos(r.pelvis), worldPos(twinBone(r.pelvis))) / h);
      before = after;
      clipBefore = clipAfter;
    }
    report(
      `UAL jog, right hand on a box under the spine: the IK's largest change a frame ${jump.toFixed(3)} h (the ` +
        `clip's bones ${clipJump.toFixed(3)} h), the pelvis at most ${pelvis.toFixed(3)} h off the clip's`,
    );
    // placed all the way to where the last solve left the spine: 0.873 h and 0.242 h (the clip's own 0.108 h)
    expect(jump).toBeLessThan(clipJump);
    expect(pelvis).toBeLessThan(0.06);
  });
});
