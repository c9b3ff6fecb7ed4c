/**
 * hit: a click on the chest or the head throws a ball there. It flies in on an arc (with a trail) for 0.7 s;
 * at the impact a flash, the model's Hit_Chest / Hit_Head clip when it has one, and HitReaction on top: the
 * body, shoulders and head are pushed along the ball's path while the feet stay planted (their effectors
 * pinned). Without clicks a ball comes every few seconds. The test hook's `control("auto", false)` stops
 * the automatic throws; a click's hit is measured (peak displacement of pelvis, chest, head and shoulders
 * from the pose before the impact, the IK's share of it over the animation, what is left after).
 */
import { PointerEventTypes, type PointerInfo } from "@babylonjs/core/Events/pointerEvents";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { Curve } from "../../../src/math/curve";
import { HitPointBone, HitPointEffector, HitReaction } from "../../../src/effectors/modifiers/index";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import { type Ctx, type Json, type KeyBone, type Scenario, type ScenarioRun, arr, bonePos, keyBone } from "../kit";
import { frameCamera, playClip } from "../kit";
import { OneShot } from "../one-shot";
import { ThrownBall } from "../props/ball";

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  playClip(c, "Idle_Loop");
  // "still" (a test hook command) holds the looping animation while the script and the hits go on
  let still = false;
  const oneShot = new OneShot(c, () => ctx.paused() || still);
  // invisible boxes on the chest and the head: what a click picks, and the hit points' colliders
  const collider = (name: string, size: number): Mesh => {
    const box = CreateBox(name, { size }, scene);
    box.visibility = 0;
    return box;
  };
  const chest = collider("chest collider", 0.3 * h);
  const head = collider("head collider", 0.25 * h);
  const follow = () => {
    chest.position.copyFrom(bonePos(keyBone(c, "chest")));
    head.position.copyFrom(bonePos(keyBone(c, "head"))).addInPlaceFromFloats(0, 0.08 * h, 0);
  };
  follow();
  const E = FullBodyBipedEffector;
  // a strong push (0 → 1 at 0.12 s → 0 at 0.7 s) and a spine bend of up to 12°
  const push = new Curve([
    { time: 0, value: 0 },
    { time: 0.12, value: 1, inTangent: 0, outTangent: 0 },
    { time: 0.7, value: 0, inTangent: 0, outTangent: 0 },
  ]);
  const bend = new Curve([
    { time: 0, value: 0 },
    { time: 0.12, value: 12, inTangent: 0, outTangent: 0 },
    { time: 0.7, value: 0, inTangent: 0, outTangent: 0 },
  ]);
  const hr = new HitReaction(ik, {
    effectorHitPoints: [
      new HitPointEffector({
        collider: chest,
        offsetInForceDirection: push,
        effectorLinks: [
          { effector: E.Body },
          { effector: E.LeftShoulder },
          { effector: E.RightShoulder },
          { effector: E.LeftHand, weight: 0.5 },
          { effector: E.RightHand, weight: 0.5 },
        ],
      }),
      new HitPointEffector({
        collider: head,
        offsetInForceDirection: push,
        effectorLinks: [{ effector: E.Body, weight: 0.3 }, { effector: E.LeftShoulder }, { effector: E.RightShoulder }],
      }),
    ],
    boneHitPoints: [
      new HitPointBone({
        collider: chest,
        aroundCenterOfMass: bend,
        boneLinks: [{ bone: r.spine[0]! }, { bone: keyBone(c, "chest"), weight: 0.5 }],
      }),
      new HitPointBone({ collider: head, aroundCenterOfMass: bend, boneLinks: [{ bone: keyBone(c, "head") }] }),
    ],
  });
  // the feet stay where the animation first put them (effectors pinned there)
  const feet = [ik.solver.leftFootEffector, ik.solver.rightFootEffector];
  const footBones = [r.leftFoot, r.rightFoot];
  let footRest: Vector3[] | null = null;

  // the ball: thrown at the chest or the head; at the impact the clip, HitReaction along the ball's path
  const ball = new ThrownBall(scene, ctx.shadows, h);
  let target: Mesh = chest;
  const throwAt = (at: Mesh, point: Vector3, dir: Vector3) => {
    target = at;
    ball.throwAt(point, dir);
  };
  let k = 0;
  const autoThrow = () => {
    // from the front, the right, the left, then at the head
    const dirs = [forward.scale(-1), right.scale(-1).add(forward.scale(-0.5)), right.add(forward.scale(-0.5))];
    const at = k % 4 === 3 ? head : chest;
    const dir = dirs[k % 4] ?? forward.scale(-1);
    throwAt(at, at.position.subtract(dir.normalizeToNew().scale(0.1 * h)), dir);
    k++;
  };
  let clicked = false;
  const pointer = scene.onPointerObservable.add((pi: PointerInfo) => {
    if (pi.type !== PointerEventTypes.POINTERPICK) return;
    const pick = pi.pickInfo;
    if (pick?.hit !== true || pick.pickedPoint === null || pick.ray === null) return;
    if (pick.pickedMesh !== chest && pick.pickedMesh !== head) return;
    clicked = true;
    throwAt(pick.pickedMesh === chest ? chest : head, pick.pickedPoint, pick.ray.direction);
  });

  let wait = 0.8;
  let auto = true;
  // bones whose displacement shows the hit; a click's hit: peak displacement from the pose before the impact,
  // the IK's share (solved − animation-only), then the recovery
  const watched: KeyBone[] = ["pelvis", "chest", "head", "leftShoulder", "rightShoulder"];
  let last = watched.map((b) => bonePos(keyBone(c, b)));
  // the IK's share (solved − animation-only) per watched bone last frame: the pinned feet's own share is not the hit's
  let lastShare = watched.map(() => Vector3.Zero());
  let measure: {
    base: Vector3[];
    baseShare: Vector3[];
    feet: Vector3[];
    peak: number;
    peakIK: number;
    feetDrift: number;
  } | null = null;
  let frames = 0;
  let after = 0;
  const clicks: Json[] = [];
  let displacement = 0;
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      chest: arr(bonePos(keyBone(c, "chest"))),
      chestCollider: arr(chest.position),
      inProgress: hr.inProgress,
      flying: ball.phase === "flight",
      clip: oneShot.playing,
      displacement,
      clicks: clicks.length,
      height: h,
    }),
    control: (cmd, arg) => {
      if (cmd === "still") {
        still = arg === true;
        const loop = c.clip >= 0 ? c.clips[c.clip] : c.idle;
        if (!oneShot.playing && loop !== null && loop !== undefined) {
          if (still) loop.pause();
          else if (!ctx.paused()) loop.play(true);
        }
        return still;
      }
      if (cmd === "auto") auto = arg === true;
      return auto;
    },
    update: (dt) => {
      follow();
      if (footRest === null) {
        footRest = footBones.map(bonePos);
        feet.forEach((e, i) => {
          e.position.copyFrom(footRest![i]!);
          e.positionWeight = 1;
        });
      }
      const flying = ball.phase !== "none";
      if (ball.update(dt)) {
        if (clicked) {
          measure = {
            base: last.map((v) => v.clone()),
            baseShare: lastShare.map((v) => v.clone()),
            feet: footBones.map(bonePos),
            peak: 0,
            peakIK: 0,
            feetDrift: 0,
          };
          frames = 0;
          after = 0;
        }
        clicked = false;
        oneShot.play(target === head ? "Hit_Head" : "Hit_Chest");
        hr.hit(target, ball.direction.scale(0.12 * h), ball.to);
      }
      // the next automatic throw 1.8 s after the ball is gone
      if (flying && ball.phase === "none") wait = 1.8;
      if (ball.phase === "none" && auto && (wait -= dt) <= 0) autoThrow();
    },
    after: () => {
      // after this frame's solve
      const now = watched.map((b) => bonePos(keyBone(c, b)));
      const share = watched.map((b, i) => {
        const a = c.animated[b];
        return a === undefined ? Vector3.Zero() : now[i]!.subtract(a);
      });
      const m = measure;
      if (m !== null && footRest !== null) {
        displacement = Math.max(...now.map((p, i) => Vector3.Distance(p, m.base[i]!)));
        m.peak = Math.max(m.peak, displacement);
        // the hit's share: the IK's over the animation beyond what it was the frame before the impact
        const ikShare = share.map((v, i) => Vector3.Distance(v, m.baseShare[i]!));
        m.peakIK = Math.max(m.peakIK, ...ikShare);
        m.feetDrift = Math.max(m.feetDrift, ...footBones.map((b, i) => Vector3.Distance(bonePos(b), m.feet[i]!)));
        frames++;
        if (!hr.inProgress && !oneShot.playing) after++;
        // recovered: a few frames after the reaction's curves and the clip ended
        if (after >= 5) {
          const residualIK = Math.max(...ikShare);
          const { peak, peakIK, feetDrift } = m;
          clicks.push({ peak, peakIK, feetDrift, residual: displacement, residualIK, frames, height: h });
          run.checks = { clicks };
          run.done = true;
          measure = null;
        }
      }
      last = now;
      lastShare = share;
    },
    dispose: () => {
      scene.onPointerObservable.remove(pointer);
      oneShot.dispose();
      hr.dispose();
    },
  };
  frameCamera(ctx, c, new Vector3(0, 0.65 * h, 0), 3.6 * h, 0.9, 1);
  return run;
}

export const hit: Scenario = {
  name: "hit",
  title: "Hit reaction",
  help:
    "Click the chest or the head to throw a ball there: HitReaction pushes the body along its path on top of " +
    "the hit clip, while the feet stay planted.",
  build,
};
