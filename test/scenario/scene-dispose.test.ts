/**
 * A scene disposed while IKs live on it (a level unloaded, a single-page app leaving a view) takes them with it:
 * every component of the scene (FullBodyBipedIK, the family, the level of detail) is disposed inside
 * `scene.dispose()`, notified once, and another scene's IK goes on. Before, they stayed alive and the IKs'
 * node claims (a module-level set) kept every such scene reachable: 4 of 4 scenes leaked (WeakRef after gc),
 * 3 of 4 without IK or with `ik.dispose()` (the last scene is Babylon's `LastCreatedScene`).
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { SceneUpdater } from "../../src/babylon/scene-updater.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

describe("scene.dispose() with IKs alive", () => {
  it("disposes every IK component of the scene, once, and leaves another scene's IK running", async () => {
    const a = await loadModel("Mannequin");
    const b = await loadModel("Mannequin");
    // the scene's observers run in the order they were added: the IKs go at the place of the first one's create
    const seen: boolean[] = [];
    a.scene.onDisposeObservable.add(() => seen.push(ik.isDisposed));
    const ik = FullBodyBipedIK.create(a.scene, a.skeleton);
    a.scene.onDisposeObservable.add(() => seen.push(ik.isDisposed));
    const r = ik.references;
    const limb = LimbIK.create(a.scene, r.rightUpperArm, r.rightForearm, r.rightHand);
    const lod = IKLevelOfDetail.for(a.scene);
    const other = FullBodyBipedIK.create(b.scene, b.skeleton);
    const notified = { ik: 0, limb: 0, lod: 0 };
    ik.onDisposeObservable.add(() => notified.ik++);
    limb.onDisposeObservable.add(() => notified.limb++);
    lod.onDisposeObservable.add(() => notified.lod++);
    ik.solver.leftHandEffector.positionWeight = 1;
    a.scene.render();

    a.dispose();
    expect([ik.isDisposed, limb.isDisposed]).toEqual([true, true]);
    expect(notified).toEqual({ ik: 1, limb: 1, lod: 1 });
    expect(seen).toEqual([false, true]);
    expect(IKLevelOfDetail.get(a.scene)).toBeNull();
    expect(SceneUpdater.isActive(a.scene)).toBe(false);
    ik.dispose(); // the user's own dispose afterwards is harmless
    limb.dispose();

    // the other scene's IK is untouched
    const hand = other.solver.leftHandEffector;
    const h = height(b);
    const goal = worldPos(other.references.leftHand).add(new Vector3(0.2 * h, -0.1 * h, 0.1 * h));
    hand.position.copyFrom(goal);
    hand.positionWeight = 1;
    b.scene.render();
    expect(Vector3.Distance(worldPos(other.references.leftHand), goal) / h).toBeLessThan(1e-5);
    b.dispose();
    expect(other.isDisposed).toBe(true);
  });
});
