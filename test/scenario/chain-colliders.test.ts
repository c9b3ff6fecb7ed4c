/**
 * Collisions on a chain, Babylon side: a 30-bone tail built in code (plain Bones, skinned to a cylinder) hangs
 * from the hips of a body whose spine carries a capsule BoneCollider; CCDIK and FABRIK with sub-steps chase a
 * target swept around the body for 200 frames while the spine sways, and no joint or segment of the tail ever
 * enters the capsule. The pose is measured as written (the bones' local transforms composed in doubles).
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { CCDIK, FABRIK } from "../../src/babylon/chain-ik.js";
import { Vec3 } from "../../src/math/vec3.js";
import { FBBIKError } from "../../src/solver/errors.js";

const COUNT = 30;
const SEGMENT = 0.05;
const LENGTH = SEGMENT * (COUNT - 1);
const RADIUS = 0.3;
const TAIL_ROOT = new Vector3(0, 0.2, -0.36);

interface Body {
  engine: NullEngine;
  scene: Scene;
  skeleton: Skeleton;
  hips: Bone;
  spine: Bone;
  tail: Bone[];
  mesh: Mesh;
}

const open: Body[] = [];
afterEach(() => {
  while (open.length > 0) {
    const b = open.pop()!;
    b.scene.dispose();
    b.engine.dispose();
  }
});

/** Hips at the origin, a spine bone up from them, and a 30-bone tail from behind the hips pointing back (−z). */
function buildBody(rightHanded = false): Body {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  scene.useRightHandedSystem = rightHanded;
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  const skeleton = new Skeleton("body", "body", scene);
  const hips = new Bone("hips", skeleton, null, Matrix.Identity());
  const spine = new Bone("spine", skeleton, hips, Matrix.Identity());
  const tail: Bone[] = [];
  for (let i = 0; i < COUNT; i++) {
    const local =
      i === 0
        ? Matrix.Compose(Vector3.One(), Quaternion.RotationAxis(Vector3.Right(), -Math.PI / 2), TAIL_ROOT)
        : Matrix.Compose(Vector3.One(), Quaternion.RotationAxis(Vector3.Forward(), 0.02), new Vector3(0, SEGMENT, 0));
    tail.push(new Bone(`tail${i}`, skeleton, i === 0 ? hips : tail[i - 1]!, local));
  }
  const height = LENGTH;
  const mesh = CreateCylinder("tail", { height, diameter: 0.02, tessellation: 8, subdivisions: COUNT }, scene);
  mesh.bakeTransformIntoVertices(Matrix.Translation(0, height / 2, 0));
  const positions = mesh.getVerticesData(VertexBuffer.PositionKind)!;
  const indices: number[] = [];
  const weights: number[] = [];
  for (let v = 0; v < positions.length / 3; v++) {
    indices.push(2 + Math.min(COUNT - 1, Math.max(0, Math.floor(positions[v * 3 + 1]! / SEGMENT))), 0, 0, 0);
    weights.push(1, 0, 0, 0);
  }
  mesh.bakeTransformIntoVertices(
    Matrix.RotationX(-Math.PI / 2).multiply(Matrix.Translation(TAIL_ROOT.x, TAIL_ROOT.y, TAIL_ROOT.z)),
  );
  mesh.setVerticesData(VertexBuffer.MatricesIndicesKind, indices, false);
  mesh.setVerticesData(VertexBuffer.MatricesWeightsKind, weights, false);
  mesh.skeleton = skeleton;
  const body = { engine, scene, skeleton, hips, spine, tail, mesh };
  open.push(body);
  return body;
}

/** Component-space (mesh-space) transforms of the bones as written, composed in doubles from their locals. */
function pose(b: Body): Map<Bone, { p: Vector3; q: Quaternion }> {
  const out = new Map<Bone, { p: Vector3; q: Quaternion }>();
  for (const bone of b.skeleton.bones) {
    const parent = bone.getParent();
    const lp = bone.position.clone();
    const lq = bone.rotationQuaternion.clone();
    if (parent === null) {
      out.set(bone, { p: lp, q: lq });
      continue;
    }
    const w = out.get(parent)!;
    out.set(bone, { p: w.p.add(lp.applyRotationQuaternion(w.q)), q: w.q.multiply(lq) });
  }
  return out;
}

/** Closest distance between segments p0–p1 and q0–q1 (clamped closest points, Ericson). */
function segmentDistance(p0: Vector3, p1: Vector3, q0: Vector3, q1: Vector3): number {
  const d1 = p1.subtract(p0);
  const d2 = q1.subtract(q0);
  const r = p0.subtract(q0);
  const a = d1.lengthSquared();
  const e = d2.lengthSquared();
  const f = Vector3.Dot(d2, r);
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  let s = 0;
  let t = 0;
  if (a <= 0) t = e > 0 ? clamp(f / e) : 0;
  else {
    const c = Vector3.Dot(d1, r);
    if (e <= 0) s = clamp(-c / a);
    else {
      const bb = Vector3.Dot(d1, d2);
      const denom = a * e - bb * bb;
      s = denom > 0 ? clamp((bb * f - c * e) / denom) : 0;
      t = (bb * s + f) / e;
      if (t < 0) {
        t = 0;
        s = clamp(-c / a);
      } else if (t > 1) {
        t = 1;
        s = clamp((bb - c) / a);
      }
    }
  }
  return Vector3.Distance(p0.add(d1.scale(s)), q0.add(d2.scale(t)));
}

for (const [name, Kind] of [
  ["CCDIK", CCDIK],
  ["FABRIK", FABRIK],
] as const) {
  describe(`${name} with a body capsule BoneCollider`, () => {
    for (const rightHanded of [false, true]) {
      it(`a 30-bone tail swept around the body for 200 frames never enters the capsule (${rightHanded ? "RH" : "LH"})`, () => {
        const b = buildBody(rightHanded);
        const capsule = BoneCollider.capsule(b.spine, new Vector3(0, -0.2, 0), new Vector3(0, 1.2, 0), RADIUS);
        const target = new TransformNode("target", b.scene);
        const ik = Kind.create(b.scene, b.tail, { target, colliders: [capsule], maxIterations: 20 });
        ik.solver.subSteps = 4;
        let worst = Infinity;
        let moved = 0;
        const before = pose(b);
        for (let f = 0; f < 200; f++) {
          // the spine sways (the capsule moves: the sub-steps interpolate it), the target circles the body
          b.spine.setRotationQuaternion(Quaternion.RotationAxis(Vector3.Forward(), 0.3 * Math.sin(f * 0.05)));
          const a = -Math.PI / 2 + f * ((4 * Math.PI) / 200);
          target.position.set(0.9 * Math.cos(a), 0.5 + 0.3 * Math.sin(f * 0.07), 0.9 * Math.sin(a));
          b.scene.render();
          const w = pose(b);
          const s = w.get(b.spine)!;
          const c0 = s.p.add(capsule.start.applyRotationQuaternion(s.q));
          const c1 = s.p.add(capsule.end.applyRotationQuaternion(s.q));
          for (let i = 0; i < COUNT; i++) {
            const p = w.get(b.tail[i]!)!.p;
            worst = Math.min(worst, segmentDistance(p, p, c0, c1));
            if (i > 0) worst = Math.min(worst, segmentDistance(w.get(b.tail[i - 1]!)!.p, p, c0, c1));
          }
          moved = Math.max(moved, Vector3.Distance(w.get(b.tail[COUNT - 1]!)!.p, before.get(b.tail[COUNT - 1]!)!.p));
        }
        expect(ik.warningsRaised).toEqual([]);
        // the tail did swing round (its tip left its rest place by more than the body's width)
        expect(moved).toBeGreaterThan(2 * RADIUS);
        expect(worst).toBeGreaterThanOrEqual(RADIUS - 1e-6 * LENGTH);
      });
    }

    it("without the collider the same sweep goes through the body", () => {
      const b = buildBody();
      const target = new TransformNode("target", b.scene);
      Kind.create(b.scene, b.tail, { target, maxIterations: 20 });
      let worst = Infinity;
      for (let f = 0; f < 200; f += 10) {
        const a = -Math.PI / 2 + f * ((4 * Math.PI) / 200);
        target.position.set(0.9 * Math.cos(a), 0.5, 0.9 * Math.sin(a));
        b.scene.render();
        const w = pose(b);
        for (const bone of b.tail) {
          const p = w.get(bone)!.p;
          worst = Math.min(worst, segmentDistance(p, p, new Vector3(0, -0.2, 0), new Vector3(0, 1.2, 0)));
        }
      }
      expect(worst).toBeLessThan(RADIUS);
    });

    it("a collider follows its bone's position, rotation and scale; a disabled one sits out", () => {
      const b = buildBody();
      const capsule = BoneCollider.capsule(b.spine, new Vector3(0, 0, 0), new Vector3(0, 1, 0), 0.1);
      const ik = Kind.create(b.scene, b.tail, { colliders: [capsule] });
      b.hips.scaling = new Vector3(2, 2, 2);
      b.spine.position = new Vector3(0.5, 0, 0);
      b.spine.setRotationQuaternion(Quaternion.RotationAxis(Vector3.Forward(), Math.PI / 2));
      b.scene.render();
      ik.colliderSet.update(ik.rig);
      const start = new Vec3();
      const end = new Vec3();
      const r = ik.colliderSet.inner.getPlaced(0, 1, start, end);
      // hips ×2: the spine at (1, 0, 0), its +y turned to −x, the capsule 2 long with radius 0.2
      expect(r).toBeCloseTo(0.2, 12);
      expect([start.x, start.y, start.z].map((x) => +x.toFixed(9))).toEqual([1, 0, 0]);
      expect([end.x, end.y, end.z].map((x) => +x.toFixed(9))).toEqual([-1, 0, 0]);
      capsule.enabled = false;
      ik.colliderSet.update(ik.rig);
      expect(ik.colliderSet.inner.getPlaced(0, 1, start, end)).toBeNaN();
    });

    it("addCollider takes a bone of the rig and refuses one outside it, naming it", () => {
      const b = buildBody();
      const ik = Kind.create(b.scene, b.tail.slice(10), {});
      expect(() => ik.addCollider(BoneCollider.sphere(b.spine, 0.1))).toThrow(FBBIKError);
      expect(() => ik.addCollider(BoneCollider.sphere(b.spine, 0.1))).toThrow(/"spine"/);
      ik.addCollider(BoneCollider.sphere(b.tail[3]!, 0.1));
      expect(ik.colliderSet.colliders.length).toBe(1);
      expect(ik.solver.colliders).toBe(ik.colliderSet);
      expect(ik.removeCollider(ik.colliderSet.colliders[0]!)).toBe(true);
      expect(ik.solver.colliders).toBeNull();
    });
  });
}
