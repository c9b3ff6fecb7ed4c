/**
 * Colliders on TransformNodes (a ball mesh in the world, not a bone): a 24-bone tail built in code chases a
 * target swept around a sphere mesh, still and then orbiting, and no joint or segment enters the ball, in
 * left- and right-handed scenes, with the ball mesh (its geometry and scaling) and the whole scene scaled ×0.01
 * and ×100. A ball fast enough to jump across the tail in one frame is interpolated by the sub-steps; a
 * collider follows its node's position, rotation, scale and mirror; a disposed node is ignored, warned once.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { CCDIK, FABRIK } from "../../src/babylon/chain-ik.js";
import { Vec3 } from "../../src/math/vec3.js";
import { distanceToSegment } from "../helpers/docs-rigs.js";
import { type TailRig, buildTail } from "../helpers/tail-rig.js";

const COUNT = 24;
const SEGMENT = 0.1;
/** The ball's world radius at scale 1. */
const RADIUS = 0.25;

function tail(scale: number, rightHanded: boolean, curl = 0.02): TailRig {
  const rig = buildTail({
    count: COUNT,
    segment: SEGMENT,
    curl,
    rightHanded,
    scale,
    position: new Vector3(0.3, -0.2, 0.5).scale(scale),
    highPrecision: true,
  });
  onTestFinished(() => rig.dispose());
  return rig;
}

/** The bones' world positions as written (the skeleton's matrices composed with the tail mesh's). */
function joints(rig: TailRig): Vector3[] {
  rig.skeleton.computeAbsoluteMatrices(true);
  const w = rig.mesh.computeWorldMatrix(true);
  return rig.bones.map((b: Bone) => b.getAbsoluteMatrix().multiply(w).getTranslation());
}

/** The smallest distance from the ball's centre to the tail's joints and segments. */
function clearance(rig: TailRig, centre: Vector3): number {
  const p = joints(rig);
  let least = Infinity;
  for (let i = 0; i < p.length; i++) {
    least = Math.min(least, Vector3.Distance(p[i]!, centre));
    if (i > 0) least = Math.min(least, distanceToSegment(centre, p[i - 1]!, p[i]!));
  }
  return least;
}

/** A sphere mesh of world radius `radius`, its geometry built ×1/`ballScale` and its scaling ×`ballScale`. */
function ball(rig: TailRig, radius: number, ballScale: number, parent: TransformNode): Mesh {
  const m = CreateSphere("ball", { diameter: (2 * radius) / ballScale, segments: 12 }, rig.scene);
  m.scaling.setAll(ballScale);
  m.parent = parent;
  return m;
}

interface Sweep {
  /** Smallest clearance over the frames. */
  worst: number;
  /** How far the tip travelled from its rest place at most. */
  moved: number;
  warnings: number;
}

/**
 * 240 frames: the target circles the tail's axis through the ball's side; the ball (on a pivot over the tail's
 * root) holds still for 120 frames, then orbits the axis and bobs.
 */
function sweep(
  rig: TailRig,
  kind: typeof CCDIK | typeof FABRIK,
  scale: number,
  ballScale: number,
  enabled = true,
): Sweep {
  const root = rig.mesh.position.clone();
  const pivot = new TransformNode("pivot", rig.scene);
  pivot.position = root.add(new Vector3(0, 1.2 * scale, 0));
  const b = ball(rig, RADIUS * scale, ballScale, pivot);
  b.position.set(0.45 * scale, 0, 0);
  const collider = BoneCollider.sphere(b, (RADIUS * scale) / ballScale);
  collider.enabled = enabled;
  const target = new TransformNode("target", rig.scene);
  const ik = kind.create(rig.scene, rig.bones, { target, colliders: [collider], maxIterations: 20 });
  ik.solver.subSteps = 4;
  const rest = joints(rig)[COUNT - 1]!;
  let worst = Infinity;
  let moved = 0;
  for (let f = 0; f < 240; f++) {
    if (f >= 120) {
      pivot.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.03 * (f - 120));
      pivot.position.y = root.y + (1.2 + 0.15 * Math.sin(0.05 * f)) * scale;
    }
    const a = f * ((6 * Math.PI) / 240);
    target.position = root.add(
      new Vector3(0.9 * Math.cos(a), 1.3 + 0.2 * Math.sin(0.07 * f), 0.9 * Math.sin(a)).scale(scale),
    );
    rig.scene.render();
    worst = Math.min(worst, clearance(rig, b.getAbsolutePosition().clone()));
    moved = Math.max(moved, Vector3.Distance(joints(rig)[COUNT - 1]!, rest));
  }
  return { worst, moved, warnings: ik.warningsRaised.length };
}

describe("a tail swept around a ball mesh (a BoneCollider on a node)", () => {
  const cases = [
    { scale: 1, ballScale: 1 },
    { scale: 1, ballScale: 0.01 },
    { scale: 1, ballScale: 100 },
    { scale: 0.01, ballScale: 0.01 },
    { scale: 100, ballScale: 100 },
  ];
  for (const rightHanded of [false, true]) {
    for (const { scale, ballScale } of cases) {
      it(`CCDIK never enters the ball: scene ×${scale}, ball mesh ×${ballScale} (${rightHanded ? "RH" : "LH"})`, () => {
        const rig = tail(scale, rightHanded);
        const s = sweep(rig, CCDIK, scale, ballScale);
        if (process.env.FBBIK_REPORT) {
          console.log(
            `node collider ×${scale}/${ballScale}: worst clearance ${(s.worst / (RADIUS * scale)).toFixed(9)} R`,
          );
        }
        expect(s.warnings).toBe(0);
        // the tail did swing round the ball
        expect(s.moved).toBeGreaterThan(2 * RADIUS * scale);
        expect(s.worst).toBeGreaterThanOrEqual(RADIUS * scale * (1 - 1e-6));
        // and touched it: the collider was what kept it out
        expect(s.worst).toBeLessThan(RADIUS * scale * 1.01);
      });
    }
  }

  it("FABRIK never enters the ball either", () => {
    const s = sweep(tail(1, false), FABRIK, 1, 1);
    expect(s.worst).toBeGreaterThanOrEqual(RADIUS * (1 - 1e-6));
    expect(s.worst).toBeLessThan(RADIUS * 1.01);
  });

  it("with the collider disabled the same sweep goes through the ball", () => {
    const s = sweep(tail(1, false), CCDIK, 1, 1, false);
    expect(s.worst).toBeLessThan(0.5 * RADIUS);
  });
});

describe("a ball mesh jumping across a straight tail in one frame", () => {
  /** The mean x of the joints beside the ball after it jumped from x = −0.2 to x = +0.1 (its radius 0.15). */
  function sideAfterJump(subSteps: number): number {
    const rig = tail(1, false, 0);
    const root = rig.mesh.position.clone();
    const target = new TransformNode("target", rig.scene);
    target.position = root.add(new Vector3(0, SEGMENT * (COUNT - 1), 0));
    const holder = new TransformNode("holder", rig.scene);
    const b = ball(rig, 0.15, 1, holder);
    b.position = root.add(new Vector3(-0.2, 1, 0));
    const ik = CCDIK.create(rig.scene, rig.bones, { target, colliders: [BoneCollider.sphere(b, 0.15)] });
    ik.solver.subSteps = subSteps;
    rig.scene.render();
    b.position.x = root.x + 0.1;
    rig.scene.render();
    const near = joints(rig).filter((p) => Math.abs(p.y - root.y - 1) < 0.2);
    expect(near.length).toBeGreaterThan(2);
    expect(clearance(rig, b.getAbsolutePosition().clone())).toBeGreaterThanOrEqual(0.15 * (1 - 1e-6));
    return near.reduce((sum, p) => sum + p.x - root.x, 0) / near.length;
  }

  it("with sub-steps the ball pushes the tail ahead of it; in one step it passes through", () => {
    // one step places the ball only where it ends: the joints are pushed back the way it came
    expect(sideAfterJump(1)).toBeLessThan(0);
    // four sub-steps interpolate the node's place between the frames, as they do a bone's
    expect(sideAfterJump(4)).toBeGreaterThan(0);
  });
});

describe("BoneCollider on a node", () => {
  for (const mirror of [false, true]) {
    it(`follows the node's position, rotation and scale${mirror ? " (a mirrored node)" : ""}`, () => {
      const rig = tail(2, false);
      const parent = new TransformNode("parent", rig.scene);
      parent.position.set(1, 2, 3);
      parent.rotationQuaternion = Quaternion.RotationAxis(new Vector3(1, 2, 0.5).normalize(), 0.7);
      parent.scaling.set(mirror ? -3 : 3, 3, 3);
      const node = new TransformNode("node", rig.scene);
      node.parent = parent;
      node.position.set(0.1, -0.2, 0.3);
      node.rotationQuaternion = Quaternion.RotationAxis(new Vector3(0, 0, 1), 0.4);
      const collider = BoneCollider.capsule(node, new Vector3(0.2, -1, 0.1), new Vector3(-0.1, 1, 0.3), 0.5);
      const ik = CCDIK.create(rig.scene, rig.bones, { colliders: [collider] });
      rig.scene.render();
      ik.colliderSet.update(ik.rig);
      const start = new Vec3();
      const end = new Vec3();
      const r = ik.colliderSet.inner.getPlaced(0, 1, start, end);
      // expected: the local ends through the node's world matrix, then into the tail mesh's space (×2)
      const toMesh = Matrix.Invert(rig.mesh.computeWorldMatrix(true));
      const w = node.computeWorldMatrix(true);
      const a = Vector3.TransformCoordinates(Vector3.TransformCoordinates(collider.start, w), toMesh);
      const b = Vector3.TransformCoordinates(Vector3.TransformCoordinates(collider.end, w), toMesh);
      expect(r).toBeCloseTo((0.5 * 3) / 2, 12);
      expect(Vector3.Distance(new Vector3(start.x, start.y, start.z), a)).toBeLessThan(1e-12);
      expect(Vector3.Distance(new Vector3(end.x, end.y, end.z), b)).toBeLessThan(1e-12);
    });
  }

  it("a disposed node: the collider is ignored, warned once, and nothing throws", () => {
    const rig = tail(1, false);
    const root = rig.mesh.position.clone();
    const holder = new TransformNode("holder", rig.scene);
    const b = ball(rig, RADIUS, 1, holder);
    b.position = root.add(new Vector3(0.45, 1.2, 0));
    const target = new TransformNode("target", rig.scene);
    // the target in the ball: the collider keeps the tip on its surface
    target.position = root.add(new Vector3(0.45, 1.2, 0));
    const ik = CCDIK.create(rig.scene, rig.bones, { target, colliders: [BoneCollider.sphere(b, RADIUS)] });
    ik.solver.subSteps = 4;
    rig.scene.render();
    const centre = b.getAbsolutePosition().clone();
    expect(clearance(rig, centre)).toBeGreaterThanOrEqual(RADIUS * (1 - 1e-6));
    b.dispose();
    for (let f = 0; f < 5; f++) expect(() => rig.scene.render()).not.toThrow();
    expect(ik.warningsRaised.map((w) => w.cause)).toEqual(["collider:disposed:ball"]);
    expect(ik.warningsRaised[0]!.message).toMatch(/disposed/);
    // ignored: the tip reaches the target at the ball's centre
    expect(clearance(rig, centre)).toBeLessThan(0.5 * RADIUS);
  });
});
