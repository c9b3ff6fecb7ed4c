/**
 * Adaptive iterations must not make the pose jump when the count they stop at changes. At rest (straight arms), feet
 * pinned where they stand, the body effector dragged sideways 0.002 h a frame, hands free: met effectors ended the
 * loop after one iteration while the free shoulders were still moving, and the frame the feet first fell out of
 * reach ran four, landing the shoulders elsewhere (Xbot's upper arm 8.06° in one frame, Soldier's 14.0°).
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { modelAvailable } from "../helpers/babylon-scene.js";
import { disposeOpen, height, load, pinFeetWhereTheyStand, report, worldPos } from "../helpers/modifier-scene.js";

afterEach(disposeOpen);

const DEG = 180 / Math.PI;
const FRAMES = 50;

/** Each bone's world rotation, read fresh. */
function rotations(ik: FullBodyBipedIK): Quaternion[] {
  return ik.skeleton.bones.map((b) => {
    const n = b.getTransformNode();
    if (n === null) return Quaternion.Identity();
    n.computeWorldMatrix(true);
    return n.absoluteRotationQuaternion.clone();
  });
}

/** The largest turn of any bone between two frames after the first (°), dragging the body 0.1 h to the side. */
async function sideDrag(name: "Xbot" | "Soldier"): Promise<number> {
  const m = await load(name);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const h = height(m);
  const s = ik.solver;
  const r = ik.references;
  pinFeetWhereTheyStand(ik);
  const forward = worldPos(r.leftFoot.children[0]!).subtract(worldPos(r.leftFoot));
  const side = Vector3.Cross(Vector3.Up(), new Vector3(forward.x, 0, forward.z)).normalize();
  const start = worldPos(s.bodyEffector.bone!);
  s.bodyEffector.positionWeight = 1;
  let last: Quaternion[] = [];
  let most = 0;
  for (let f = 1; f <= FRAMES; f++) {
    start.addToRef(side.scale(0.002 * f * h), s.bodyEffector.position);
    m.scene.render();
    const now = rotations(ik);
    // the first frame is the pins taking hold
    if (f > 1)
      for (let i = 0; i < now.length; i++)
        most = Math.max(most, 2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(now[i]!, last[i]!)))) * DEG);
    last = now;
  }
  disposeOpen();
  return most;
}

describe("adaptive iterations keep the pose continuous as their count changes", () => {
  for (const name of ["Xbot", "Soldier"] as const)
    it.skipIf(!modelAvailable(name))(`${name} at rest, body dragged sideways from pinned feet`, async () => {
      const most = await sideDrag(name);
      report(`${name} side drag, largest bone turn a frame (°)`, most);
      // measured: Xbot 1.52°, Soldier 1.21° (8.06° and 6.87° while met effectors stopped the loop with the
      // shoulders still moving; 3.16° and 4.21° when they waited for 100 × the tolerance)
      expect(most).toBeLessThan(2.5);
    });
});
