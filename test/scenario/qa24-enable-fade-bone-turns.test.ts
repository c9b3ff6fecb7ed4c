/**
 * A running character hit every few frames and firing a two-handed gun, the IK's `enabled` switched off and back on
 * with `enableFadeSeconds`: HitReaction and Recoil turn bones after the solve and write them at once, and the fade
 * must still ease their output (and the solve's) out and in, as it does for offsets alone.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { MeshBuilder } from "@babylonjs/core/Meshes/meshBuilder.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedEffector, HitPointBone, HitPointEffector, HitReaction, Recoil } from "../../src/index.js";
import { type LoadedModel, modelAvailable } from "../helpers/babylon-scene.js";
import { ikTwin, largestChange } from "../helpers/ik-twin.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

const { Body, LeftShoulder, RightShoulder, RightHand } = FullBodyBipedEffector;
/** The frame `enabled` goes false, and the frame it comes back (the fade out has ended by then). */
const OFF = 40;
const ON = 70;

describe("enabled faded off and on under hits and recoil", () => {
  for (const [model, clip] of [
    ["UAL", "Jog_Fwd_Loop"],
    ["Xbot", "run"],
  ] as const) {
    it.skipIf(!modelAvailable(model))(`${model} running: the fade eases the bone turns out and in`, async () => {
      const { m, ik, h, offsets } = await ikTwin(model, clip, open);
      ik.enableFadeSeconds = 0.3;
      m.scene.render();
      const spine = ik.references.spine[0]!;
      const chest = MeshBuilder.CreateBox("chest", { size: 0.2 * h }, m.scene);
      chest.parent = spine.getTransformNode();
      const hits = new HitReaction(ik, {
        effectorHitPoints: [
          new HitPointEffector({
            collider: chest,
            effectorLinks: [{ effector: Body }, { effector: LeftShoulder }, { effector: RightShoulder }],
          }),
        ],
        boneHitPoints: [new HitPointBone({ collider: chest, boneLinks: [{ bone: spine }] })],
      });
      let seed = 7;
      const random = () => {
        seed = (seed * 16807) % 2147483647;
        return seed / 2147483647;
      };
      const recoil = new Recoil(ik, {
        offsets: [{ offset: { x: 0, y: 0.01 * h, z: -0.04 * h }, effectorLinks: [{ effector: RightHand }] }],
        handRotationOffset: { x: -8, y: 0, z: 0 },
        random,
      });
      let last = offsets();
      // the largest bone offset off the clip's a frame (÷ h), and the largest change of one in the switch frames
      const shown: number[] = [];
      let atSwitches = 0;
      for (let f = 1; f <= ON + 25; f++) {
        if (f % 5 === 0) {
          const force = new Vector3(random() - 0.5, 0, random() - 0.5).normalize().scale(0.1 * h);
          hits.hit(chest, force, worldPos(spine));
        }
        if (f % 7 === 0) recoil.fire(1);
        if (f === OFF) ik.enabled = false;
        if (f === ON) ik.enabled = true;
        m.scene.render();
        const now = offsets();
        shown[f] = Math.max(...now.map((v) => v.length() / h));
        if (f === OFF || (f >= ON && f <= ON + 20)) atSwitches = Math.max(atSwitches, largestChange(last, now, h));
        last = now;
      }
      // the fade's weight is 0.95 in the first frame off, about 0.5 ten frames into the fade in (0.3 s at 60 frames a
      // second). Before, nothing of the IK showed in either: UAL 0.174 h off the clip, then 0 at once; 0 for 18 frames
      // on, then 0.12 h at once (largest change 0.174 h; Xbot 0.138 h, 0.143 h); now 0.163, 0.093 h, largest change
      // 0.038 h (Xbot 0.124, 0.093, 0.057 h)
      report(
        `${model}: shown before and in the first frame off, ten and twenty frames on; largest change at the switches`,
        shown[OFF - 1]!,
        shown[OFF]!,
        shown[ON + 10]!,
        shown[ON + 20]!,
        atSwitches,
      );
      expect(shown[OFF]!).toBeGreaterThan(0.5 * shown[OFF - 1]!);
      expect(shown[ON + 10]!).toBeGreaterThan(0.3 * shown[ON + 20]!);
      expect(atSwitches).toBeLessThan(0.08);
      expect(ik.warningsRaised.map((w) => w.cause)).toEqual([]);
    });
  }
});
