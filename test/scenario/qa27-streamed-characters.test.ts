/**
 * A game that streams characters in and out of its scene with their asset containers, IK attached: what it may do
 * to a character between frames, measured against a twin in the same scene that stays and is left alone (both
 * walking in step with the same FullBodyBipedIK, GrounderFBBIK and LookAtIK). These behaved before this file; it
 * keeps them so, and backs what docs/API.md says of them (SceneSerializer.Serialize in particular).
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { SceneSerializer } from "@babylonjs/core/Misc/sceneSerializer.js";
import { afterEach, describe, expect, it } from "vitest";
import { AimIK } from "../../src/babylon/aim-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { SceneUpdater } from "../../src/babylon/scene-updater.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { ikTwin } from "../helpers/ik-twin.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";
import { streamedPair } from "../helpers/streamed-pair.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

describe("a character streamed out and back, hidden, or sent to its rest pose between frames", () => {
  it("is solved on its first frame back as its twin that stayed, its clip played on meanwhile", async () => {
    const p = await streamedPair(open);
    const m = p.a.m;
    const show = (v: boolean) => {
      for (const x of m.container.meshes) x.isVisible = v;
    };
    const steps: [string, () => void, () => void][] = [
      ["removeAllFromScene", () => m.container.removeAllFromScene(), () => m.container.addAllToScene()],
      ["root disabled", () => m.root.setEnabled(false), () => m.root.setEnabled(true)],
      ["meshes invisible", () => show(false), () => show(true)],
      ["returnToRest", () => m.skeleton.returnToRest(), () => {}],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [what, out, back] of steps) {
        for (let f = 0; f < 10; f++) p.scene.render();
        out();
        for (let f = 0; f < 20; f++) p.scene.render();
        back();
        p.scene.render();
        const gap = p.gap();
        if (round === 0) report(`${what}: bones from the twin's on the first frame back (h)`, gap);
        expect(gap, what).toBeLessThan(1e-9);
      }
    }
    const hand = Vector3.Distance(worldPos(p.a.ik.references.leftHand), p.a.ik.solver.leftHandEffector.position);
    expect(hand / p.h).toBeLessThan(1e-6);
    // three times out of the scene: warned once, waited for
    expect(p.a.warnings).toEqual(["detached:skeleton", "look:detached:skeleton"]);
    expect([p.a.ik.isDisposed, p.a.grounder.isDisposed, p.a.look.isDisposed]).toEqual([false, false, false]);
  });

  it("instantiated entries disposed under their IKs take them along at the next frame, one warning each", async () => {
    const p = await streamedPair(open);
    const e = p.a.m.container.instantiateModelsToScene((n) => `clone_${n}`, false, { doNotInstantiate: true });
    e.animationGroups[0]!.start(true);
    const ik = FullBodyBipedIK.create(p.scene, e.skeletons[0]!);
    const r = ik.references;
    const aim = AimIK.create(p.scene, [r.rightUpperArm, r.rightForearm, r.rightHand]);
    aim.targetPosition.set(-2, 1, 2);
    const warnings: string[] = [];
    ik.onWarningObservable.add((w) => warnings.push(w.cause));
    aim.onWarningObservable.add((w) => warnings.push(`aim:${w.cause}`));
    const before = SceneUpdater.for(p.scene).items.length;
    for (let f = 0; f < 10; f++) p.scene.render();
    e.dispose();
    p.scene.render();
    expect([ik.isDisposed, aim.isDisposed]).toEqual([true, true]);
    expect(warnings).toEqual(["detached:skeleton", "aim:detached"]);
    expect(SceneUpdater.for(p.scene).items.length).toBe(before - 2);
    for (let f = 0; f < 3; f++) p.scene.render();
    expect(p.gap()).toBe(0);
  });
});

/**
 * UAL walking with a FullBodyBipedIK holding its left hand 0.33 h off the clip's place, beside a twin without IK in
 * step; 20 frames rendered. `own(i)` and `twin(i)` are the two nodes of bone i.
 */
async function heldHand() {
  const { m, ik, h, twinBone } = await ikTwin("UAL", "Walk_Loop", open);
  const hand = ik.solver.leftHandEffector;
  hand.position.copyFrom(worldPos(ik.references.leftHand).add(new Vector3(0.1 * h, 0.3 * h, 0.1 * h)));
  hand.positionWeight = 1;
  for (let f = 0; f < 20; f++) m.scene.render();
  const bones = m.skeleton.bones;
  return {
    m,
    h,
    own: (i: number) => bones[i]!.getTransformNode()!,
    twin: (i: number) => twinBone(bones[i]!).getTransformNode()!,
  };
}

/** The largest difference of a rotation's components from `of`'s local rotation (q and −q alike). */
function rotationGap(q: ArrayLike<number>, of: TransformNode): number {
  const o = of.rotationQuaternion!.asArray();
  const sign = o[0]! * q[0]! + o[1]! * q[1]! + o[2]! * q[2]! + o[3]! * q[3]! < 0 ? -1 : 1;
  let worst = 0;
  for (let i = 0; i < 4; i++) worst = Math.max(worst, Math.abs(q[i]! - sign * o[i]!));
  return worst;
}

describe("SceneSerializer.Serialize and setCurrentPoseAsRest with an IK on the character", () => {
  it("between frames saves the IK's output; inside onAfterAnimationsObservable, the animated pose", async () => {
    const { m, h, own, twin } = await heldHand();
    type Saved = { transformNodes: { uniqueId: number; position: number[]; rotationQuaternion: number[] }[] };
    /** The largest difference of the saved local transforms from `of`'s nodes (positions ÷ h, quaternions). */
    const offBy = (saved: Saved, of: (i: number) => TransformNode): number => {
      let worst = 0;
      m.skeleton.bones.forEach((_, i) => {
        const t = saved.transformNodes.find((x) => x.uniqueId === own(i).uniqueId)!;
        const position = Vector3.FromArray(t.position).subtract(of(i).position).length() / h;
        worst = Math.max(worst, position, rotationGap(t.rotationQuaternion, of(i)));
      });
      return worst;
    };
    const between = SceneSerializer.Serialize(m.scene) as Saved;
    // nothing of the IK is saved (its settings are ik.serialize()'s), no node, no Inspector entry
    expect(JSON.stringify(between)).not.toMatch(/fullbodybipedik|grounder|handle/i);
    expect(between.transformNodes.length).toBe(m.scene.transformNodes.length);
    expect(offBy(between, own)).toBe(0);
    const ikOff = offBy(between, twin);
    report("Serialize between frames: saved local transforms from the animated twin's", ikOff);
    expect(ikOff).toBeGreaterThan(0.1);
    let inFrame: Saved | null = null;
    m.scene.onAfterAnimationsObservable.addOnce(() => {
      inFrame = SceneSerializer.Serialize(m.scene) as Saved;
    });
    m.scene.render();
    expect(offBy(inFrame!, twin)).toBe(0);
  });

  it("setCurrentPoseAsRest between frames takes the IK's output; inside onAfterAnimationsObservable, the clip's", async () => {
    const { m, own, twin } = await heldHand();
    /** The largest difference of the rest pose's local rotations from `of`'s nodes (quaternion components). */
    const restOffBy = (of: (i: number) => TransformNode): number => {
      const q = new Quaternion();
      let worst = 0;
      m.skeleton.bones.forEach((b, i) => {
        b.getRestMatrix().decompose(undefined, q);
        worst = Math.max(worst, rotationGap(q.asArray(), of(i)));
      });
      return worst;
    };
    m.skeleton.setCurrentPoseAsRest();
    // float32 matrices: the rest is the pose shown to 2e-7
    expect(restOffBy(own)).toBeLessThan(1e-6);
    expect(restOffBy(twin)).toBeGreaterThan(0.1);
    // the bones' matrices follow the nodes when the skeleton is prepared: prepared at once, they hold the clip's pose
    m.scene.onAfterAnimationsObservable.addOnce(() => {
      m.skeleton.prepare(true);
      m.skeleton.setCurrentPoseAsRest();
    });
    m.scene.render();
    const animated = restOffBy(twin);
    report("setCurrentPoseAsRest after the animations: rest rotations from the twin's", animated);
    expect(animated).toBeLessThan(1e-6);
  });
});
