/**
 * hit: a click on the chest or the head throws a ball there. It flies in on an arc (with a trail) for 0.7 s;
 * at the impact a flash, the model's Hit_Chest / Hit_Head clip when it has one, and HitReaction on top: the
 * body, shoulders and head are pushed along the ball's path while the feet stay planted (their effectors
 * pinned). Without clicks a ball comes every few seconds. The test hook's `control("auto", false)` stops
 * the automatic throws; a click's hit is measured (peak displacement of pelvis, chest, head and shoulders
 * from the pose before the impact, the IK's share of it over the animation, what is left after).
 */
import { PointerEventTypes, type PointerInfo } from "@babylonjs/core/Events/pointerEvents";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { TrailMesh } from "@babylonjs/core/Meshes/trailMesh";
import { Curve } from "../../../src/effectors/curve";
import { HitPointBone, HitPointEffector, HitReaction } from "../../../src/effectors/modifiers/index";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import { type Ctx, type Json, type KeyBone, type Scenario, type ScenarioRun, arr, bonePos, keyBone } from "../kit";
import { frameCamera, mat, playClip } from "../kit";
import { OneShot } from "../one-shot";

const FLIGHT = 0.7;

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  playClip(c, "Idle_Loop");
  const oneShot = new OneShot(c, ctx.paused);
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

  // the ball, its trail, and the flash at the impact
  const ball = CreateSphere("ball", { diameter: 0.09 * h, segments: 16 }, scene);
  ball.material = mat(scene, "ball", new Color3(0.95, 0.8, 0.1));
  ball.isPickable = false;
  ctx.shadows.addShadowCaster(ball, false);
  const trail = new TrailMesh("ball trail", ball, scene, { diameter: 0.035 * h, length: 12, autoStart: true });
  const trailMat = mat(scene, "trail", new Color3(1, 0.9, 0.4), 0.45);
  trailMat.emissiveColor = new Color3(1, 0.7, 0.2);
  trail.material = trailMat;
  trail.isPickable = false;
  const flash = CreateSphere("flash", { diameter: 1, segments: 12 }, scene);
  const flashMat = mat(scene, "flash", new Color3(1, 1, 0.8));
  flashMat.emissiveColor = new Color3(1, 0.9, 0.5);
  flashMat.disableLighting = true;
  flash.material = flashMat;
  flash.isPickable = false;
  for (const m of [ball, trail, flash]) m.setEnabled(false);
  let flashT = 1;
  // a throw: from `from` to `to` on an arc; after the impact the ball bounces off and falls
  const from = new Vector3();
  const to = new Vector3();
  const velocity = new Vector3();
  let phase: "none" | "flight" | "bounce" = "none";
  let t = 0;
  let target: Mesh = chest;
  const arc = 0.35 * h;
  const throwAt = (at: Mesh, point: Vector3, dir: Vector3) => {
    const d = new Vector3(dir.x, 0, dir.z).normalize();
    const side = Vector3.Cross(Vector3.Up(), d);
    from
      .copyFrom(point)
      .subtractInPlace(d.scale(2.4 * h))
      .addInPlace(side.scale(0.8 * h));
    to.copyFrom(point);
    target = at;
    t = 0;
    phase = "flight";
    ball.position.copyFrom(from);
    ball.setEnabled(true);
    trail.setEnabled(true);
    trail.reset();
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
  // at the impact: the force along the ball's path (its arc's tangent), the clip, HitReaction, the flash
  const impact = () => {
    const force = to
      .subtract(from)
      .addInPlaceFromFloats(0, -4 * arc, 0)
      .normalize();
    velocity
      .copyFrom(force)
      .scaleInPlace(-0.8 * h)
      .addInPlaceFromFloats(0, 1.2 * h, 0);
    oneShot.play(target === head ? "Hit_Head" : "Hit_Chest");
    hr.hit(target, force.scale(0.12 * h), to);
    flash.position.copyFrom(to);
    flash.setEnabled(true);
    flashT = 0;
  };

  let wait = 0.8;
  let auto = true;
  // bones whose displacement shows the hit; a click's hit: peak displacement from the pose before the impact,
  // the IK's share (solved − animation-only), then the recovery
  const watched: KeyBone[] = ["pelvis", "chest", "head", "leftShoulder", "rightShoulder"];
  let last = watched.map((b) => bonePos(keyBone(c, b)));
  let measure: { base: Vector3[]; feet: Vector3[]; peak: number; peakIK: number; feetDrift: number } | null = null;
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
      flying: phase === "flight",
      clip: oneShot.playing,
      displacement,
      clicks: clicks.length,
      height: h,
    }),
    control: (cmd, arg) => {
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
      if (phase === "flight") {
        t = Math.min(1, t + dt / FLIGHT);
        Vector3.LerpToRef(from, to, t, ball.position);
        ball.position.y += arc * 4 * t * (1 - t);
        if (t >= 1) {
          if (clicked) {
            measure = {
              base: last.map((v) => v.clone()),
              feet: footBones.map(bonePos),
              peak: 0,
              peakIK: 0,
              feetDrift: 0,
            };
            frames = 0;
            after = 0;
          }
          clicked = false;
          impact();
          phase = "bounce";
          t = 0;
        }
      } else if (phase === "bounce") {
        t += dt;
        velocity.y -= 9.8 * (h / 1.75) * dt;
        ball.position.addInPlace(velocity.scale(dt));
        if (t > 1) {
          phase = "none";
          ball.setEnabled(false);
          trail.setEnabled(false);
          wait = 1.8;
        }
      } else if (auto) {
        wait -= dt;
        if (wait <= 0) autoThrow();
      }
      flashT = Math.min(1, flashT + dt / 0.3);
      flash.scaling.setAll(0.05 * h + 0.35 * h * flashT);
      flashMat.alpha = 0.8 * (1 - flashT);
      if (flashT >= 1) flash.setEnabled(false);
    },
    after: () => {
      // after this frame's solve
      const now = watched.map((b) => bonePos(keyBone(c, b)));
      const m = measure;
      if (m !== null && footRest !== null) {
        displacement = Math.max(...now.map((p, i) => Vector3.Distance(p, m.base[i]!)));
        m.peak = Math.max(m.peak, displacement);
        const ikShare = watched.map((b, i) => {
          const a = c.animated[b];
          return a === undefined ? 0 : Vector3.Distance(now[i]!, a);
        });
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
