/**
 * GrounderIK's frame allocates nothing once warm: a Mannequin on two LimbIK legs and a six-legged creature on FABRIK
 * and CCDIK legs (its root turned to the feet's plane) over a deck that rises, sinks and tilts every frame. In a
 * fresh module graph (vitest.config.ts, HEAP): garbage left by earlier files would be counted as this one's.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { expect, it } from "vitest";
import { CCDIK, FABRIK } from "../../src/babylon/chain-ik.js";
import { GrounderIK } from "../../src/effectors/grounding/grounder-ik.js";
import { MovingGroundRaycast } from "../../src/effectors/grounding/moving-ground-raycast.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { movingDeckBytes, weightlessLegsBesideDeck } from "../helpers/moving-deck.js";
import { buildSpider } from "../helpers/spider-rig.js";

it("GrounderIK: a Mannequin on two LimbIK legs and a spider on FABRIK and CCDIK legs on a rising, tilting deck: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const scene = m.scene;
  // a deck under both characters, moved every frame
  const { legs, deck, h, pelvis } = weightlessLegsBesideDeck(m);
  const bump = CreateBox("bump", { size: 0.2 * h }, scene);
  bump.parent = deck;
  bump.position.set(0.1 * h, -0.05 * h, 0);
  const raycast = MovingGroundRaycast.fromMeshes([deck, bump]).raycast;
  GrounderIK.create(legs, pelvis, { raycast });
  const spider = buildSpider(scene, 6, new Vector3(2 * h, 0, 0), h);
  const spiderLegs = spider.legs.map((bones, i) =>
    i % 2 === 0 ? FABRIK.create(scene, bones) : CCDIK.create(scene, bones),
  );
  for (const leg of spiderLegs) leg.solver.ikPositionWeight = 0;
  GrounderIK.create(spiderLegs, spider.body, { raycast, root: spider.root, characterRoot: spider.root });
  scene.render();
  const least = await movingDeckBytes(
    scene,
    deck,
    "grounder-ik",
    new Vector3(h, 0, 0),
    0.05 * h,
    new Vector3(1, 0, 1),
    0.1,
  );
  expect(least).toBeLessThan(1);
  m.dispose();
});
