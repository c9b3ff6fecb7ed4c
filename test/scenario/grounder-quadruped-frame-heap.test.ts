/**
 * GrounderQuadruped's frame allocates nothing once warm: a four-legged creature built in code (FABRIK hind legs, CCDIK
 * forelegs, its head kept, its root pitched) on a deck that rises, sinks and tilts every frame. In a fresh module
 * graph (vitest.config.ts, HEAP): garbage left by earlier files would be counted as this one's.
 */
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { Scene } from "@babylonjs/core/scene.js";
import { expect, it } from "vitest";
import { CCDIK, FABRIK } from "../../src/babylon/chain-ik.js";
import { GrounderQuadruped } from "../../src/effectors/grounding/grounder-quadruped.js";
import { MovingGroundRaycast } from "../../src/effectors/grounding/moving-ground-raycast.js";
import { movingDeckBytes } from "../helpers/moving-deck.js";
import { buildQuadruped } from "../helpers/quadruped-rig.js";

it("GrounderQuadruped: a four-legged creature on a rising, tilting deck with a bump: 0 B a frame", async () => {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 2, -5), scene);
  const q = buildQuadruped(scene);
  const hind = q.hindLegs.map((bones) => FABRIK.create(scene, bones));
  const fore = q.foreLegs.map((bones) => CCDIK.create(scene, bones));
  for (const leg of [...hind, ...fore]) leg.solver.ikPositionWeight = 0;
  // a deck under the creature, moved every frame, with a bump under a forefoot
  const deck = CreateGround("deck", { width: 8, height: 8 }, scene);
  deck.rotationQuaternion = new Quaternion();
  const bump = CreateBox("bump", { size: 0.2 }, scene);
  bump.parent = deck;
  bump.position.set(-0.12, -0.06, 0.4);
  const raycast = MovingGroundRaycast.fromMeshes([deck, bump]).raycast;
  GrounderQuadruped.create(hind, q.pelvis, fore, q.chest, {
    raycast,
    root: q.root,
    head: q.head,
    rootRotationWeight: 1,
    maintainHeadRotationWeight: 1,
  });
  scene.render();
  const least = await movingDeckBytes(
    scene,
    deck,
    "grounder-quadruped",
    Vector3.Zero(),
    0.05,
    new Vector3(1, 0, 0.3),
    0.2,
  );
  expect(least).toBeLessThan(1);
  scene.dispose();
  engine.dispose();
});
