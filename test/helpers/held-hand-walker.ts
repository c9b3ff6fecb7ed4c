/**
 * UAL walking with its left hand held up and across and swaying, so the IK bends the spine and the chest turns
 * frame to frame: what a tool reading the bones after (or before) the solve sees move.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { LoadedModel } from "./babylon-scene.js";
import { type IKTwin, ikTwin } from "./ik-twin.js";
import { worldPos } from "./scene-probes.js";

/** The walker beside its twin, its skinned mesh, and `frame(f)`, which sets frame `f`'s hand target and renders. */
export interface HeldHandWalker {
  t: IKTwin;
  mesh: AbstractMesh;
  frame(f: number): void;
}

/** Loads the walker (pushed on `open` for disposal), its left hand pulled to a target that sways with `f`. */
export async function heldHandWalker(open: LoadedModel[]): Promise<HeldHandWalker> {
  const t = await ikTwin("UAL", "Walk_Loop", open);
  const hand = t.ik.solver.leftHandEffector;
  hand.positionWeight = 1;
  t.ik.solver.leftArmChain.pull = 1;
  const mesh = t.m.container.meshes.find((x) => x.skeleton === t.m.skeleton)!;
  const frame = (f: number) => {
    const clip = worldPos(t.twinBone(t.ik.references.leftHand));
    hand.position.copyFrom(clip.add(new Vector3(-0.2 * t.h * Math.sin(f / 7), 0.3 * t.h, 0.15 * t.h)));
    t.m.scene.render();
  };
  return { t, mesh, frame };
}
