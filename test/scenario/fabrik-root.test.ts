/**
 * FABRIKRoot on a hand built in code (a palm bone with three 3-bone fingers): each fingertip reaches its
 * target; with rootPin 0 the palm translates toward the targets' pull-weighted wish (it never turns), with
 * rootPin 1 it stays; FixTransforms restores the palm's position.
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { Scene } from "@babylonjs/core/scene.js";
import { describe, expect, it } from "vitest";
import { FABRIKRoot } from "../../src/babylon/chain-ik.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { Random } from "../helpers/random.js";
import { bytesPerFrame } from "../helpers/frame-heap.js";

function buildHand() {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  new FreeCamera("camera", new Vector3(0, 0, -3), scene);
  const skeleton = new Skeleton("hand", "hand", scene);
  const mesh = new Mesh("hand-mesh", scene);
  mesh.skeleton = skeleton;
  const palm = new Bone("palm", skeleton, null, Matrix.Identity());
  const fingers: Bone[][] = [];
  for (let f = 0; f < 3; f++) {
    const bones: Bone[] = [];
    for (let k = 0; k < 3; k++) {
      const offset = k === 0 ? new Vector3((f - 1) * 0.03, 0.08, 0) : new Vector3(0, 0.03, 0);
      const local = Matrix.Compose(Vector3.One(), Quaternion.RotationAxis(Vector3.Right(), 0.1), offset);
      bones.push(new Bone(`finger${f}_${k}`, skeleton, k === 0 ? palm : bones[k - 1]!, local));
    }
    fingers.push(bones);
  }
  return { engine, scene, skeleton, mesh, palm, fingers };
}

describe("FABRIKRoot", () => {
  it("fingertips reach targets the fingers can reach with the palm pinned (rootPin 1, palm unmoved)", () => {
    const h = buildHand();
    const ik = FABRIKRoot.create(h.scene, h.palm, h.fingers, { maxIterations: 60 });
    ik.solver.rootPin = 1;
    h.scene.render();
    const palm0 = h.palm.getAbsolutePosition(h.mesh);
    const random = new Random(3);
    let worst = 0;
    for (let k = 0; k < 30; k++) {
      h.fingers.forEach((f, i) => {
        const base = f[0]!.getAbsolutePosition(h.mesh);
        const dir = new Vector3(random.range(-0.5, 0.5), 1, random.range(-0.5, 0.5)).normalize();
        ik.targetPositions[i]!.copyFrom(base.add(dir.scale(random.range(0.02, 0.055))));
      });
      h.scene.render();
      h.fingers.forEach((f, i) => {
        const tip = f[2]!.getAbsolutePosition(h.mesh);
        worst = Math.max(worst, Vector3.Distance(tip, ik.targetPositions[i]!) / 0.06);
      });
      expect(Vector3.Distance(h.palm.getAbsolutePosition(h.mesh), palm0)).toBeLessThan(1e-12);
    }
    expect(worst).toBeLessThan(1e-4);
    ik.dispose();
    h.scene.dispose();
    h.engine.dispose();
  });

  it("with rootPin 0 the palm translates toward targets beyond the fingers' reach; FixTransforms restores it", () => {
    const h = buildHand();
    const ik = FABRIKRoot.create(h.scene, h.palm, h.fingers, { maxIterations: 40 });
    h.scene.render();
    const palmRotation = h.palm.rotationQuaternion.clone();
    const tips = h.fingers.map((f) => f[2]!.getAbsolutePosition(h.mesh));
    const shift = new Vector3(0.2, 0.1, -0.05);
    tips.forEach((t, i) => ik.targetPositions[i]!.copyFrom(t.add(shift)));
    for (let f = 0; f < 5; f++) h.scene.render();
    // every tip on its target: the palm moved toward them (at least what the fingers cannot cover), not turned
    h.fingers.forEach((f, i) => {
      expect(Vector3.Distance(f[2]!.getAbsolutePosition(h.mesh), ik.targetPositions[i]!)).toBeLessThan(1e-4 * 0.06);
    });
    const along = Vector3.Dot(h.palm.position, shift.normalizeToNew());
    expect(along).toBeGreaterThan(shift.length() - 0.06);
    expect(h.palm.rotationQuaternion.equalsWithEpsilon(palmRotation, 1e-12)).toBe(true);
    ik.dispose();
    expect(h.palm.position.equals(Vector3.Zero())).toBe(true);
    h.scene.dispose();
    h.engine.dispose();
  });

  it("refuses a chain that does not hang from the root, naming it", () => {
    const h = buildHand();
    expect(() => FABRIKRoot.create(h.scene, h.fingers[0]![2]!, [h.fingers[1]!])).toThrow(FBBIKError);
    expect(() => FABRIKRoot.create(h.scene, h.fingers[0]![2]!, [h.fingers[1]!])).toThrow(/finger1_0.*does not hang/);
    h.scene.dispose();
    h.engine.dispose();
  });
  it("a frame (FixTransforms, read, solve, write) allocates nothing once warm", () => {
    const h = buildHand();
    const ik = FABRIKRoot.create(h.scene, h.palm, h.fingers, { maxIterations: 4 });
    h.scene.render();
    const random = new Random(5);
    const targets = ik.targetPositions.map((t) =>
      Array.from({ length: 16 }, () => t.add(new Vector3(random.range(-1, 1), random.range(-1, 1), 0).scale(0.02))),
    );
    const scene = h.scene;
    const frame = (f: number): void => {
      (scene as unknown as { _frameId: number })._frameId++;
      for (let i = 0; i < targets.length; i++) ik.targetPositions[i]!.copyFrom(targets[i]![f % 16]!);
      scene.onBeforeAnimationsObservable.notifyObservers(scene);
      scene.onBeforeRenderObservable.notifyObservers(scene);
      scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
    };
    const least = bytesPerFrame(frame, 10_000);
    // a target label built per frame cost 24 B a chain (72 B here)
    expect(least).toBeLessThan(8);
    ik.dispose();
    h.scene.dispose();
    h.engine.dispose();
  });
});
