/**
 * A character with a FullBodyBipedIK beside a twin without one, in one scene, playing the same clip from its first
 * frame: the twin shows the clip's pose, so a bone's offset from its twin is what the IK (and its hooks) did.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, type ModelName, loadModel } from "./babylon-scene.js";
import { height, worldPos } from "./scene-probes.js";

/** The pair, and the character's height. */
export interface IKTwin {
  m: LoadedModel;
  twin: LoadedModel;
  ik: FullBodyBipedIK;
  h: number;
  /** The twin's bone of the same index. */
  twinBone(b: Bone): Bone;
  /** Every bone's world offset from its twin's, now (fresh vectors). */
  offsets(): Vector3[];
}

/** Loads both (pushed on `open` for disposal), both playing `clip` in a loop from its first frame. */
export async function ikTwin(model: ModelName, clip: string, open: LoadedModel[]): Promise<IKTwin> {
  const m = await loadModel(model, { clips: (c) => c === clip });
  open.push(m);
  const twin = await loadModel(model, { clips: (c) => c === clip, scene: m.scene });
  for (const t of [m, twin]) {
    const g = t.container.animationGroups.find((x) => x.name === clip)!;
    g.start(true);
    // posed now, so the IK attaches to the clip's pose, not the file's
    g.goToFrame(g.from);
  }
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const bones = m.skeleton.bones;
  const twinBones = twin.skeleton.bones;
  return {
    m,
    twin,
    ik,
    h: height(m),
    twinBone: (b) => twinBones[bones.indexOf(b)]!,
    offsets: () => bones.map((b, i) => worldPos(b).subtract(worldPos(twinBones[i]!))),
  };
}

/** The largest change of any bone's offset between two {@link IKTwin.offsets} readings, ÷ `h`. */
export function largestChange(before: readonly Vector3[], after: readonly Vector3[], h: number): number {
  let worst = 0;
  for (let i = 0; i < after.length; i++) worst = Math.max(worst, Vector3.Distance(after[i]!, before[i]!) / h);
  return worst;
}
