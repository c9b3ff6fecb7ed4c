/**
 * Samples of real elbows for fit-elbow-table.ts: from each clip's frames, per arm, the hand's direction from the
 * shoulder and the elbow's side about that line, both in the arm's natural frame (forward, up, outward), as
 * IKSolverLimb's `arm` modifier sees it: the character's facing at rest, turned with the upper arm's parent.
 */
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { detectBipedFacing } from "../src/babylon/character-forward.js";
import { type ModelName, loadModel } from "../test/helpers/babylon-scene.js";

/** One arm in one frame; vectors as [forward, up, outward] components. */
export interface ElbowSample {
  clip: string;
  side: "left" | "right";
  /** Unit shoulder → hand. */
  z: [number, number, number];
  /** Unit elbow side: shoulder → elbow made perpendicular to z. */
  t: [number, number, number];
  /** Shoulder–hand distance over the upper arm's and forearm's lengths. */
  reach: number;
}

const pos = (n: { computeWorldMatrix(f: boolean): unknown; absolutePosition: Vector3 }): Vector3 => {
  n.computeWorldMatrix(true);
  return n.absolutePosition.clone();
};

/**
 * Every `step`-th frame of each of `name`'s clips that `keep` accepts, both arms; frames where the elbow bends
 * less than 20° are left out (no side worth measuring, as in test/scenario/limb-arm-modifier.test.ts).
 */
export async function elbowSamples(
  name: ModelName,
  step: number,
  keep: (clip: string) => boolean = () => true,
): Promise<ElbowSample[]> {
  const m = await loadModel(name, { clips: (c) => c !== "A_TPose" && keep(c) });
  try {
    const scene = m.scene;
    for (const g of scene.animationGroups) g.stop();
    m.skeleton.returnToRest();
    scene.render();
    const facing = detectBipedFacing(m.skeleton, null);
    if (facing === null) throw new Error(`${name}: no biped facing`);
    const r = facing.references;
    const arms = [
      { side: "left", bones: [r.leftUpperArm, r.leftForearm, r.leftHand], other: r.rightUpperArm },
      { side: "right", bones: [r.rightUpperArm, r.rightForearm, r.rightHand], other: r.leftUpperArm },
    ] as const;
    // per arm at rest: the frame's axes in world space and the parent's inverse world matrix
    const frames = arms.map(({ bones, other }) => {
      const parent = bones[0].getParent()!.getTransformNode()!;
      const F = facing.forward.clone().normalize();
      const U = facing.up.subtract(F.scale(Vector3.Dot(facing.up, F))).normalize();
      const across = pos(bones[0].getTransformNode()!).subtract(pos(other.getTransformNode()!));
      const O = across
        .subtract(F.scale(Vector3.Dot(across, F)))
        .subtract(U.scale(Vector3.Dot(across, U)))
        .normalize();
      parent.computeWorldMatrix(true);
      return { parent, axes: [F, U, O], restInv: Matrix.Invert(parent.getWorldMatrix()) };
    });
    const out: ElbowSample[] = [];
    for (const g of scene.animationGroups) {
      g.start(false);
      g.pause();
      for (let f = g.from; f <= g.to; f += step) {
        g.goToFrame(f);
        scene.render();
        arms.forEach(({ side, bones }, i) => {
          const [S, E, H] = bones.map((b) => pos(b.getTransformNode()!)) as [Vector3, Vector3, Vector3];
          const upper = E.subtract(S);
          const fore = H.subtract(E);
          if (Vector3.Dot(upper.normalize(), fore.normalize()) > Math.cos((20 * Math.PI) / 180)) return;
          const fr = frames[i]!;
          fr.parent.computeWorldMatrix(true);
          const turn = fr.restInv.multiply(fr.parent.getWorldMatrix());
          const axes = fr.axes.map((a) => Vector3.TransformNormal(a, turn).normalize());
          const zw = H.subtract(S);
          const reach = zw.length() / (E.subtract(S).length() + H.subtract(E).length());
          zw.normalize();
          const o = E.subtract(S);
          const tw = o.subtract(zw.scale(Vector3.Dot(o, zw))).normalize();
          const inFrame = (v: Vector3): [number, number, number] => {
            const c = axes.map((a) => Vector3.Dot(v, a)) as [number, number, number];
            const l = Math.hypot(...c);
            return [c[0] / l, c[1] / l, c[2] / l];
          };
          out.push({ clip: g.name, side, z: inFrame(zw), t: inFrame(tw), reach });
        });
      }
      g.stop();
    }
    return out;
  } finally {
    m.dispose();
  }
}
