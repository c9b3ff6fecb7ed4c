/**
 * A hand on a Havok ball that falls, bounces and rolls down a tilted floor, spinning (QA round 32): the target is a
 * grip node hung under the ball's mesh, on its surface, so it turns with the ball. Babylon steps physics after the
 * animations and before the solve (ragdoll-havok.test.ts: a falling box). Here the grip's world matrix comes from the
 * ball's pose Havok wrote this frame: the effector's position at the solve is where the grip is drawn after the
 * frame, outside and under deterministic lockstep (where the steps a frame vary).
 */
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { PrecisionDate } from "@babylonjs/core/Misc/precisionDate.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { PhysicsShapeType } from "@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js";
import { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import { PhysicsAggregate } from "@babylonjs/core/Physics/v2/physicsAggregate.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { loadHavok } from "../helpers/havok.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const havok = await loadHavok();
const open: LoadedModel[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const m of open.splice(0)) m.dispose();
});

/**
 * UAL idling, its right hand on a grip on a spinning ball dropped before it onto a tilted floor, 40 frames at 60 Hz:
 * the largest distance between the effector's position at the solve and the grip as drawn, and the grip's largest
 * move in a frame (× h).
 */
async function handOnBall(lockstep: boolean) {
  let now = 1000;
  let scene: Scene | undefined;
  if (lockstep) {
    vi.spyOn(PrecisionDate, "Now", "get").mockImplementation(() => now);
    const engine = new NullEngine({ deterministicLockstep: true, lockstepMaxSteps: 4, timeStep: 1 / 60 } as never);
    scene = new Scene(engine);
    new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  }
  const m = await loadModel("UAL", { clips: (n) => n === "Idle_Loop", scene });
  open.push(m);
  scene = m.scene;
  scene.enablePhysics(new Vector3(0, -9.81, 0), new HavokPlugin(false, havok.engine));
  const floor = CreateBox("floor", { width: 20, depth: 20, height: 1 }, scene);
  floor.position.y = -0.5;
  floor.rotation.x = 0.35;
  new PhysicsAggregate(floor, PhysicsShapeType.BOX, { mass: 0 }, scene);
  m.container.animationGroups[0]!.start(true);
  scene.render();
  const h = height(m);
  const ik = FullBodyBipedIK.create(scene, m.skeleton);
  const ball = CreateSphere("ball", { diameter: 0.1 * h }, scene);
  ball.position.copyFrom(worldPos(ik.references.rightHand).add(new Vector3(0, 0.2 * h, 0.2 * h)));
  new PhysicsAggregate(ball, PhysicsShapeType.SPHERE, { mass: 1 }, scene).body.setAngularVelocity(new Vector3(8, 0, 3));
  const grip = new TransformNode("grip", scene);
  grip.parent = ball;
  grip.position.set(0, 0.05 * h, 0);
  const effector = ik.solver.rightHandEffector;
  effector.target = grip;
  effector.positionWeight = 1;
  const atSolve = new Vector3();
  ik.solver.onPostUpdateObservable.add(() => atSolve.copyFrom(effector.position));
  let lag = 0;
  let fastest = 0;
  let last = grip.computeWorldMatrix(true).getTranslation();
  const engine = scene.getEngine();
  for (let f = 0; f < 40; f++) {
    now += 1000 / 60;
    engine.beginFrame();
    scene.render();
    engine.endFrame();
    const drawn = grip.computeWorldMatrix(true).getTranslation();
    lag = Math.max(lag, Vector3.Distance(atSolve, drawn) / h);
    fastest = Math.max(fastest, Vector3.Distance(drawn, last) / h);
    last = drawn;
  }
  return { lag, fastest };
}

const title = havok.engine
  ? "a hand on a spinning Havok ball (Havok wasm in Node, UAL)"
  : `a hand on a spinning Havok ball (skipped: Havok did not load: ${havok.reason})`;

describe.skipIf(!havok.engine)(title, () => {
  for (const lockstep of [false, true]) {
    it(`${lockstep ? "under deterministic lockstep" : "at 60 Hz"}: the target is the grip as drawn this frame`, async () => {
      const r = await handOnBall(lockstep);
      report(
        `ball grip, lockstep ${lockstep}: target at the solve from the drawn grip, grip's fastest (h)`,
        r.lag,
        r.fastest,
      );
      // a frame late, the target would trail the grip by its move in a frame
      expect(r.fastest).toBeGreaterThan(0.02);
      expect(r.lag).toBeLessThan(1e-6);
    });
  }
});
