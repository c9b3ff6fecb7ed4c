/**
 * A loaded character on Havok for the scenario tests: physics enabled with fixed 1/60 s steps (HavokPlugin's
 * `useDeltaForWorldStep` false, so runs repeat exactly), the model under a "character" root node, a FullBodyBipedIK
 * on it, and static boxes for its ground.
 */
import type { Vector3 as Vector3Type } from "@babylonjs/core/Maths/math.vector.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { PhysicsShapeType } from "@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js";
import { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import { PhysicsAggregate } from "@babylonjs/core/Physics/v2/physicsAggregate.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import type { LoadedModel } from "./babylon-scene.js";
import { height } from "./scene-probes.js";

/** Enables Havok (`engine`: loadHavok's) on `m`'s scene and sets the character up, rendered once. */
export function havokCharacter(m: LoadedModel, engine: unknown) {
  const scene = m.scene;
  const plugin = new HavokPlugin(false, engine);
  scene.enablePhysics(new Vector3(0, -9.81, 0), plugin);
  const root = new TransformNode("character", scene);
  m.root.parent = root;
  const ik = FullBodyBipedIK.create(scene, m.skeleton);
  scene.render();
  const r = ik.references;
  return { scene, plugin, root, ik, h: height(m), feet: [r.leftFoot, r.rightFoot] };
}

/** A static Havok box of `size` centred at `at`, turned by `tilt` about x; its aggregate. */
export function staticBox(scene: Scene, size: Vector3Type, at: Vector3Type, tilt = 0): PhysicsAggregate {
  const mesh = CreateBox("ground", { width: size.x, height: size.y, depth: size.z }, scene);
  mesh.position.copyFrom(at);
  mesh.rotation.x = tilt;
  return new PhysicsAggregate(mesh, PhysicsShapeType.BOX, { mass: 0 }, scene);
}
