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
import { Random } from "../helpers/random.js";

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
      // measured: Xbot 1.34°, Soldier 1.21° (8.06° and 6.87° while met effectors stopped the loop with the
      // shoulders still moving; 3.16° and 4.21° when they waited for 100 × the free ends' tolerance, 1.52° and 1.21°
      // for 30 ×)
      expect(most).toBeLessThan(2.5);
    });
});

/**
 * The largest bone move between a hand effector at weight 1 and at 1 − 1e-7 (fraction of h), over `cases` seeded
 * hand targets 0.02–0.4 h from the animated hand (either hand, the only effector), and the cases moving over 1e-3 h.
 */
async function weightOneJump(name: "UAL" | "Xbot", cases: number): Promise<{ worst: number; popped: number }> {
  const m = await load(name);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const h = height(m);
  const s = ik.solver;
  const hands = [s.leftHandEffector, s.rightHandEffector];
  const animated = hands.map((e) => worldPos(e.bone!));
  const pose = () => m.skeleton.bones.map((b) => worldPos(b));
  const r = new Random(35);
  let worst = 0;
  let popped = 0;
  for (let c = 0; c < cases; c++) {
    const k = r.int(2);
    const d = r.unitVector();
    const dist = r.range(0.02, 0.4) * h;
    hands[k]!.position.set(animated[k]!.x + d.x * dist, animated[k]!.y + d.y * dist, animated[k]!.z + d.z * dist);
    hands[k]!.positionWeight = 1;
    m.scene.render();
    const one = pose();
    hands[k]!.positionWeight = 1 - 1e-7;
    m.scene.render();
    const below = pose();
    hands[k]!.positionWeight = 0;
    let move = 0;
    for (let i = 0; i < one.length; i++) move = Math.max(move, Vector3.Distance(one[i]!, below[i]!) / h);
    worst = Math.max(worst, move);
    if (move > 1e-3) popped++;
  }
  disposeOpen();
  return { worst, popped };
}

describe("adaptive iterations do not depend on a weight being exactly 1", () => {
  for (const name of ["UAL", "Xbot"] as const)
    it.skipIf(!modelAvailable(name))(`${name}: a hand at weight 1 and at 1 − 1e-7 poses alike`, async () => {
      const { worst, popped } = await weightOneJump(name, 100);
      report(`${name} weight 1 vs 1 - 1e-7, largest bone move (h), cases over 1e-3 h`, worst, popped);
      // measured: UAL 2.3e-7 h, Xbot 2.0e-7 h (the weight's own 1e-7); while met full-weight effectors ended the
      // loop: 3.2e-3 h and 6.1e-3 h, 10 of 100 cases each over 1e-3 h (the body and shoulders stopped mid-way)
      expect(worst).toBeLessThan(1e-5);
    });
});
