/**
 * Ground whose vertices arrive after it was baked: `CreateGroundFromHeightMap` with an image URL returns an empty
 * mesh and fills it when the image has loaded. `StaticGroundRaycast` and `MovingGroundRaycast` made in between
 * take the triangles when they arrive, without a `refresh()`, and the grounder on them puts the feet on that ground.
 */
import "@babylonjs/core/Materials/standardMaterial.js";
import { CreateGroundVertexData } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { afterEach, describe, expect, it } from "vitest";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { GroundingHit, type GroundingRaycast } from "../../src/effectors/grounding/grounding-common.js";
import { MovingGroundRaycast } from "../../src/effectors/grounding/moving-ground-raycast.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { type LoadedModel, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { idlingUal } from "../helpers/idling-ual.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** What CreateGroundFromHeightMap does once its image has loaded: a flat 10 × 10 ground, here raised to `y`. */
function imageLoaded(ground: Mesh, y: number): void {
  CreateGroundVertexData({ width: 10, height: 10, subdivisions: 4 }).applyToMesh(ground, true);
  ground.position.y = y;
}

const down = { x: 0, y: -1, z: 0 };
const probes: [string, (g: Mesh) => GroundingRaycast][] = [
  ["StaticGroundRaycast", (g) => StaticGroundRaycast.fromMeshes([g]).raycast],
  ["MovingGroundRaycast", (g) => MovingGroundRaycast.fromMeshes([g]).raycast],
];

describe.skipIf(!modelAvailable("UAL"))("ground baked before its vertices arrive (a heightmap loading)", () => {
  for (const [name, make] of probes) {
    it(`${name}: rays and sphere casts find the ground once it has its vertices, with no refresh()`, async () => {
      const m = await loadModel("UAL");
      open.push(m);
      const ground = new Mesh("terrain", m.scene); // CreateGroundFromHeightMap's mesh before the image loads
      const raycast = make(ground);
      const hit = new GroundingHit();
      expect(raycast({ x: 1, y: 5, z: 1 }, down, 10, hit)).toBe(false);
      imageLoaded(ground, 0.3);
      // measured before: no hit from either ray or sphere cast (the empty mesh stayed baked)
      expect(raycast({ x: 1, y: 5, z: 1 }, down, 10, hit)).toBe(true);
      expect(hit.point.y).toBeCloseTo(0.3, 6);
      expect(raycast.sphereCast!({ x: -1, y: 5, z: 2 }, down, 0.1, 10, hit)).toBe(true);
      expect(hit.point.y).toBeCloseTo(0.3, 6);
    });
  }

  it("GrounderFBBIK on a StaticGroundRaycast made before the ground loaded puts the feet on it", async () => {
    const { m, ik } = await idlingUal(open);
    const h = height(m);
    const ground = new Mesh("terrain", m.scene);
    const grounder = GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast });
    m.scene.render();
    // the image arrives: the ground is 0.1 h above the root, which the animation stands on
    imageLoaded(ground, 0.1 * h);
    const animated = [0, 0];
    const feet = [ik.references.leftFoot, ik.references.rightFoot];
    m.scene.onAfterAnimationsObservable.add(() => {
      for (let i = 0; i < 2; i++) animated[i] = worldPos(feet[i]!).y;
    });
    for (let f = 0; f < 120; f++) m.scene.render();
    const raised = feet.map((b, i) => (worldPos(b).y - animated[i]!) / h);
    report("feet raised by the ground that loaded late (× h, the ground 0.1 h up)", ...raised);
    // measured: 0.1000 h both (0 before: the grounder saw no ground)
    for (const r of raised) expect(r).toBeCloseTo(0.1, 3);
    grounder.dispose();
  });
});
