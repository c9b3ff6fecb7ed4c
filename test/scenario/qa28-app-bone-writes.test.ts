/**
 * The app writing bones itself while a FullBodyBipedIK runs (QA round 28). A procedural head turn set in
 * `onBeforeRenderObservable` (after the IK's create) is part of the pose the IK reads, as docs/API.md's frame order
 * says: with the head mapping's `maintainRotationWeight` 0 (the default) the head keeps the turn in its local
 * rotation, as the twin without IK that turns it alike; at 1 it keeps the world rotation it had with the turn, while
 * the IK bends the spine under it. `skeleton.prepare()`, `bone.markAsDirty()` and `skeleton.returnToRest()` called in
 * the same observer change nothing the IK does not expect: at master weight 0 the pose is the twin's bit for bit.
 * These behaved before this file; it keeps them so.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { ikTwin } from "../helpers/ik-twin.js";
import { report } from "../helpers/modifier-scene.js";
import { rotationAngle, worldRotation } from "../helpers/rotation-angle.js";
import { worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

const UP = new Vector3(0, 1, 0);

describe("a procedural head turn written by the app in onBeforeRenderObservable (UAL walking)", () => {
  for (const keep of [0, 1]) {
    it(`is kept with the head mapping's maintainRotationWeight ${keep}`, async () => {
      const t = await ikTwin("UAL", "Walk_Loop", open);
      const r = t.ik.references;
      // the left hand pulled up and across: the spine bends under the head
      const hand = t.ik.solver.leftHandEffector;
      hand.positionWeight = 1;
      t.ik.solver.headMapping!.maintainRotationWeight = keep;
      const head = r.head!.getTransformNode()!;
      const twinHead = t.twinBone(r.head!).getTransformNode()!;
      let frame = 0;
      for (const n of [head, twinHead]) {
        // a new quaternion each frame, the common way (the clip keys the head: this replaces its rotation)
        t.m.scene.onBeforeRenderObservable.add(() => {
          n.rotationQuaternion = Quaternion.RotationAxis(UP, 0.6 * Math.sin(frame / 20));
        });
      }
      let read = new Quaternion();
      t.m.scene.onBeforeRenderObservable.add(() => {
        read = worldRotation(head);
      });
      let local = 0;
      let world = 0;
      let spine = 0;
      for (frame = 0; frame < 120; frame++) {
        hand.position.copyFrom(worldPos(t.twinBone(r.leftHand)).add(new Vector3(-0.2 * t.h, 0.3 * t.h, 0.15 * t.h)));
        t.m.scene.render();
        local = Math.max(local, rotationAngle(head.rotationQuaternion!, twinHead.rotationQuaternion!));
        world = Math.max(world, rotationAngle(worldRotation(head), read));
        const chest = r.spine[r.spine.length - 1]!;
        spine = Math.max(
          spine,
          rotationAngle(worldRotation(chest.getTransformNode()!), worldRotation(t.twinBone(chest).getTransformNode()!)),
        );
      }
      report(
        `maintainRotationWeight ${keep}: head's local from the twin's, world from as read; chest turned (rad)`,
        local,
        world,
        spine,
      );
      expect(spine).toBeGreaterThan(0.1);
      if (keep === 0) expect(local).toBe(0);
      else expect(world).toBeLessThan(1e-6);
    });
  }
});

describe("skeleton and bone calls of the app in onBeforeRenderObservable, master weight 0 (UAL walking)", () => {
  it("prepare, markAsDirty and returnToRest give the twin's pose bit for bit", async () => {
    const t = await ikTwin("UAL", "Walk_Loop", open);
    const r = t.ik.references;
    t.ik.solver.leftHandEffector.positionWeight = 1;
    t.ik.solver.ikPositionWeight = 0;
    const calls: [string, (m: LoadedModel) => void][] = [
      ["skeleton.prepare(true)", (m) => m.skeleton.prepare(true)],
      ["bone.markAsDirty()", (m) => m.skeleton.bones.find((b) => b.name === r.leftHand.name)!.markAsDirty()],
      ["skeleton.returnToRest()", (m) => m.skeleton.returnToRest()],
    ];
    const offsets0 = t.offsets();
    for (const [what, call] of calls) {
      const observers = [t.m, t.twin].map((m) => t.m.scene.onBeforeRenderObservable.add(() => call(m)));
      let worst = 0;
      for (let f = 0; f < 20; f++) {
        t.ik.solver.leftHandEffector.position.copyFrom(worldPos(r.leftHand).add(new Vector3(0, 0.2 * t.h, 0)));
        t.m.scene.render();
        for (const o of t.offsets()) worst = Math.max(worst, o.length());
      }
      for (const o of observers) t.m.scene.onBeforeRenderObservable.remove(o);
      report(`${what}: bones from the twin's at weight 0 (h)`, worst / t.h);
      expect(worst, what).toBe(0);
    }
    expect(offsets0.every((o) => o.length() === 0)).toBe(true);
  });
});
