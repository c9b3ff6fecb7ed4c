/**
 * GrounderQuadruped's forward: the creature of quadruped-rig.ts under a controller node whose +z is the way it faces,
 * and the same creature, the same world pose, under a controller turned half a turn (its −z ahead) or a quarter
 * (its +x ahead). The body's pitch and the probes take the controller's axis the creature faces
 * (`characterForward`, from its hind hips toward its fore hips), so the three stand the same on a slope and a step.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { CCDIK, FABRIK } from "../../src/babylon/chain-ik.js";
import { GrounderQuadruped } from "../../src/effectors/grounding/grounder-quadruped.js";
import { GroundingQuality } from "../../src/effectors/grounding/grounding-common.js";
import { report } from "../helpers/modifier-scene.js";
import { buildQuadruped } from "../helpers/quadruped-rig.js";
import { worldPos } from "../helpers/scene-probes.js";
import { codeScene } from "../helpers/spider-rig.js";

const open: { dispose(): void }[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

interface Stand {
  /** The creature's pitch, degrees (its forward, world +z, turned up). */
  pitch: number;
  /** The worst gap of the four toe tips to the ground. */
  gap: number;
  /** Every bone's world position. */
  pose: number[];
  forward: number[];
}

/**
 * The creature facing world +z under a controller turned `yaw` about y (its world pose the same), standing 120 frames
 * on `ground` ("slope": 15° up along +z; "step": 0.1 high under the forelegs), grounded at `quality`.
 */
function stand(yaw: number, ground: "slope" | "step", quality: GroundingQuality, forward?: Vector3): Stand {
  const scene = codeScene(true);
  open.push({ dispose: () => scene.disposeAll() });
  const q = buildQuadruped(scene);
  const controller = new TransformNode("controller", scene);
  controller.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), yaw);
  q.root.parent = controller;
  q.root.rotationQuaternion = Quaternion.Inverse(controller.rotationQuaternion);
  const hind = q.hindLegs.map((bones) => FABRIK.create(scene, bones, { maxIterations: 16 }));
  const fore = q.foreLegs.map((bones) => CCDIK.create(scene, bones, { maxIterations: 40 }));
  for (const leg of [...hind, ...fore]) leg.solver.ikPositionWeight = 0;
  let surface: (p: Vector3) => number;
  if (ground === "slope") {
    const slope = CreateGround("ground-slope", { width: 20, height: 20 }, scene);
    slope.rotationQuaternion = Quaternion.RotationAxis(new Vector3(1, 0, 0), (-15 * Math.PI) / 180);
    slope.computeWorldMatrix(true);
    const n = Vector3.TransformNormal(new Vector3(0, 1, 0), slope.getWorldMatrix()).normalize();
    surface = (p) => -(n.x * p.x + n.z * p.z) / n.y;
  } else {
    CreateGround("ground-floor", { width: 20, height: 20 }, scene);
    const box = CreateBox("ground-step", { width: 20, height: 2, depth: 20 }, scene);
    box.position.set(0, 0.1 - 1, 10);
    surface = (p) => (p.z > 0 ? 0.1 : 0);
  }
  const grounder = GrounderQuadruped.create(hind, q.pelvis, fore, q.chest, {
    predicate: (m) => m.name.startsWith("ground"),
    root: controller,
    head: q.head,
    footRadius: 0.02,
    rootRotationWeight: 1,
    quality,
    footCenterOffset: quality === GroundingQuality.Best ? 0.03 : 0,
    ...(forward !== undefined ? { characterForward: forward } : {}),
  });
  for (let f = 0; f < 120; f++) scene.render();
  const tips = [...q.hindLegs, ...q.foreLegs].map((b: Bone[]) => worldPos(b[3]!));
  const f = Vector3.TransformNormal(new Vector3(0, 0, 1), q.root.computeWorldMatrix(true)).normalize();
  return {
    pitch: (Math.asin(f.y) * 180) / Math.PI,
    gap: Math.max(...tips.map((p) => Math.abs(p.y - surface(p)))),
    pose: q.skeleton.bones.flatMap((b) => worldPos(b).asArray()),
    forward: grounder.characterForward.asArray(),
  };
}

describe("GrounderQuadruped's forward: a controller whose +z is not the creature's forward", () => {
  it.each([
    ["slope", "Simple", GroundingQuality.Simple],
    ["step", "Simple", GroundingQuality.Simple],
    ["slope", "Best with a footCenterOffset", GroundingQuality.Best],
    ["step", "Best with a footCenterOffset", GroundingQuality.Best],
  ] as const)("on a %s (%s): facing −z or +x stands as facing +z", (ground, label, quality) => {
    const facing = stand(0, ground, quality);
    for (const [name, yaw, axis] of [
      ["−z", Math.PI, [0, 0, -1]],
      ["+x", -Math.PI / 2, [1, 0, 0]],
    ] as const) {
      const turned = stand(yaw, ground, quality);
      let apart = 0;
      for (let i = 0; i < facing.pose.length; i++) apart = Math.max(apart, Math.abs(facing.pose[i]! - turned.pose[i]!));
      report(
        `GrounderQuadruped ${ground} ${label} facing ${name}: pitch +z, pitch turned (°), tips' gap +z, turned, worst bone apart`,
        facing.pitch,
        turned.pitch,
        facing.gap,
        turned.gap,
        apart,
      );
      expect(facing.forward).toEqual([0, 0, 1]);
      expect(turned.forward).toEqual(axis);
      // main (the root's +z taken as forward): facing −z the pitch 0° (15° and 7.1° facing +z) and the bones 0.14
      // (slope) and 0.067 (step) apart; facing +x the pitch 9e-15° and the tips 0.068 off the ground. Measured: the
      // same pitch, gap 1.4e-3 (slope) and 3.5e-4 (step) either way, the bones ≤ 4.5e-16 apart
      expect(Math.abs(turned.pitch - facing.pitch)).toBeLessThan(1e-9);
      expect(turned.gap).toBeLessThan(2e-3);
      expect(apart).toBeLessThan(1e-9);
    }
  });

  it("takes the option characterForward as given (normalised) over the hips' direction", () => {
    const given = stand(Math.PI, "slope", GroundingQuality.Simple, new Vector3(0, 0, 2));
    report("GrounderQuadruped slope facing −z, characterForward +z given: pitch (°)", given.pitch);
    expect(given.forward).toEqual([0, 0, 1]);
    // the creature's back along the root's +z: no span between the hips ahead, no pitch
    expect(given.pitch).toBe(0);
  });
});
