/**
 * EffectorHandles brings Babylon's picking with it: an app importing Babylon by deep paths, as this package
 * recommends, gets no `scene.pick` unless something imports `@babylonjs/core/Culling/ray.js` (Babylon's root
 * index does), and a click on a handle then picked nothing. In a module graph of its own (vitest.config.ts,
 * ISOLATED): another file's import of the ray would hide the defect.
 */
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { Scene } from "@babylonjs/core/scene.js";
import { expect, it } from "vitest";
import { EffectorHandles } from "../../src/babylon/effector-handles.js";

it("importing EffectorHandles makes a scene pickable (its handles are picked by a click)", () => {
  expect(EffectorHandles.name).toBe("EffectorHandles");
  const engine = new NullEngine({
    renderWidth: 200,
    renderHeight: 100,
    textureSize: 256,
    deterministicLockstep: false,
    lockstepMaxSteps: 1,
  });
  const scene = new Scene(engine);
  const camera = new FreeCamera("camera", new Vector3(0, 0, -5), scene);
  camera.setTarget(Vector3.Zero());
  const box = CreateBox("box", { size: 1 }, scene);
  scene.render();
  expect(scene.pick(100, 50).pickedMesh).toBe(box);
  engine.dispose();
});
