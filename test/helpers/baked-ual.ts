/** UAL playing one clip baked for replay, with a FullBodyBipedIK on it: the start of the clip-replaying heap tests. */
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "./babylon-scene.js";
import { BakedClip, renderReplaying } from "./baked-clip.js";
import { height } from "./scene-probes.js";

/** What {@link bakedUalWithIK} sets up. */
export interface BakedUal {
  /** The model (the test disposes it). */
  m: LoadedModel;
  /** Its height, measured before the IK's first frame. */
  h: number;
  /** The clip's 60 frames, baked. */
  clip: BakedClip;
  /** The IK, created on the clip's first frame and rendered once. */
  ik: FullBodyBipedIK;
  /** One frame of the scene without drawing, the clip's frame `f` replayed. */
  frame: (f: number) => void;
}

/** Loads UAL with the clip `clipName` alone, bakes 60 frames of it, and attaches the IK on the first frame. */
export async function bakedUalWithIK(clipName: string): Promise<BakedUal> {
  const m = await loadModel("UAL", { clips: (c) => c === clipName });
  const scene = m.scene;
  const h = height(m);
  for (const g of m.container.animationGroups) g.start(true);
  const clip = BakedClip.bake(scene, 60);
  clip.apply(0);
  scene.render();
  const ik = FullBodyBipedIK.create(scene, m.skeleton);
  scene.render();
  return { m, h, clip, ik, frame: (f) => renderReplaying(scene, clip, f) };
}
