/**
 * With preserveBoneLengths the pelvis turns toward feet beyond their legs' reach (solver/rigid-pelvis.ts); that turn
 * must follow smoothly changing targets smoothly. Xbot (when ../shared/assets/models has it), feet pinned where they
 * stand, the body effector eased 0.2 h back: the turn grows as the feet go out of reach, and its largest step a
 * frame halves when the ease takes twice as long (a continuous pose). The Mannequin in the VR recipe (feet pinned,
 * hands on controllers), the headset raised and moved aside, the head effector faded out: the hips turn a frame no
 * more than 1.5 × FinalIK's mapping (preserveBoneLengths false) turns them. Feet that no turn brings within reach
 * (the body 0.2 h back) leave the hips near the pose. Xbot dragged aside far past what any turn brings the feet to: the
 * hips turn less than 1° a frame.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { modelAvailable } from "../helpers/babylon-scene.js";
import { disposeOpen, height, load, pinFeetWhereTheyStand, report, worldPos } from "../helpers/modifier-scene.js";

afterEach(disposeOpen);

const DEG = 180 / Math.PI;

/** The pelvis bone's world rotation, read fresh. */
function pelvisRotation(ik: FullBodyBipedIK): Quaternion {
  const node = ik.references.pelvis.getTransformNode()!;
  node.computeWorldMatrix(true);
  return node.absoluteRotationQuaternion.clone();
}

/** The angle between two rotations, degrees. */
function turned(a: Quaternion, b: Quaternion): number {
  return 2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(a, b)))) * DEG;
}

/** Renders `frames` frames, `move(frame)` before each (from 1), and disposes: the pelvis's largest turn a frame (°). */
function largestStep(ik: FullBodyBipedIK, frames: number, move: (frame: number) => void): number {
  let last = pelvisRotation(ik);
  let most = 0;
  for (let f = 1; f <= frames; f++) {
    move(f);
    ik.skeleton.getScene().render();
    const q = pelvisRotation(ik);
    most = Math.max(most, turned(q, last));
    last = q;
  }
  disposeOpen();
  return most;
}

/** The character's forward on the ground: from the heels to the toes. */
function forwardOf(ik: FullBodyBipedIK): Vector3 {
  const f = new Vector3();
  for (const foot of [ik.references.leftFoot, ik.references.rightFoot])
    f.addInPlace(worldPos(foot.children[0]!).subtract(worldPos(foot)));
  f.y = 0;
  return f.normalize();
}

/** A model, feet pinned where they stand, the body effector pulled 0.2 h back by `ease(t)` (0…1) at `move(t)`. */
async function pinnedFeet(name: "Xbot" | "Mannequin", preserve: boolean) {
  const m = await load(name);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  ik.solver.preserveBoneLengths = preserve;
  m.scene.render();
  const h = height(m);
  const s = ik.solver;
  pinFeetWhereTheyStand(ik);
  const start = worldPos(s.bodyEffector.bone!);
  const back = forwardOf(ik).scale(-0.2 * h);
  s.bodyEffector.positionWeight = 1;
  const move = (t: number) => start.addToRef(back.scale(t * t * (3 - 2 * t)), s.bodyEffector.position);
  return { ik, h, move };
}

/** Xbot, feet pinned, the body effector eased 0.2 h back over `frames`: the pelvis's largest turn a frame (°). */
async function pullBack(preserve: boolean, frames: number): Promise<number> {
  const { ik, move } = await pinnedFeet("Xbot", preserve);
  return largestStep(ik, frames, (f) => move(f / frames));
}

/**
 * Xbot, feet pinned, the body effector dragged sideways 0.002 h a frame to 0.3 h (past what any turn brings the feet
 * to): the pelvis's largest turn a frame (°).
 */
async function dragAside(): Promise<number> {
  const { ik, h } = await pinnedFeet("Xbot", true);
  const body = ik.solver.bodyEffector;
  const start = worldPos(body.bone!);
  const aside = Vector3.Cross(Vector3.Up(), forwardOf(ik)).scale(0.002 * h);
  return largestStep(ik, 150, (f) => start.addToRef(aside.scale(f), body.position));
}

/** The Mannequin, feet pinned, the body effector raised 0.002 h a frame to 0.2 h: the pelvis's largest turn a frame (°). */
async function liftUp(): Promise<number> {
  const { ik, h } = await pinnedFeet("Mannequin", true);
  const body = ik.solver.bodyEffector;
  const start = body.position.clone();
  return largestStep(ik, 100, (f) => start.addToRef(new Vector3(0, 0.002 * f * h, 0), body.position));
}

/** The body effector 0.2 h back from pinned feet: the pelvis's turn from the pose (°) and the feet's worst miss (% h). */
async function pulledBack(name: "Xbot" | "Mannequin"): Promise<{ turn: number; miss: number }> {
  const { ik, h, move } = await pinnedFeet(name, true);
  const animated = pelvisRotation(ik);
  move(1);
  ik.skeleton.getScene().render();
  const s = ik.solver;
  const r = ik.references;
  const miss = Math.max(
    worldPos(r.leftFoot).subtract(s.leftFootEffector.position).length(),
    worldPos(r.rightFoot).subtract(s.rightFootEffector.position).length(),
  );
  const turn = turned(pelvisRotation(ik), animated);
  disposeOpen();
  return { turn, miss: (100 * miss) / h };
}

/**
 * The Mannequin in API.md's VR recipe, the headset raised 0.05 h and moved 0.1 h aside with the controllers (the
 * legs at full reach), then the head effector faded out (0.3 s): the pelvis's largest turn a frame (°).
 */
async function vrFadeOut(preserve: boolean): Promise<number> {
  const m = await load("Mannequin");
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  ik.solver.preserveBoneLengths = preserve;
  m.scene.render();
  const r = ik.references;
  const s = ik.solver;
  const h = worldPos(r.head!).y - (worldPos(r.leftFoot).y + worldPos(r.rightFoot).y) / 2;
  const forward = forwardOf(ik);
  const node = (bone: Bone, offset: Vector3): TransformNode => {
    const t = new TransformNode(bone.name, m.scene);
    t.position.copyFrom(worldPos(bone).add(offset));
    t.rotationQuaternion = bone.getTransformNode()!.absoluteRotationQuaternion.clone();
    return t;
  };
  const moved = Vector3.Cross(Vector3.Up(), forward)
    .scale(0.1 * h)
    .addInPlaceFromFloats(0, 0.05 * h, 0);
  const held = forward
    .scale(0.2 * h)
    .addInPlaceFromFloats(0, -0.15 * h, 0)
    .addInPlace(moved);
  const head = FBBIKHeadEffector.create(ik, {
    target: node(r.head!, moved),
    bodyWeight: 0.8,
    headClampWeight: 0,
    handsPullBody: false,
  });
  for (const [e, bone, offset] of [
    [s.leftHandEffector, r.leftHand, held],
    [s.rightHandEffector, r.rightHand, held],
    [s.leftFootEffector, r.leftFoot, Vector3.Zero()],
    [s.rightFootEffector, r.rightFoot, Vector3.Zero()],
  ] as const) {
    e.target = node(bone, offset);
    e.positionWeight = e.rotationWeight = 1;
  }
  for (let f = 0; f < 30; f++) m.scene.render();
  head.weight = 0;
  return largestStep(ik, 30, () => {});
}

describe("the pelvis turn toward feet beyond reach moves smoothly (preserveBoneLengths)", () => {
  it.skipIf(!modelAvailable("Xbot"))(
    "Xbot pulled back from pinned feet: no jump, steps halve at half speed",
    async () => {
      const fast = await pullBack(true, 60);
      const slow = await pullBack(true, 120);
      report("Xbot pelvis step, 60 / 120 frames (°)", fast, slow);
      // measured: 1.49° and 0.75° (before the damping: 54.1° and 55.7°, the Gauss–Newton steps ending anywhere)
      expect(fast).toBeLessThan(2.5);
      expect(slow).toBeLessThan(0.6 * fast);
    },
  );

  it("feet no turn brings within reach: the hips stay near the pose (Mannequin, Xbot pulled 0.2 h back)", async () => {
    for (const name of ["Mannequin", "Xbot"] as const) {
      if (!modelAvailable(name)) continue;
      const { turn, miss } = await pulledBack(name);
      report(`${name} pulled back: pelvis turn (°), feet's miss (% h)`, turn, miss);
      // measured: Mannequin 0.8° and 4.98 % h, Xbot 4.7° and 2.94 % h (the turn kept whole: 26.7° for 4.23 % h,
      // 30.4° for 2.53 %; no turn toward the feet at all: 3.8° for 5.26 %, 4.9° for 3.65 %)
      expect(turn).toBeLessThan(10);
      expect(miss).toBeLessThan(name === "Mannequin" ? 5.26 : 3.65);
    }
  });

  it("the Mannequin lifted from pinned feet: the hips do not jump when the turn's steps stall", async () => {
    const most = await liftUp();
    report("Mannequin lifted 0.2 h, pelvis step (°)", most);
    // measured: 0.34° (1.77° at 0.118 h and 1.68° at 0.148 h while a stalled step skipped the fade)
    expect(most).toBeLessThan(1);
  });

  it.skipIf(!modelAvailable("Xbot"))(
    "Xbot dragged aside from pinned feet: the turn's steps do not alternate into a jump of the hips",
    async () => {
      const most = await dragAside();
      report("Xbot dragged 0.3 h aside, pelvis step (°)", most);
      // measured: 0.44° (2.76° at 0.200 h and 2.55° at 0.210 h without the legs' curvature in the steps' equations:
      // Gauss–Newton's steps grew and alternated in sign, and the twelfth ended on either side)
      expect(most).toBeLessThan(1);
    },
  );

  it("the Mannequin's hips as the VR head effector fades out: within 1.5 × FinalIK's mapping's steps", async () => {
    const kept = await vrFadeOut(true);
    const finalIK = await vrFadeOut(false);
    report("Mannequin pelvis step, kept / FinalIK's (°)", kept, finalIK);
    // measured: 1.11° and 0.90° (before the damping: 24.4°)
    expect(finalIK).toBeLessThan(1.05);
    expect(kept).toBeLessThan(1.5 * finalIK);
  });
});
