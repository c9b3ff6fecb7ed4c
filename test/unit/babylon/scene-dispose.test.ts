/**
 * A scene disposed with IK components still in it disposes them: no more frames run there for them to notice,
 * and the solve order's module-level registry held every one (with its scene) for good. The demo leaked about
 * 1.4 scenes per scenario switch (48 alive after 23 builds).
 */
import { describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../../src/babylon/full-body-biped-ik.js";
import { LookAtIK } from "../../../src/babylon/look-at-ik.js";
import { claimantCount } from "../../../src/babylon/solve-order.js";
import { loadModel } from "../../helpers/babylon-scene.js";

describe("a scene disposed with its IKs", () => {
  it("disposes them and leaves no claim in the solve order's registry", async () => {
    const m = await loadModel("Mannequin");
    // the registry is module-wide and test files share a worker: a scene another file left open keeps its claims
    const before = claimantCount();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const r = ik.references;
    const look = LookAtIK.create(m.scene, { spine: r.spine, head: r.head });
    expect(claimantCount()).toBe(before + 2);
    m.scene.dispose();
    expect(ik.isDisposed).toBe(true);
    expect(look.isDisposed).toBe(true);
    expect(claimantCount()).toBe(before);
    m.engine.dispose();
  });
});
