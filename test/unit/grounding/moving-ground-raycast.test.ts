/**
 * MovingGroundRaycast: built once, it follows meshes that are moved, turned, scaled (non-uniformly and
 * mirrored) directly and through a parent, and finds exactly what a StaticGroundRaycast baked afresh at
 * each pose finds (itself checked against a brute force over every triangle in its own test). Disabled,
 * disposed and collapsed (zero-scale) meshes are not ground; edited vertices count after refresh().
 */
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { CreateTorusKnot } from "@babylonjs/core/Meshes/Builders/torusKnotBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import { Scene } from "@babylonjs/core/scene.js";
import "@babylonjs/core/Meshes/thinInstanceMesh.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { MorphTargetManager } from "@babylonjs/core/Morph/morphTargetManager.js";
import { BabylonGroundRaycast } from "../../../src/effectors/grounding/babylon-ground-raycast.js";
import { afterEach, describe, expect, it } from "vitest";
import { GroundingHit } from "../../../src/effectors/grounding/grounding-common.js";
import { MovingGroundRaycast } from "../../../src/effectors/grounding/moving-ground-raycast.js";
import { StaticGroundRaycast } from "../../../src/effectors/grounding/static-ground-raycast.js";
import { Random } from "../../helpers/random.js";

type V = { x: number; y: number; z: number };

const engines: NullEngine[] = [];
afterEach(() => {
  while (engines.length > 0) engines.pop()!.dispose();
});

function newScene(): Scene {
  const engine = new NullEngine();
  engines.push(engine);
  return new Scene(engine);
}

/** A ground, a box and a torus knot (hanging from a parent node): flat, convex and badly non-convex. */
function groundSet(scene: Scene): { meshes: Mesh[]; parent: TransformNode } {
  const ground = CreateGround("ground", { width: 4, height: 3, subdivisions: 6 }, scene);
  const box = CreateBox("box", { width: 1, height: 0.5, depth: 2 }, scene);
  const parent = new TransformNode("parent", scene);
  const knot = CreateTorusKnot("knot", { radius: 0.6, tube: 0.2, radialSegments: 32, tubularSegments: 8 }, scene);
  knot.parent = parent;
  return { meshes: [ground, box, knot], parent };
}

function randomRotation(rng: Random): Quaternion {
  return Quaternion.RotationAxis(
    new Vector3(rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1)).normalize(),
    rng.range(-Math.PI, Math.PI),
  );
}

/** Random scale per axis in [0.5, 2], one axis negated (a mirror) in a third of the poses. */
function randomScale(rng: Random): Vector3 {
  const s = new Vector3(rng.range(0.5, 2), rng.range(0.5, 2), rng.range(0.5, 2));
  if (rng.next() < 1 / 3) s.x = -s.x;
  return s;
}

function place(node: TransformNode, rng: Random, spread: number): void {
  node.position.set(rng.range(-spread, spread), rng.range(-spread, spread), rng.range(-spread, spread));
  node.rotationQuaternion = randomRotation(rng);
  node.scaling = randomScale(rng);
}

function unitVector(x: number, y: number, z: number): V {
  const l = Math.hypot(x, y, z);
  return { x: x / l, y: y / l, z: z / l };
}

describe("MovingGroundRaycast", () => {
  it("follows meshes moved, turned, scaled and mirrored (directly and through a parent) without re-baking: the same hits as a StaticGroundRaycast baked at each pose", () => {
    const scene = newScene();
    const { meshes, parent } = groundSet(scene);
    const moving = MovingGroundRaycast.fromMeshes(meshes);
    expect(moving.triangleCount).toBe(StaticGroundRaycast.fromMeshes(meshes).triangleCount);
    const rng = new Random(0x90f1);
    const a = new GroundingHit();
    const b = new GroundingHit();
    let hits = 0;
    let misses = 0;
    let worst = 0;
    for (let pose = 0; pose < 30; pose++) {
      for (const mesh of meshes.slice(0, 2)) place(mesh, rng, 1.5);
      place(parent, rng, 1.5);
      place(meshes[2]!, rng, 0.5);
      // every ray through the moving raycast first: it must see the new pose by itself (baking below
      // forces the world matrices)
      const rays = Array.from({ length: 400 }, (_, k) => ({
        o: { x: rng.range(-4, 4), y: rng.range(-1, 4), z: rng.range(-4, 4) },
        // mostly downward, some sideways and upward
        d:
          k % 4 === 0
            ? unitVector(rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1))
            : unitVector(rng.range(-0.4, 0.4), -1, rng.range(-0.4, 0.4)),
        max: rng.range(2, 9),
      }));
      const found = rays.map(({ o, d, max }) => {
        if (!moving.cast(o, d, max, a)) return null;
        return [a.distance, a.point.x, a.point.y, a.point.z, a.normal.x, a.normal.y, a.normal.z];
      });
      const baked = StaticGroundRaycast.fromMeshes(meshes);
      rays.forEach(({ o, d, max }, k) => {
        const hitB = baked.cast(o, d, max, b);
        const f = found[k]!;
        expect(f !== null, `pose ${pose} ray ${k}`).toBe(hitB);
        if (f === null) {
          misses++;
          return;
        }
        hits++;
        // the two carry the same float32 world matrix through different double-precision arithmetic
        const expected = [b.distance, b.point.x, b.point.y, b.point.z, b.normal.x, b.normal.y, b.normal.z];
        const err = Math.max(...f.map((v, i) => Math.abs(v - expected[i]!)));
        worst = Math.max(worst, err);
        expect(err, `pose ${pose} ray ${k}`).toBeLessThan(1e-9);
        // the normal faces the ray's origin
        expect(f[4]! * d.x + f[5]! * d.y + f[6]! * d.z).toBeLessThanOrEqual(0);
      });
    }
    expect(hits).toBeGreaterThan(1500);
    expect(misses).toBeGreaterThan(1000);
    console.log(
      `MovingGroundRaycast vs StaticGroundRaycast re-baked: ${hits} hits, ${misses} misses over 30 poses, worst difference ${worst.toExponential(2)}`,
    );
  });

  it("a ray straight down onto a lifted, turned platform lands on its top at the right height, frame after frame", () => {
    const scene = newScene();
    const deck = CreateBox("deck", { width: 2, height: 0.2, depth: 2 }, scene);
    const moving = MovingGroundRaycast.fromMeshes([deck]);
    const hit = new GroundingHit();
    for (let f = 0; f < 50; f++) {
      const y = 0.5 * Math.sin(f * 0.3);
      deck.position.set(0.1 * f, y, 0);
      deck.rotation.y = f * 0.2;
      expect(moving.cast({ x: 0.1 * f, y: 5, z: 0.3 }, { x: 0, y: -1, z: 0 }, 10, hit)).toBe(true);
      expect(hit.point.y).toBeCloseTo(y + 0.1, 6);
      expect(hit.distance).toBeCloseTo(5 - (y + 0.1), 6);
      expect(hit.normal.y).toBeCloseTo(1, 6);
    }
    // a ray with a NaN in it finds nothing (and the grid walk ends)
    expect(moving.cast({ x: Number.NaN, y: 5, z: 0 }, { x: 0, y: -1, z: 0 }, 10, hit)).toBe(false);
    expect(moving.cast({ x: 0, y: 5, z: 0 }, { x: Number.NaN, y: -1, z: 0 }, 10, hit)).toBe(false);
    expect(
      StaticGroundRaycast.fromMeshes([deck]).cast({ x: 0.2, y: Number.NaN, z: 0 }, { x: 0, y: -1, z: 0 }, 10, hit),
    ).toBe(false);
  });

  it("disabled, disposed and collapsed meshes are not ground; edited vertices count after refresh()", () => {
    const scene = newScene();
    const low = CreateGround("low", { width: 2, height: 2 }, scene);
    const high = CreateGround("high", { width: 2, height: 2, updatable: true }, scene);
    high.position.y = 1;
    const moving = MovingGroundRaycast.fromMeshes([low, high]);
    const hit = new GroundingHit();
    const down = { x: 0, y: -1, z: 0 };
    const o = { x: 0.2, y: 3, z: 0.1 };
    expect(moving.cast(o, down, 10, hit) && hit.point.y).toBeCloseTo(1, 9);
    high.setEnabled(false);
    expect(moving.cast(o, down, 10, hit) && hit.point.y).toBeCloseTo(0, 9);
    high.setEnabled(true);
    high.scaling.set(1, 1, 0);
    expect(moving.cast(o, down, 10, hit) && hit.point.y).toBeCloseTo(0, 9);
    high.scaling.set(1, 1, 1);
    // raise the high ground's vertices by 0.5 in its own space
    const positions = high.getVerticesData(VertexBuffer.PositionKind)!.slice();
    for (let i = 1; i < positions.length; i += 3) positions[i]! += 0.5;
    high.updateVerticesData(VertexBuffer.PositionKind, positions);
    expect(moving.cast(o, down, 10, hit) && hit.point.y).toBeCloseTo(1, 9);
    moving.refresh();
    expect(moving.cast(o, down, 10, hit) && hit.point.y).toBeCloseTo(1.5, 9);
    high.dispose();
    expect(moving.cast(o, down, 10, hit) && hit.point.y).toBeCloseTo(0, 9);
    low.dispose();
    expect(moving.cast(o, down, 10, hit)).toBe(false);
  });

  it("thin instances are ground each at its matrix, followed as they move (thinInstanceSetMatrixAt) without refresh: the same hits as StaticGroundRaycast baked at each pose and as exact Babylon picking", () => {
    const scene = newScene();
    // NullEngine reports no instanced arrays, and Babylon then refuses thin instances
    scene.getEngine().getCaps().instancedArrays = true;
    const tiles = CreateBox("tiles", { width: 1, height: 0.2, depth: 1 }, scene);
    tiles.material = new StandardMaterial("tiles", scene);
    tiles.thinInstanceEnablePicking = true;
    const rng = new Random(0x7111);
    const instance = (): Matrix =>
      Matrix.Compose(
        randomScale(rng),
        randomRotation(rng),
        new Vector3(rng.range(-2, 2), rng.range(-1, 1), rng.range(-2, 2)),
      );
    tiles.thinInstanceAdd([instance(), instance(), instance(), instance()]);
    const moving = MovingGroundRaycast.fromMeshes([tiles]);
    expect(moving.triangleCount).toBe(4 * 12);
    const picking = new BabylonGroundRaycast(scene, (m) => m === tiles);
    (picking as unknown as { ray: { epsilon: number } }).ray.epsilon = 0;
    const a = new GroundingHit();
    const b = new GroundingHit();
    const c = new GroundingHit();
    let hits = 0;
    for (let pose = 0; pose < 12; pose++) {
      // move one instance alone, or the mesh alone
      if (pose % 2 === 0) tiles.thinInstanceSetMatrixAt((pose / 2) % 4, instance());
      else place(tiles, rng, 0.5);
      // the moving raycast casts first: it must notice the change by itself (baking forces the world matrix)
      const rays = Array.from({ length: 300 }, () => ({
        o: { x: rng.range(-4, 4), y: rng.range(1, 4), z: rng.range(-4, 4) },
        d: unitVector(rng.range(-0.5, 0.5), -1, rng.range(-0.5, 0.5)),
      }));
      const found = rays.map(({ o, d }) => (moving.cast(o, d, 10, a) ? a.distance : null));
      const baked = StaticGroundRaycast.fromMeshes([tiles]);
      rays.forEach(({ o, d }, k) => {
        const hitB = baked.cast(o, d, 10, b);
        expect(found[k] !== null, `pose ${pose} ray ${k}`).toBe(hitB);
        expect(hitB, `pose ${pose} ray ${k} (picking)`).toBe(picking.cast(o, d, 10, c));
        if (!hitB) return;
        hits++;
        expect(Math.abs(found[k]! - b.distance)).toBeLessThan(1e-9);
        // Babylon picks in float32
        expect(Math.abs(b.distance - c.distance)).toBeLessThan(1e-5);
        expect(b.normal.x * c.normal.x + b.normal.y * c.normal.y + b.normal.z * c.normal.z).toBeGreaterThan(0.99999);
      });
      // catch up with the matrix the bake forced, so the next pose's change is the only one
      moving.cast(rays[0]!.o, rays[0]!.d, 10, a);
    }
    expect(hits).toBeGreaterThan(300);
    // an instance removed is no longer ground; refresh() rebuilds the entries
    tiles.thinInstanceCount = 1;
    moving.refresh();
    expect(moving.triangleCount).toBe(12);
  });

  it("meshes whose buffers do not describe their surface (skinned, morphed) are refused with their names, by both raycasts", () => {
    const scene = newScene();
    const plain = CreateGround("plain", { width: 2, height: 2 }, scene);
    const skinned = CreateGround("skinned", { width: 1, height: 1 }, scene);
    skinned.skeleton = new Skeleton("s", "s", scene);
    const morphed = CreateGround("morphed", { width: 1, height: 1 }, scene);
    morphed.morphTargetManager = new MorphTargetManager(scene);
    for (const make of [
      (m: Mesh[]) => MovingGroundRaycast.fromMeshes(m),
      (m: Mesh[]) => StaticGroundRaycast.fromMeshes(m),
    ]) {
      expect(() => make([plain])).not.toThrow();
      expect(() => make([plain, skinned, morphed])).toThrow(/"skinned" is skinned[\s\S]*"morphed" has morph targets/);
    }
  });
});
