/**
 * GrounderQuadruped: a four-legged creature built in code (FABRIK hind legs, CCDIK forelegs), left- and
 * right-handed, at scale 1 and 3, standing over a step, on slopes up and down, over a bump and walking (its root
 * moved by code) up a step: every foot on its ground, the body pitched toward the slope within its limits, the head's
 * world rotation kept, the pelvis's and the chest's moves clamped at their maxima, weight 0 the legs' own result bit
 * for bit.
 */
import "@babylonjs/core/Materials/standardMaterial.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Node } from "@babylonjs/core/node.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it } from "vitest";
import { CCDIK, FABRIK } from "../../src/babylon/chain-ik.js";
import type { GrounderLeg } from "../../src/effectors/grounding/grounder-leg-set.js";
import { GrounderQuadruped } from "../../src/effectors/grounding/grounder-quadruped.js";
import type { GrounderQuadrupedOptions } from "../../src/effectors/grounding/grounder-quadruped-options.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";
import { buildQuadruped } from "../helpers/quadruped-rig.js";
import { codeScene } from "../helpers/spider-rig.js";

const open: { dispose(): void }[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

const ground = (mesh: { name: string }) => mesh.name.startsWith("ground");

/** Degrees between two rotations. */
function angleBetween(a: Quaternion, b: Quaternion): number {
  const d = Math.min(1, Math.abs(Quaternion.Dot(a, b)));
  return (2 * Math.acos(d) * 180) / Math.PI;
}

/** The head's world rotation, its world matrix computed from the root down. */
function headRotation(q: ReturnType<typeof buildQuadruped>): Quaternion {
  const chain: TransformNode[] = [];
  for (let n: Node | null = q.head.getTransformNode(); n !== null; n = n.parent) chain.unshift(n as TransformNode);
  for (const n of chain) n.computeWorldMatrix(true);
  const r = new Quaternion();
  chain[chain.length - 1]!.getWorldMatrix().decompose(undefined, r);
  return r;
}

/** Every bone's local position and rotation, for bit-for-bit comparisons. */
function pose(bones: readonly Bone[]): number[] {
  return bones.flatMap((b) => {
    const n = b.getTransformNode()!;
    return [...n.position.asArray(), ...n.rotationQuaternion!.asArray()];
  });
}

describe.each([
  [false, 1],
  [true, 1],
  [false, 3],
  [true, 3],
])("GrounderQuadruped on a four-legged creature (right-handed: %s, scale %d)", (rightHanded, scale) => {
  function world(options: GrounderQuadrupedOptions = {}, withGrounder = true) {
    const scene = codeScene(rightHanded);
    open.push({ dispose: () => scene.disposeAll() });
    const q = buildQuadruped(scene, Vector3.Zero(), scale);
    const hind: GrounderLeg[] = q.hindLegs.map((bones) => FABRIK.create(scene, bones, { maxIterations: 16 }));
    const fore: GrounderLeg[] = q.foreLegs.map((bones) => CCDIK.create(scene, bones, { maxIterations: 40 }));
    for (const leg of [...hind, ...fore]) leg.solver.ikPositionWeight = 0;
    scene.render();
    const rest = {
      tips: [...q.hindLegs, ...q.foreLegs].map((b) => worldPos(b[3]!)),
      pelvis: worldPos(q.pelvis),
      chest: worldPos(q.chest),
      head: headRotation(q),
    };
    const grounder = withGrounder
      ? GrounderQuadruped.create(hind, q.pelvis, fore, q.chest, {
          predicate: ground,
          root: q.root,
          head: q.head,
          footRadius: 0.02 * scale,
          rootRotationWeight: 1,
          maintainHeadRotationWeight: 1,
          ...options,
        })
      : null;
    return { scene, q, hind, fore, rest, grounder: grounder! };
  }

  /** The worst gap of the four toe tips to `surface` (× scale), each expected at its animated height (0) above it. */
  function worstGap(q: ReturnType<typeof buildQuadruped>, surface: (p: Vector3) => number): number {
    let worst = 0;
    for (const bones of [...q.hindLegs, ...q.foreLegs]) {
      const p = worldPos(bones[3]!);
      expect(Number.isFinite(p.x + p.y + p.z)).toBe(true);
      worst = Math.max(worst, Math.abs(p.y - surface(p)) / scale);
    }
    return worst;
  }

  /** The root's pitch, degrees (positive: its forward turned up). */
  function rootPitch(q: ReturnType<typeof buildQuadruped>): number {
    const f = Vector3.TransformNormal(new Vector3(0, 0, 1), q.root.computeWorldMatrix(true)).normalize();
    return (Math.asin(f.y) * 180) / Math.PI;
  }

  /** A step `h` high over z > `edge`, on a floor. */
  function step(scene: Scene, h: number, edge: number): { meshes: Mesh[]; surface: (p: Vector3) => number } {
    const size = 20 * scale;
    const floor = CreateGround("ground-floor", { width: size, height: size }, scene);
    const box = CreateBox("ground-step", { width: size, height: 2 * scale, depth: size }, scene);
    box.position.set(0, h - scale, edge + size / 2);
    return { meshes: [floor, box], surface: (p) => (p.z > edge ? h : 0) };
  }

  it("stands with its forelegs on a step: feet on the ground, the chest up, the body pitched, the head kept", () => {
    const { scene, q, rest, grounder } = world();
    const h = 0.1 * scale;
    const { surface } = step(scene, h, 0);
    for (let f = 0; f < 120; f++) scene.render();
    const gap = worstGap(q, surface);
    const chestRise = (worldPos(q.chest).y - rest.chest.y) / scale;
    const pelvisRise = (worldPos(q.pelvis).y - rest.pelvis.y) / scale;
    const pitch = rootPitch(q);
    // the slope between the fore and the hind hips: 0.1 over 0.8
    const expected = (Math.atan2(0.1, 0.8) * 180) / Math.PI;
    const head = angleBetween(headRotation(q), rest.head);
    report(
      `GrounderQuadruped step RH=${rightHanded} ×${scale}: worst tip gap (× scale), chest rise, pelvis rise (× scale), pitch, expected (°), head turn (°)`,
      gap,
      chestRise,
      pelvisRise,
      pitch,
      expected,
      head,
    );
    expect(gap).toBeLessThan(2e-3);
    expect(chestRise).toBeCloseTo(0.1, 3);
    expect(Math.abs(pelvisRise)).toBeLessThan(1e-3);
    expect(grounder.pitch).toBeCloseTo(expected, 1);
    expect(pitch).toBeCloseTo(expected, 1);
    expect(head).toBeLessThan(0.01);
  });

  it.each([
    ["up", 15],
    ["down", -15],
  ] as const)("stands on a slope %s: feet on the ground, the body pitched with it within its limits", (_, deg) => {
    const { scene, q, grounder } = world();
    const size = 20 * scale;
    const slope = CreateGround("ground-slope", { width: size, height: size }, scene);
    // tilted about x: the ground rises along +z for a positive `deg`
    slope.rotationQuaternion = Quaternion.RotationAxis(new Vector3(1, 0, 0), (-deg * Math.PI) / 180);
    slope.computeWorldMatrix(true);
    const n = Vector3.TransformNormal(new Vector3(0, 1, 0), slope.getWorldMatrix()).normalize();
    const surface = (p: Vector3) => -(n.x * p.x + n.z * p.z) / n.y;
    expect(surface(new Vector3(0, 0, 1)) * Math.sign(deg)).toBeGreaterThan(0);
    for (let f = 0; f < 120; f++) scene.render();
    const gap = worstGap(q, surface);
    const pitch = rootPitch(q);
    report(
      `GrounderQuadruped slope ${deg}° RH=${rightHanded} ×${scale}: worst tip gap (× scale), pitch (°)`,
      gap,
      pitch,
    );
    expect(gap).toBeLessThan(2e-3);
    // the body pitched with the ground under its hips
    expect(Math.abs(pitch - deg)).toBeLessThan(0.5);
    // and no further than its limits
    grounder.maxRootRotation = 10;
    grounder.minRootRotation = -5;
    for (let f = 0; f < 120; f++) scene.render();
    const limited = rootPitch(q);
    report(`GrounderQuadruped slope ${deg}° limited to [-5, 10]: pitch (°)`, limited);
    expect(limited).toBeCloseTo(deg > 0 ? 10 : -5, 2);
    expect(worstGap(q, surface)).toBeLessThan(2e-3);
  });

  it("puts a foot on a bump and keeps the others on the floor", () => {
    const { scene, q, rest } = world();
    const floor = CreateGround("ground-floor", { width: 20 * scale, height: 20 * scale }, scene);
    const tip = rest.tips[2]!;
    const bumpHeight = 0.04 * scale;
    const bump = CreateBox("ground-bump", { size: 0.1 * scale, height: 2 * scale }, scene);
    bump.position.set(tip.x, bumpHeight - scale, tip.z);
    const surface = (p: Vector3) =>
      Math.abs(p.x - tip.x) < 0.05 * scale && Math.abs(p.z - tip.z) < 0.05 * scale ? bumpHeight : 0;
    for (let f = 0; f < 120; f++) scene.render();
    const gap = worstGap(q, surface);
    report(`GrounderQuadruped bump RH=${rightHanded} ×${scale}: worst tip gap (× scale)`, gap);
    expect(gap).toBeLessThan(2e-3);
    expect(worldPos(q.foreLegs[0]![3]!).y / scale).toBeCloseTo(0.04, 3);
    floor.dispose();
  });

  it("walks up a step (its root moved by code): feet on the ground half on it and all on it", () => {
    const { scene, q } = world();
    const h = 0.1 * scale;
    const edge = 1 * scale;
    const { surface } = step(scene, h, edge);
    const at = (z: number, frames: number) => {
      const from = q.root.position.z;
      for (let f = 1; f <= frames; f++) {
        q.root.position.z = from + ((z - from) * f) / frames;
        scene.render();
      }
    };
    // walk till the forelegs are on the step (chest at z + 0.4), stand, measure
    at(edge + 0.1 * scale, 90);
    at(edge + 0.1 * scale, 60);
    const half = worstGap(q, (p) => surface(p) + 0);
    const halfPitch = rootPitch(q);
    // on the step with the root lifted on it, as a controller would
    at(edge + 1 * scale, 90);
    q.root.position.y = h;
    at(edge + 1 * scale, 60);
    const all = worstGap(q, surface);
    const allPitch = rootPitch(q);
    report(
      `GrounderQuadruped walk RH=${rightHanded} ×${scale}: worst tip gap half and all on the step (× scale), pitch then (°)`,
      half,
      all,
      halfPitch,
      allPitch,
    );
    expect(half).toBeLessThan(2e-3);
    expect(all).toBeLessThan(2e-3);
    expect(halfPitch).toBeGreaterThan(5);
    expect(Math.abs(allPitch)).toBeLessThan(0.05);
  });

  it("clamps the pelvis's and the chest's moves at maxLegOffset and maxForeLegOffset", () => {
    const { scene, q, rest, grounder } = world({ maxLegOffset: 0.02 * scale, maxForeLegOffset: 0.03 * scale });
    // a pit under the hind legs, a step under the forelegs
    const floor = CreateGround("ground-floor", { width: 20 * scale, height: 20 * scale }, scene);
    floor.position.y = -0.1 * scale;
    const box = CreateBox("ground-step", { width: 20 * scale, height: 2 * scale, depth: 10 * scale }, scene);
    box.position.set(0, 0.1 * scale - scale, 5 * scale);
    for (let f = 0; f < 120; f++) scene.render();
    const pelvisRise = (worldPos(q.pelvis).y - rest.pelvis.y) / scale;
    const chestRise = (worldPos(q.chest).y - rest.chest.y) / scale;
    report(`GrounderQuadruped clamp RH=${rightHanded} ×${scale}: pelvis, chest rise (× scale)`, pelvisRise, chestRise);
    expect(pelvisRise).toBeCloseTo(-0.02, 6);
    expect(chestRise).toBeCloseTo(0.03, 6);
    expect(grounder.legOffset / scale).toBeCloseTo(-0.02, 9);
    expect(grounder.foreLegOffset / scale).toBeCloseTo(0.03, 9);
  });

  it("keeps the head's world rotation by maintainHeadRotationWeight (0: it pitches with the body)", () => {
    const { scene, q, rest } = world({ maintainHeadRotationWeight: 0 });
    step(scene, 0.1 * scale, 0);
    for (let f = 0; f < 120; f++) scene.render();
    const head = angleBetween(headRotation(q), rest.head);
    report(`GrounderQuadruped head weight 0 RH=${rightHanded} ×${scale}: head turn (°)`, head);
    expect(head).toBeGreaterThan(5);
  });

  it("weight 0 leaves the legs' own result bit for bit, and dispose takes it all off", () => {
    const alone = world({}, false);
    step(alone.scene, 0.1 * scale, 0);
    for (let f = 0; f < 3; f++) alone.scene.render();
    const expected = [...pose(alone.q.skeleton.bones), ...alone.q.root.rotationQuaternion!.asArray()];
    const { scene, q, grounder } = world();
    step(scene, 0.1 * scale, 0);
    const bones = q.skeleton.bones;
    const now = () => [...pose(bones), ...q.root.rotationQuaternion!.asArray()];
    for (let f = 0; f < 30; f++) scene.render();
    expect(now()).not.toEqual(expected);
    grounder.weight = 0;
    for (let f = 0; f < 3; f++) scene.render();
    expect(now()).toEqual(expected);
    grounder.weight = 1;
    for (let f = 0; f < 30; f++) scene.render();
    grounder.dispose();
    scene.render();
    expect(now()).toEqual(expected);
  });
});
