/**
 * The natural-side fold measured on UAL's clips played frame by frame with both hand effectors raised above the
 * clip's hands (natural-fold-clips.test.ts on two clips, robustness/natural-fold-all-clips.test.ts on all 46): per
 * clip, the elbows' worst move and swivel a frame beyond the clip's, and how often the solved elbow lies far off the
 * natural pole (the fold's cost: its memory holds an elbow off its side while it turns at a bounded rate).
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { BabylonChain } from "../../src/babylon/babylon-chain.js";
import { Vec3 } from "../../src/math/vec3.js";
import { naturalPole } from "../../src/solver/natural-pole.js";
import { clipModelWithIK, degrees, elbowSide } from "./elbow-sides.js";
import { worldPos } from "./scene-probes.js";

/** What one clip did to the elbows. */
export interface ClipElbows {
  /** The worst elbow move a frame beyond the clip's elbow's (× h). */
  jump: number;
  /** The worst elbow swivel about the shoulder–hand line a frame beyond the clip's (°). */
  swivel: number;
  /** The mean angle between the solved and the clip's elbow side (°; bent elbows only). */
  mean: number;
  /** Arm-frames (two an update) whose solved elbow lies more than 81° off the natural pole (where it is defined). */
  offPole: number;
  /** The worst angle off the natural pole (°). */
  worstOffPole: number;
  /** Arm-frames measured. */
  armFrames: number;
}

/** Where the pole is shorter than this (a unit axis's), the natural side is too weakly defined to count. */
const POLE_DEFINED = 0.2;

/** The angle (°) of the chain's solved elbow off its natural pole, in the solver's space; NaN where it vanishes. */
function offNaturalPole(chain: BabylonChain, pole: Vec3): number {
  const [s, e, hand] = chain.inner.nodes.map((n) => n.solverPosition);
  const start = new Vector3(s!.x, s!.y, s!.z);
  const axis = new Vector3(hand!.x, hand!.y, hand!.z).subtract(start).normalize();
  const bend = chain.inner.bendConstraint;
  naturalPole(pole, axis, bend.naturalForward, bend.naturalUp, -1);
  const length = Math.hypot(pole.x, pole.y, pole.z);
  if (length < POLE_DEFINED) return Number.NaN;
  const side = elbowSide(start, axis, new Vector3(e!.x, e!.y, e!.z));
  return degrees(side, new Vector3(pole.x / length, pole.y / length, pole.z / length));
}

/**
 * UAL's clips that `clips` picks, each played frame by frame from its start with both hand effectors `raise` of the
 * height above the clip's hands (weight 1), measured per clip by name.
 */
export async function handsAboveClips(
  raise: number,
  clips: (name: string) => boolean,
): Promise<Record<string, ClipElbows>> {
  const { m, ik, h } = await clipModelWithIK("UAL", clips);
  try {
    const r = ik.references;
    const arms = [
      [r.leftUpperArm, r.leftForearm, r.leftHand, ik.solver.leftHandEffector, ik.solver.leftArmChain],
      [r.rightUpperArm, r.rightForearm, r.rightHand, ik.solver.rightHandEffector, ik.solver.rightArmChain],
    ] as const;
    const pole = new Vec3();
    const measured: Record<string, ClipElbows> = {};
    for (const g of m.scene.animationGroups) {
      g.start(false);
      g.pause();
      const c: ClipElbows = { jump: 0, swivel: 0, mean: 0, offPole: 0, worstOffPole: 0, armFrames: 0 };
      const angles: number[] = [];
      // per arm: the clip's and the solved elbow, and their sides about the shoulder–hand line (null: too straight)
      let last: [Vector3, Vector3, Vector3 | null, Vector3 | null][] | null = null;
      for (let f = Math.ceil(g.from); f <= g.to; f++) {
        g.goToFrame(f);
        m.scene.render();
        const clip = arms.map((a) => [worldPos(a[0]), worldPos(a[1]), worldPos(a[2])] as const);
        arms.forEach((a, i) => {
          a[3].position.copyFrom(clip[i]![2]);
          a[3].position.y += raise * h;
          a[3].positionWeight = 1;
        });
        ik.update();
        const elbows = arms.map((a, i): [Vector3, Vector3, Vector3 | null, Vector3 | null] => {
          const [S, E, H] = clip[i]!;
          const [s, e, hand] = [worldPos(a[0]), worldPos(a[1]), worldPos(a[2])];
          // an elbow bent less than 20° has no side worth measuring
          const bent = (p: Vector3, q: Vector3, t: Vector3) =>
            degrees(q.subtract(p).normalize(), t.subtract(q).normalize()) >= 20;
          const side = bent(S, E, H) ? elbowSide(S, H.subtract(S).normalize(), E) : null;
          const solved = elbowSide(s, hand.subtract(s).normalize(), e);
          if (side !== null) angles.push(degrees(side, solved));
          const off = offNaturalPole(a[4], pole);
          c.armFrames++;
          if (off > 81) c.offPole++;
          if (off > c.worstOffPole) c.worstOffPole = off;
          // the solved elbow's turn is judged only where it is bent too
          return [E, e, side, bent(s, e, hand) ? solved : null];
        });
        if (last !== null) {
          elbows.forEach(([E, e, side, solved], i) => {
            const [lE, le, lSide, lSolved] = last![i]!;
            c.jump = Math.max(c.jump, (Vector3.Distance(e, le) - Vector3.Distance(E, lE)) / h);
            if (side !== null && solved !== null && lSide !== null && lSolved !== null) {
              c.swivel = Math.max(c.swivel, degrees(solved, lSolved) - degrees(side, lSide));
            }
          });
        }
        last = elbows;
      }
      g.stop();
      c.mean = angles.reduce((x, y) => x + y, 0) / angles.length;
      measured[g.name] = c;
    }
    return measured;
  } finally {
    ik.dispose();
    m.dispose();
  }
}
