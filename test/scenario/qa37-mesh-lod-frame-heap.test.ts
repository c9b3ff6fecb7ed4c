import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { height, worldPos } from "../helpers/scene-probes.js";

/**
 * A character with Babylon's mesh LOD (a lower level at 8 m, none at 20 m) under IKLevelOfDetail allocates nothing a
 * frame once warm, drawn by its lower level (the controller reads Babylon's levels and places it) and drawn by none
 * (Off: it reads the levels each frame). In a fresh module graph (vitest.config.ts, HEAP).
 */
it("IKLevelOfDetail beside Babylon's mesh LOD: 0 B a frame, drawn by a lower level and by none", async () => {
  const m = await loadModel("UAL", { clips: (c) => c === "Idle_Loop" });
  const scene = m.scene;
  const h = height(m);
  for (const mesh of scene.meshes.filter((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0) as Mesh[]) {
    mesh.addLODLevel(8, mesh.clone(`${mesh.name}_lod`, null, true));
    mesh.addLODLevel(20, null);
  }
  m.container.animationGroups[0]!.start(true);
  const ik = FullBodyBipedIK.create(scene, m.skeleton);
  const lod = IKLevelOfDetail.for(scene);
  lod.budgetMs = Number.POSITIVE_INFINITY;
  const hand = ik.solver.leftHandEffector;
  hand.positionWeight = 1;
  const reach = worldPos(ik.references.leftHand).add(new Vector3(0.1 * h, 0.3 * h, 0.1 * h));
  // the target moves, the camera stands (a moving camera's view matrix allocates in Babylon: LookAtLHToRef)
  const targets = Array.from({ length: 16 }, (_, i) =>
    reach.add(new Vector3(0, Math.sin(i), Math.cos(i)).scale(0.02 * h)),
  );
  const camera = scene.activeCamera!;
  for (const [distance, level] of [
    [12, IKLevel.Full],
    [30, IKLevel.Off],
  ] as const) {
    camera.position.set(0, 1, -distance);
    const frame = (f: number): void => {
      hand.position.copyFrom(targets[f % 16]!);
      renderWithoutDrawing(scene);
    };
    for (let f = 0; f < 200; f++) frame(f);
    expect(lod.levelOf(ik)).toBe(level);
    const least = bytesPerFrame(frame, 10_000);
    console.log(`mesh LOD at ${distance} m: ${least.toFixed(2)} B a frame`);
    if (least >= 1) console.log(await whereFramesAllocate(frame));
    expect(least).toBeLessThan(1);
  }
  m.dispose();
});
