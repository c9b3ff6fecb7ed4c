/**
 * A character a game streams in and out of its scene with its asset container, beside a twin that stays: two UALs
 * in one scene, on one spot, walking Walk_Loop in step, each with the same IK (a FullBodyBipedIK holding the left
 * hand above and ahead of where the walk puts it, a GrounderFBBIK on a ground plane, a LookAtIK turning the head).
 * What is done to `a` alone shows as a bone's distance from the same bone of `b`.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { type LoadedModel, loadModel } from "./babylon-scene.js";
import { height, worldPos } from "./scene-probes.js";

/** One of the two: its model, its IK components and the warning causes they raised. */
export interface StreamedCharacter {
  m: LoadedModel;
  ik: FullBodyBipedIK;
  grounder: GrounderFBBIK;
  look: LookAtIK;
  /** Causes warned by the FullBodyBipedIK (and its grounder) and the LookAtIK, prefixed `look:` for the latter. */
  warnings: string[];
}

/** The pair, their scene and the character's height. */
export interface StreamedPair {
  a: StreamedCharacter;
  b: StreamedCharacter;
  scene: Scene;
  h: number;
  /** The largest distance between a bone of `a` and the same bone of `b`, ÷ h. */
  gap(): number;
}

/** Loads the pair (pushed on `open` for disposal), both walking and solving; 3 frames rendered. */
export async function streamedPair(open: LoadedModel[]): Promise<StreamedPair> {
  const walk = (n: string) => n === "Walk_Loop";
  const ma = await loadModel("UAL", { clips: walk });
  open.push(ma);
  const mb = await loadModel("UAL", { clips: walk, scene: ma.scene });
  const scene = ma.scene;
  const ground = CreateGround("ground", { width: 20, height: 20 }, scene);
  for (const m of [ma, mb]) m.container.animationGroups[0]!.start(true);
  scene.render();
  const h = height(ma);
  const equip = (m: LoadedModel): StreamedCharacter => {
    const ik = FullBodyBipedIK.create(scene, m.skeleton);
    const r = ik.references;
    const warnings: string[] = [];
    ik.onWarningObservable.add((w) => warnings.push(w.cause));
    const hand = ik.solver.leftHandEffector;
    hand.position.copyFrom(worldPos(r.leftHand).add(new Vector3(0.05 * h, 0.15 * h, 0.1 * h)));
    hand.positionWeight = 1;
    const grounder = GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast });
    const look = LookAtIK.create(scene, { spine: r.spine, head: r.head! });
    look.onWarningObservable.add((w) => warnings.push(`look:${w.cause}`));
    look.targetPosition.copyFrom(worldPos(r.head!).add(new Vector3(h, 0.3 * h, h)));
    look.solver.ikPositionWeight = 1;
    // the head alone: the spine keeps the FullBodyBipedIK's pose
    look.solver.bodyWeight = 0;
    return { m, ik, grounder, look, warnings };
  };
  const a = equip(ma);
  const b = equip(mb);
  for (let f = 0; f < 3; f++) scene.render();
  const bonesA = ma.skeleton.bones;
  const bonesB = mb.skeleton.bones;
  const gap = (): number => {
    let worst = 0;
    bonesA.forEach((bone: Bone, i) => {
      worst = Math.max(worst, Vector3.Distance(worldPos(bone), worldPos(bonesB[i]!)) / h);
    });
    return worst;
  };
  return { a, b, scene, h, gap };
}
