/**
 * hit: HitReaction (an OffsetModifier) on the Mannequin. A ball is thrown 1.6 s after the last impact and
 * flies 0.35 s (a hit about every 1.95 s), or one is thrown at a click on the character's chest or head:
 * the body, shoulders and head recoil along the hit while the feet stay planted (their effectors pinned).
 * The test hook's `control("auto", false)` stops the automatic throws; a click's hit is measured (peak
 * displacement of pelvis, chest, head and shoulders from the pose before the impact, then what is left
 * after the reaction).
 */
import type { PointerInfo } from "@babylonjs/core/Events/pointerEvents";
import { PointerEventTypes } from "@babylonjs/core/Events/pointerEvents";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { HitPointBone, HitPointEffector, HitReaction } from "../../../src/effectors/modifiers/index";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import { type Ctx, type Json, type ScenarioRun, arr, bonePos, frameCamera, type Scenario } from "../kit";

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const chestBone = r.spine[r.spine.length - 1]!;
  const headBone = r.head ?? null;
  // colliders: invisible boxes that follow the chest and the head (picking targets)
  const collider = (name: string, size: number): Mesh => {
    const box = CreateBox(name, { size }, scene);
    box.visibility = 0;
    box.isPickable = true;
    return box;
  };
  const chest = collider("chest collider", 0.3 * h);
  const head = collider("head collider", 0.4 * h);
  const follow = () => {
    chest.position.copyFrom(bonePos(chestBone));
    if (headBone !== null) head.position.copyFrom(bonePos(headBone).add(new Vector3(0, 0.15 * h, 0)));
  };
  follow();
  const E = FullBodyBipedEffector;
  const hr = new HitReaction(ik, {
    effectorHitPoints: [
      new HitPointEffector({
        collider: chest,
        effectorLinks: [
          { effector: E.Body },
          { effector: E.LeftShoulder },
          { effector: E.RightShoulder },
          { effector: E.LeftHand, weight: 0.4 },
          { effector: E.RightHand, weight: 0.4 },
        ],
      }),
      new HitPointEffector({
        collider: head,
        effectorLinks: [{ effector: E.Body, weight: 0.4 }, { effector: E.LeftShoulder }, { effector: E.RightShoulder }],
      }),
    ],
    boneHitPoints: [
      new HitPointBone({ collider: chest, boneLinks: [{ bone: r.spine[0]! }, { bone: chestBone, weight: 0.5 }] }),
    ],
  });
  // the feet stay where they stand
  const feet = [ik.solver.leftFootEffector, ik.solver.rightFootEffector];
  const footBones = [r.leftFoot, r.rightFoot];
  const footRest = footBones.map(bonePos);
  feet.forEach((e, i) => {
    e.position.copyFrom(footRest[i]!);
    e.positionWeight = 1;
  });
  // the ball: flies in along the hit direction
  const ballMat = new StandardMaterial("ball", scene);
  ballMat.diffuseColor = new Color3(0.95, 0.85, 0.2);
  ballMat.emissiveColor = new Color3(0.3, 0.25, 0);
  const ball = CreateSphere("ball", { diameter: 0.06 * h, segments: 10 }, scene);
  ball.material = ballMat;
  ball.isPickable = false;
  ball.setEnabled(false);
  ctx.shadows.addShadowCaster(ball, false);
  let flight: { from: Vector3; to: Vector3; t: number; target: Mesh; force: Vector3 } | null = null;
  const strength = 0.12 * h;
  const throwAt = (target: Mesh, point: Vector3, dir: Vector3) => {
    const d = dir.normalizeToNew();
    flight = { from: point.subtract(d.scale(1.5 * h)), to: point, t: 0, target, force: d.scale(strength) };
    ball.setEnabled(true);
  };
  let k = 0;
  const autoThrow = () => {
    // alternate: from the front, from the right, from the left, at the head
    const dirs = [
      forward.scale(-1),
      right.scale(-1).add(forward.scale(-0.3)),
      right.add(forward.scale(-0.3)),
      forward.scale(-1),
    ];
    const target = k % 4 === 3 ? head : chest;
    const dir = dirs[k % 4]!;
    const p = target.position.add(dir.normalizeToNew().scale(-0.12 * h));
    throwAt(target, p, dir);
    k++;
  };
  const pointer = scene.onPointerObservable.add((pi: PointerInfo) => {
    if (pi.type !== PointerEventTypes.POINTERPICK) return;
    const pick = pi.pickInfo;
    if (
      pick?.hit !== true ||
      pick.pickedPoint === null ||
      (pick.pickedMesh !== chest && pick.pickedMesh !== head) ||
      pick.ray === null
    )
      return;
    clicked = true;
    throwAt(pick.pickedMesh as Mesh, pick.pickedPoint, pick.ray.direction);
  });
  let wait = 0.6;
  let auto = true;
  // bones whose displacement shows the hit, and the feet (which should stay planted)
  const watched = [r.pelvis, chestBone, ...(headBone !== null ? [headBone] : []), r.leftUpperArm, r.rightUpperArm];
  let last: Vector3[] = watched.map(bonePos);
  // a click's hit: displacement from the pose just before the impact, its peak, then the recovery
  let clickHit: {
    base: Vector3[];
    feet: Vector3[];
    peak: number;
    peakFeet: number;
    frames: number;
    after: number;
    point: Vector3;
  } | null = null;
  const clicks: Json[] = [];
  let displacement = 0;
  let clicked = false;
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      chest: arr(bonePos(chestBone)),
      head: headBone !== null ? arr(bonePos(headBone)) : null,
      chestCollider: arr(chest.position),
      inProgress: hr.inProgress,
      flying: flight !== null,
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
      const f = flight;
      if (f !== null) {
        f.t += dt / 0.35;
        Vector3.LerpToRef(f.from, f.to, Math.min(1, f.t), ball.position);
        if (f.t >= 1) {
          if (clicked)
            clickHit = {
              base: last.map((v) => v.clone()),
              feet: footBones.map(bonePos),
              peak: 0,
              peakFeet: 0,
              frames: 0,
              after: 0,
              point: f.to.clone(),
            };
          clicked = false;
          hr.hit(f.target, f.force, f.to);
          flight = null;
          ball.setEnabled(false);
          wait = 1.6;
        }
      } else if (auto) {
        wait -= dt;
        if (wait <= 0) autoThrow();
      }
    },
    after: () => {
      // after this frame's solve
      const now = watched.map(bonePos);
      const hc = clickHit;
      if (hc !== null) {
        displacement = Math.max(...now.map((p, i) => Vector3.Distance(p, hc.base[i]!)));
        hc.peak = Math.max(hc.peak, displacement);
        hc.peakFeet = Math.max(hc.peakFeet, ...footBones.map((b, i) => Vector3.Distance(bonePos(b), hc.feet[i]!)));
        hc.frames++;
        if (!hr.inProgress) hc.after++;
        // recovered: a few frames after the reaction's curves ended
        if (hc.after >= 5) {
          clicks.push({
            peak: hc.peak,
            residual: displacement,
            feetDrift: hc.peakFeet,
            frames: hc.frames,
            point: arr(hc.point),
            height: h,
          });
          run.checks = { clicks };
          run.done = true;
          clickHit = null;
        }
      }
      last = now;
    },
    dispose: () => {
      scene.onPointerObservable.remove(pointer);
      hr.dispose();
    },
  };
  frameCamera(ctx, c, new Vector3(0, 0.7 * h, 0), 3.6 * h, 0.8, 1);
  return run;
}

export const hit: Scenario = {
  name: "hit",
  title: "Hit",
  help: "HitReaction: click the chest or the head to throw a ball; the body recoils, the feet stay planted.",
  build,
};
