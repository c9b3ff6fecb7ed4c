/**
 * hit: HitReaction (an OffsetModifier) on the Mannequin. Every 1.6 s, or on a click on the character's
 * chest or head, a ball hits: the body, shoulders and head recoil along the hit while the feet stay
 * planted (their effectors pinned).
 */
import type { PointerInfo } from "@babylonjs/core/Events/pointerEvents";
import { PointerEventTypes } from "@babylonjs/core/Events/pointerEvents";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { HitPointBone, HitPointEffector, HitReaction } from "../../src/effectors/modifiers/index";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones";
import { type Ctx, type ScenarioRun, bonePos, frameCamera } from "./scenarios";

export async function hit(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const chestBone = r.spine[r.spine.length - 1]!;
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
    if (r.head !== null && r.head !== undefined) head.position.copyFrom(bonePos(r.head).add(new Vector3(0, 0.15 * h, 0)));
  };
  follow();
  const E = FullBodyBipedEffector;
  const hr = new HitReaction(ik, {
    effectorHitPoints: [
      new HitPointEffector({
        collider: chest,
        effectorLinks: [{ effector: E.Body }, { effector: E.LeftShoulder }, { effector: E.RightShoulder }, { effector: E.LeftHand, weight: 0.4 }, { effector: E.RightHand, weight: 0.4 }],
      }),
      new HitPointEffector({
        collider: head,
        effectorLinks: [{ effector: E.Body, weight: 0.4 }, { effector: E.LeftShoulder }, { effector: E.RightShoulder }],
      }),
    ],
    boneHitPoints: [new HitPointBone({ collider: chest, boneLinks: [{ bone: r.spine[0]! }, { bone: chestBone, weight: 0.5 }] })],
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
    const dirs = [forward.scale(-1), right.scale(-1).add(forward.scale(-0.3)), right.add(forward.scale(-0.3)), forward.scale(-1)];
    const target = k % 4 === 3 ? head : chest;
    const dir = dirs[k % 4]!;
    const p = target.position.add(dir.normalizeToNew().scale(-0.12 * h));
    throwAt(target, p, dir);
    k++;
  };
  const pointer = scene.onPointerObservable.add((pi: PointerInfo) => {
    if (pi.type !== PointerEventTypes.POINTERPICK) return;
    const pick = pi.pickInfo;
    if (pick?.hit !== true || pick.pickedPoint === null || (pick.pickedMesh !== chest && pick.pickedMesh !== head) || pick.ray === null) return;
    throwAt(pick.pickedMesh as Mesh, pick.pickedPoint, pick.ray.direction);
  });
  let wait = 0.6;
  let hits = 0;
  let worstFoot = 0;
  let bodyMoved = 0;
  const pelvisRest = bonePos(r.pelvis);
  let frames = 0;
  let sinceHit = 0;
  const run: ScenarioRun = {
    result: null,
    probe: () => {
      const p = bonePos(r.leftFoot);
      return { label: "left foot", bone: [p.x, p.y, p.z], target: [footRest[0]!.x, footRest[0]!.y, footRest[0]!.z], height: h };
    },
    update: (dt) => {
      frames++;
      sinceHit += dt;
      follow();
      // feet on their effectors while the body is hit (last frame's solve)
      if (hr.inProgress) {
        footBones.forEach((b, i) => (worstFoot = Math.max(worstFoot, Vector3.Distance(bonePos(b), footRest[i]!))));
        bodyMoved = Math.max(bodyMoved, Vector3.Distance(bonePos(r.pelvis), pelvisRest));
      }
      const f = flight as { from: Vector3; to: Vector3; t: number; target: Mesh; force: Vector3 } | null;
      if (f !== null) {
        f.t += dt / 0.35;
        Vector3.LerpToRef(f.from, f.to, Math.min(1, f.t), ball.position);
        if (f.t >= 1) {
          hr.hit(f.target, f.force, f.to);
          hits++;
          sinceHit = 0;
          flight = null;
          ball.setEnabled(false);
          wait = 1.6;
        }
      } else {
        wait -= dt;
        if (wait <= 0) autoThrow();
      }
      // measured (and screenshot by the e2e test) near the peak of the second hit
      if (run.result === null && hits >= 2 && sinceHit > 0.1 && hr.inProgress) {
        run.result = {
          label: `hit: worst foot drift from its planted position during ${hits} hits (pelvis moved up to ${(bodyMoved / h * 100).toFixed(1)} % of h)`,
          distance: worstFoot,
          height: h,
          // a hit that did not move the body fails the check
          ratio: bodyMoved > 0.005 * h ? worstFoot / h : 1,
          tolerance: 0.01,
        };
      }
    },
    dispose: () => {
      scene.onPointerObservable.remove(pointer);
      hr.dispose();
    },
  };
  frameCamera(ctx, c, new Vector3(0, 0.7 * h, 0), 3.6 * h, 0.8, 1);
  return run;
}
