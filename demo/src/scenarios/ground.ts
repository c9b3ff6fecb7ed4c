/** Ground: the character walks in place while it slides slowly across steps and a ramp (GrounderFBBIK) */
import { Animation } from "@babylonjs/core/Animations/animation";
import { AnimationGroup } from "@babylonjs/core/Animations/animationGroup";
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Scene } from "@babylonjs/core/scene";
import { GrounderFBBIK } from "../../../src/effectors/grounding/grounder-fbbik";
import { StaticGroundRaycast } from "../../../src/effectors/grounding/static-ground-raycast";
import {
  bonePos,
  type Character,
  type Ctx,
  feetOnSurfaces,
  frameCamera,
  type Json,
  mat,
  type ScenarioRun,
  surfaceAt,
  worldPos,
  type Scenario,
} from "../kit";

/**
 * A walk-in-place: each leg in turn lifts its knee (hip and knee flex about the character's right axis),
 * with a moment of double support between. Keys on the thigh and calf nodes; the turn's order and sign
 * are checked numerically (a mirrored glTF root can flip them).
 */
function walkInPlace(c: Character, scene: Scene, period = 1.2): AnimationGroup {
  const r = c.ik.references;
  const group = new AnimationGroup(`walk ${c.root.name}`, scene);
  const fps = 30;
  const frames = Math.round(period * fps);
  const legs: [Bone, Bone, Bone, number][] = [
    [r.leftThigh, r.leftCalf, r.leftFoot, 0],
    [r.rightThigh, r.rightCalf, r.rightFoot, 0.5],
  ];
  for (const [thigh, calf, foot, offset] of legs) {
    for (const [bone, child, angle, sign] of [
      [thigh, calf, 0.6, 1],
      [calf, foot, 1.1, -1],
    ] as const) {
      const n = bone.getTransformNode()!;
      const base = n.rotationQuaternion?.clone() ?? Quaternion.FromEulerVector(n.rotation);
      const parentInv =
        n.parent !== null ? (n.parent as TransformNode).computeWorldMatrix(true).clone().invert() : Matrix.Identity();
      const axis = Vector3.TransformNormal(c.right, parentInv).normalize();
      // which construction moves the child forward (thigh) / backward (calf) for a positive angle?
      const before = Vector3.Dot(bonePos(child).subtract(bonePos(bone)), c.forward);
      let best: (a: number) => Quaternion = (a) => Quaternion.RotationAxis(axis, a).multiply(base);
      let bestGain = -Infinity;
      for (const make of [
        (a: number) => Quaternion.RotationAxis(axis, a).multiply(base),
        (a: number) => base.multiply(Quaternion.RotationAxis(axis, a)),
        (a: number) => Quaternion.RotationAxis(axis, -a).multiply(base),
        (a: number) => base.multiply(Quaternion.RotationAxis(axis, -a)),
      ]) {
        n.rotationQuaternion = make(0.3);
        const gain = sign * (Vector3.Dot(bonePos(child).subtract(bonePos(bone)), c.forward) - before);
        if (gain > bestGain) {
          bestGain = gain;
          best = make;
        }
      }
      n.rotationQuaternion = base;
      worldPos(n);
      const anim = new Animation(
        `walk ${n.name}`,
        "rotationQuaternion",
        fps,
        Animation.ANIMATIONTYPE_QUATERNION,
        Animation.ANIMATIONLOOPMODE_CYCLE,
      );
      const keys = [];
      for (let f = 0; f <= frames; f += 2) {
        // swing during 42 % of the cycle, standing otherwise
        const p = (f / frames + 1 - offset) % 1;
        const lift = p < 0.42 ? Math.sin((Math.PI * p) / 0.42) : 0;
        keys.push({ frame: f, value: best(angle * lift) });
      }
      anim.setKeys(keys);
      group.addTargetedAnimation(anim, n);
    }
  }
  return group;
}

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const feet = [r.leftFoot, r.rightFoot];
  const names = ["leftFoot", "rightFoot"] as const;
  const restPos = feet.map(bonePos);
  const start = c.root.position.clone();
  const centre = restPos[0]!.add(restPos[1]!).scale(0.5);
  centre.y = 0;
  const turn = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  const at = (s: number, lat: number, y: number) =>
    centre
      .add(forward.scale(s))
      .add(right.scale(lat))
      .add(new Vector3(0, y, 0));
  const laneW = 0.44 * h;
  const laneC = 0.24 * h;
  const terrain: Mesh[] = [];
  const stone = mat(scene, "step", new Color3(0.62, 0.6, 0.55));
  const moss = mat(scene, "ramp", new Color3(0.5, 0.6, 0.45));
  // left lane: three blocks, up, up again, down
  const blocks: [number, number, number][] = [
    [0.35, 0.95, 0.07],
    [0.95, 1.6, 0.14],
    [1.6, 2.25, 0.07],
  ];
  blocks.forEach(([s0, s1, y], i) => {
    const b = CreateBox(`step ${i + 1}`, { width: laneW, height: y * h, depth: (s1 - s0) * h }, scene);
    b.rotationQuaternion = turn.clone();
    b.position.copyFrom(at(((s0 + s1) / 2) * h, -laneC, (y * h) / 2));
    b.material = stone;
    terrain.push(b);
  });
  // right lane: a ramp up (0 to 0.1 h over 0.8 h), then a plateau
  const rampS: [number, number] = [0.45, 1.25];
  const rampY = 0.1 * h;
  const rampLen = (rampS[1] - rampS[0]) * h;
  const alpha = Math.atan2(rampY, rampLen);
  const thick = 0.3 * h;
  const ramp = CreateBox("ramp", { width: laneW, height: thick, depth: Math.hypot(rampLen, rampY) }, scene);
  ramp.material = moss;
  const top = at(((rampS[0] + rampS[1]) / 2) * h, laneC, rampY / 2);
  const placeRamp = (sign: number) => {
    ramp.rotationQuaternion = turn.multiply(Quaternion.RotationAxis(Vector3.Right(), sign * alpha));
    const up = Vector3.TransformNormal(Vector3.Up(), Matrix.FromQuaternionToRef(ramp.rotationQuaternion, new Matrix()));
    ramp.position.copyFrom(top.subtract(up.scale(thick / 2)));
    ramp.computeWorldMatrix(true);
  };
  placeRamp(1);
  const hi = surfaceAt(scene, [ramp], at(rampS[1] * h - 0.05 * h, laneC, 0));
  const lo = surfaceAt(scene, [ramp], at(rampS[0] * h + 0.05 * h, laneC, 0));
  if (hi === null || lo === null || hi.y < lo.y) placeRamp(-1);
  terrain.push(ramp);
  const plateau = CreateBox("plateau", { width: laneW, height: rampY, depth: 1.0 * h }, scene);
  plateau.rotationQuaternion = turn.clone();
  plateau.position.copyFrom(at(rampS[1] * h + 0.5 * h, laneC, rampY / 2));
  plateau.material = moss;
  terrain.push(plateau);
  for (const m of terrain) {
    m.receiveShadows = true;
    ctx.shadows.addShadowCaster(m, false);
  }
  const surfaces: AbstractMesh[] = [...terrain, ctx.ground];
  const footRadius = 0.05 * (h / 1.8);
  // the terrain does not move (the character slides over it): its triangles are baked once and probed
  // without Babylon picking, allocation-free
  const grounder = GrounderFBBIK.create(ik, { footRadius, raycast: StaticGroundRaycast.fromMeshes(surfaces).raycast });
  grounder.resetPosition();
  const walk = walkInPlace(c, scene);
  c.extra.push(walk);
  walk.start(true, 1);
  if (ctx.paused()) walk.pause();

  // the slide: forward over the lanes and back, walking in place all the while
  const span = 1.9 * h;
  const speed = 0.18 * h;
  let travel = 0;
  let dir = 1;
  let trips = 0;
  let lastDt = 0;
  // samples: a foot standing (its animation-only height at rest), on one surface for a while, the surface
  // plane-like around it (no edge under the foot)
  const onSurface = [
    { mesh: "", time: 0 },
    { mesh: "", time: 0 },
  ];
  const perSurface: { [k: string]: { count: number; worst: number; ground: number; foot: number; rest: number } }[] = [
    {},
    {},
  ];
  const doubles: Json[] = [];
  const planar = (p: Vector3, g: number): boolean => {
    const f = forward.scale(0.06 * h);
    const l = right.scale(0.03 * h);
    const hf = surfaceAt(scene, surfaces, p.add(f));
    const hb = surfaceAt(scene, surfaces, p.subtract(f));
    const hl = surfaceAt(scene, surfaces, p.subtract(l));
    const hr = surfaceAt(scene, surfaces, p.add(l));
    if (hf === null || hb === null || hl === null || hr === null) return false;
    return (
      Math.abs(hf.y + hb.y - 2 * g) < 0.001 * h && Math.abs(hl.y - g) < 0.001 * h && Math.abs(hr.y - g) < 0.001 * h
    );
  };
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      feet: feetOnSurfaces(scene, surfaces, feet),
      rest: restPos.map((p) => p.y),
      travel,
      height: h,
    }),
    update: (dt) => {
      lastDt = dt;
      travel += dir * speed * dt;
      if (travel > span || travel < 0) {
        travel = Math.max(0, Math.min(span, travel));
        dir = -dir;
        trips++;
      }
      c.root.position.copyFrom(start.add(forward.scale(travel)));
    },
    after: () => {
      // the probes stop once the checks are recorded (the walk and the slide go on in update)
      if (run.done) return;
      const now: ({ foot: number; ground: number; err: number; surface: string } | null)[] = [null, null];
      feet.forEach((f, i) => {
        const p = bonePos(f);
        const g = surfaceAt(scene, surfaces, p);
        const a = c.animated[names[i]!];
        if (g === null || a === undefined) return;
        const o = onSurface[i]!;
        if (o.mesh !== g.mesh) {
          o.mesh = g.mesh;
          o.time = 0;
        } else o.time += lastDt;
        const standing = a.y - restPos[i]!.y < 0.002 * h;
        if (!standing || o.time < 0.6 || !planar(p, g.y)) return;
        // the ankle should stand as high above the surface as it stands above the floor at rest
        const err = p.y - g.y - restPos[i]!.y;
        now[i] = { foot: p.y, ground: g.y, err, surface: g.mesh };
        const rec = (perSurface[i]![g.mesh] ??= { count: 0, worst: 0, ground: g.y, foot: p.y, rest: restPos[i]!.y });
        rec.count++;
        if (Math.abs(err) > Math.abs(rec.worst)) Object.assign(rec, { worst: err, ground: g.y, foot: p.y });
      });
      const [l, rr] = now;
      if (l !== null && rr !== null && Math.abs(l.ground - rr.ground) > 0.03 * h && doubles.length < 12)
        doubles.push({ left: l, right: rr, travel });
      const enough = perSurface.every((m) => Object.keys(m).length >= 3) && doubles.length >= 3;
      if (enough || trips >= 2) {
        run.checks = { perSurface: perSurface as unknown as Json, doubles, tolerance: 0.01 * h, height: h };
        run.done = true;
      }
    },
    dispose: () => grounder.dispose(),
  };
  frameCamera(ctx, c, centre.add(forward.scale(1.0 * h)).add(new Vector3(0, 0.35 * h, 0)), 4.6 * h, 0.9, 0.8);
  ctx.camera.beta = 1.1;
  return run;
}

/** The terrain's height at p's x, z (a ray down) and the surface's name, or null. */
/** Each foot bone's world position, and the height and name of the surface under it (for the test hook). */

export const ground: Scenario = {
  name: "ground",
  title: "Ground",
  help: "GrounderFBBIK: the feet and the pelvis adapt to steps and a ramp while the character walks.",
  build,
};
