/**
 * tail: a tentacle built in code (demo/src/props/tentacle.ts: a Skeleton of linked nodes skinning a tapered tube)
 * beside the character, solved by CCDIK, FABRIK or JacobianIK (the panel's choice: demo/src/tentacle-solver.ts).
 * Every link has a rotation limit (a RotationLimitAngle cone; the panel switches to a RotationLimitPolygonal fan, a
 * hinge or none; JacobianIK holds per-axis ranges inside it); a BoneCollider sphere on the ball (a plain mesh, not a
 * bone) keeps the links outside the ball (CCDIK and FABRIK; JacobianIK has no colliders). The tip follows the
 * green target: first held clear of the ball, then behind it (the tentacle wraps around), then orbiting it; both
 * balls can be dragged, and IDLE seconds after a drag the script eases the target back from where the user left it.
 * Another solver starts the script (and the checks) over.
 * The checks record the tip and the target mesh at the holds, and over every frame the smallest clearance of
 * the joints to the ball and the largest bend beyond a limit, measured from the links' nodes.
 */
import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { BoneCollider } from "../../../src/babylon/bone-collider";
import { LookAtIK } from "../../../src/babylon/look-at-ik";
import { Vec3 } from "../../../src/math/vec3";
import { checkbox, choice, propSlider, section, slider } from "../controls";
import { framePoints } from "../frame-box";
import { outline, visibleHeight, visibleReach } from "../framing";
import { Wander } from "../wander";
import type { Ctx, Json, Scenario, ScenarioRun } from "../kit";
import { arr, frameCamera, playClip, worldPos } from "../kit";
import { limitExcess } from "../limit-excess";
import { signalMaterial } from "../props/signal";
import { buildTentacle } from "../props/tentacle";
import { towardSun } from "../key-light";
import { MAX_ITERATIONS, SOLVERS, TentacleIK } from "../tentacle-solver";
import { SHAPES } from "../tentacle-limits";
import type { DirectionalLight } from "@babylonjs/core/Lights/directionalLight";

/** Links of the tentacle. */
const LINKS = 16;
/** Seconds after a drag before the script moves the target again. */
const IDLE = 2;
/** What each solver (SOLVERS' order) does with the tentacle's settings, in the panel. */
const NOTES = [
  "CCDIK turns link by link from the tip, held by the limits, the grey ball a collider.",
  "FABRIK moves the joints to the target and back within the limits, the grey ball pushing the links out on each " +
    "pass; a few limited sweeps from the tip close the rest.",
  "JacobianIK has no colliders: it goes through the grey ball. Its limits are angle ranges per axis (a cone or fan " +
    "becomes a box inside it, no twist); its hinge keeps the sway's tilt off the axis (2.9°).",
];
/** Seconds the orbit takes to ease in from where the target was. */
const EASE = 0.8;

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  playClip(c, "Idle_Loop");
  const { h, forward, right } = c;
  const scene = ctx.scene;
  // the tentacle on the character's side away from the sun's shadow, the ball further out and up
  const sun = towardSun(ctx.shadows.getLight() as DirectionalLight);
  const out = right.scale(Vector3.Dot(right, sun) >= 0 ? 1 : -1);
  const up = Vector3.Up();
  // clear of the character's meshes on that side (a helmet or wide shoulders reach further than the bones)
  const base = out.scale(Math.max(0.65 * h, visibleReach(c, out) + 0.35 * h)).add(forward.scale(0.1 * h));
  const ballAt = base.add(out.scale(0.24 * h)).add(up.scale(0.5 * h));
  const ballRadius = 0.12 * h;
  const radius = 0.035 * h;
  const t = buildTentacle(scene, base, 1.05 * h, LINKS, radius, ballAt, ballRadius);
  for (const m of [t.tube, t.ball]) {
    ctx.shadows.addShadowCaster(m, false);
    m.receiveShadows = true;
  }

  // the target: a glowing green ball, draggable (the obstacle ball is draggable too)
  const target = CreateSphere("tail target", { diameter: 0.05 * h, segments: 16 }, scene);
  target.material = signalMaterial(scene, "tail target", new Color3(0.2, 0.85, 0.3));
  // CCD (or FABRIK, JacobianIK) on the links, the ball mesh as a collider, a rotation limit on every link. The links
  // stand along +Y in the holder's space, which is the world's turned by nothing: the orbit's plane (out, up) is
  // where a fan bends freely and a hinge turns (about forward)
  const depth = new Vec3(forward.x, forward.y, forward.z);
  const ik = new TentacleIK({
    scene,
    tentacle: t,
    target,
    collider: BoneCollider.sphere(t.ball, ballRadius),
    frame: { axis: new Vec3(0, 1, 0), across: new Vec3(out.x, out.y, out.z), depth },
    colliderRadius: 0.8 * radius,
    tolerance: 0.001 * h,
  });
  ctx.components.push(ik);
  // the character watches the tip (LookAtIK on its spine and head)
  const r = c.ik.references;
  const look = LookAtIK.create(scene, { spine: r.spine, head: r.head, eyes: r.eyes }, { forward });
  look.solver.bodyWeight = 0.25;
  look.solver.headWeight = 0.8;
  ctx.components.push(look);

  look.target = target;
  const drags = [target, t.ball].map((m) => {
    m.isPickable = true;
    const drag = new PointerDragBehavior({ dragPlaneNormal: forward });
    m.addBehavior(drag);
    return drag;
  });

  // the script: clear of the ball, behind it (a wrap), then an orbit around it
  const orbit = (a: number, r: number, p: Vector3) =>
    p
      .copyFrom(t.ball.position)
      .addInPlace(out.scale(r * Math.cos(a)))
      .addInPlace(up.scale(r * Math.sin(a)));
  const clear = base.add(out.scale(-0.3 * h)).add(up.scale(0.6 * h));
  const behind = orbit(Math.PI / 4, 0.3 * h, new Vector3());
  const holds = [
    { name: "reach", p: clear },
    { name: "wrap", p: behind },
  ];
  target.position.copyFrom(worldPos(t.nodes[LINKS]!));
  // ease to each hold's point in 0.8 s, stay 1 s, then the orbit
  const script = () => new Wander(target.position, holds, { move: 0.8, hold: 1, idle: IDLE, loop: false });
  let wander = script();
  let time = 0;
  let angle = Math.PI / 4;
  const builtSpeed = 0.6;
  let speed = builtSpeed;
  // the orbit eases in from where the target is when it starts, and when the user lets go (it jumped 0.5 m)
  const left = new Vector3();
  const onOrbit = new Vector3();
  let fromUser = true;
  let easing = 0;

  // joint positions from the links' nodes (parents first), and what the checks accumulate over the frames
  const joints = t.nodes.map(() => new Vector3());
  let minClearance = Infinity;
  /** Frames since the scenario began (the checks wait on it). */
  let frame = 0;
  let maxOverLimit = -Infinity;
  // the largest bend beyond a limit this frame, and while the target rests at the current hold
  let frameOver = 0;
  let settledOver = -Infinity;
  const measure = () => {
    frameOver = -Infinity;
    t.holder.computeWorldMatrix(true);
    for (let i = 0; i < t.nodes.length; i++) joints[i]!.copyFrom(t.nodes[i]!.computeWorldMatrix(true).getTranslation());
    const ball = t.ball.computeWorldMatrix(true).getTranslation();
    for (let i = 0; i < LINKS; i++) {
      minClearance = Math.min(minClearance, Vector3.Distance(joints[i + 1]!, ball) - ballRadius);
      // how far link i turns beyond its limit: its local rotation against the limit's own clamp of it (any shape)
      const limit = ik.limits[i];
      const over = limit !== null && limit !== undefined ? limitExcess(limit, t.nodes[i]!.rotationQuaternion!) : 0;
      frameOver = Math.max(frameOver, over);
    }
    maxOverLimit = Math.max(maxOverLimit, frameOver);
    if (wander.t > 1.1) settledOver = Math.max(settledOver, frameOver);
  };
  const record = (name: string): Json => ({
    hold: name,
    tip: arr(joints[LINKS]!),
    target: arr(target.position),
    ball: arr(t.ball.getAbsolutePosition()),
    base: arr(base),
    ballRadius,
    minClearance,
    maxOverLimit,
    settledOver,
    length: 1.05 * h,
    height: h,
    shape: SHAPES[ik.shape]!,
    solver: SOLVERS[ik.solver]!,
    collides: ik.collides,
    frame,
  });
  // another solver: the script and the checks start over, so each solver is seen (and measured) on the same path;
  // the solver starts from the links at rest, and the target with it from the tip (from where the orbit left it,
  // its way to the first hold crossed the grey ball)
  const restart = () => {
    time = 0;
    angle = Math.PI / 4;
    target.position.copyFrom(worldPos(t.nodes[LINKS]!));
    wander = script();
    fromUser = true;
    minClearance = Infinity;
    maxOverLimit = -Infinity;
    settledOver = -Infinity;
    run.checks = {};
    run.done = false;
  };
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => record(wander.stop?.name ?? "orbit"),
    update: (dt) => {
      // an idle sway of the links: the "animation" the IK works on (and what shows with the IK off)
      time += dt;
      for (let i = 0; i < LINKS; i++)
        Quaternion.RotationYawPitchRollToRef(
          0,
          0.05 * Math.sin(1.3 * time - 0.5 * i),
          0,
          t.nodes[i]!.rotationQuaternion!,
        );
      // a held pointer keeps the script waiting, moving or not, paused or not
      for (const d of drags) if (d.dragging) wander.touch();
      if (ctx.paused()) return;
      if (wander.update(dt)) return;
      if (!wander.scripted) {
        fromUser = true;
        return;
      }
      angle += speed * dt;
      orbit(angle, (0.3 + 0.05 * Math.sin(1.7 * angle)) * h, onOrbit);
      if (fromUser) {
        left.copyFrom(target.position);
        easing = 0;
        fromUser = false;
      }
      easing = Math.min(EASE, easing + dt);
      Vector3.LerpToRef(left, onOrbit, 0.5 - 0.5 * Math.cos((Math.PI * easing) / EASE), target.position);
    },
    after: () => {
      frame++;
      measure();
      const stop = wander.stop;
      if (stop !== null && run.checks[stop.name] === undefined && wander.t > 1.6) {
        run.checks[stop.name] = record(stop.name);
        settledOver = -Infinity;
      }
      if (wander.done && !run.done) {
        run.checks.frames = record("frames");
        run.done = true;
      }
    },
    panel: (el) => {
      const sec = section();
      // what the chosen solver leaves out, said where the settings are; the iterations' range is the solver's
      const note = document.createElement("div");
      note.className = "hint";
      note.id = "tail-solver-note";
      const iterations = document.createElement("div");
      const afterColliders = checkbox(
        "limits after colliders",
        "tail-limits-after",
        () => ik.limitsAfterColliders,
        (v) => (ik.limitsAfterColliders = v),
      );
      const show = () => {
        note.textContent = NOTES[ik.solver]!;
        iterations.replaceChildren(
          propSlider(ik, "maxIterations", "iterations", [1, MAX_ITERATIONS[ik.solver]!, 1], "tail-iterations"),
        );
        afterColliders.querySelector("input")!.disabled = !ik.collides;
      };
      show();
      sec.append(
        choice("solver", "tail-solver", [...SOLVERS], ik.solver, (i) => {
          ik.setSolver(i);
          restart();
          show();
        }).el,
        note,
        iterations,
        slider(
          "orbit speed",
          0,
          2,
          0.05,
          () => speed,
          (v) => (speed = v),
          "tail-speed",
        ),
        choice("limit", "tail-shape", [...SHAPES], ik.shape, (i) => ik.setLimits(i, ik.bend)).el,
        slider(
          "bend limit (°)",
          5,
          60,
          1,
          () => ik.bend,
          (v) => ik.setLimits(ik.shape, v),
          "tail-limit",
        ),
        // the library's choice when a collider pushes a link past its limit: the limit wins (default)
        afterColliders,
      );
      el.append(sec);
    },
    // the panel's settings as built, the grey ball back in place, the script from its start
    reset: () => {
      ik.reset();
      speed = builtSpeed;
      t.ball.position.copyFrom(ballAt);
      restart();
    },
    dispose: () => {
      ik.dispose();
      look.dispose();
    },
  };
  // from the front, a little on the character's side: the character, the tentacle and the ball side by side
  const side = Vector3.Dot(out, right) > 0 ? -0.35 : 0.35;
  const H = visibleHeight(c);
  frameCamera(ctx, c, base.scale(0.9).add(up.scale(0.55 * H)), Math.max(2.3 * h, 2 * H), side, 1);
  // the character, the tentacle stretched up and the target's orbit around the ball, all clear of the panel
  const around = [out, up, out.negate(), up.negate()].map((d) => ballAt.add(d.scale(0.37 * h)));
  framePoints(ctx.camera, [...outline(c), ...around, clear, base, base.add(up.scale(1.05 * h))]);
  return run;
}

export const tail: Scenario = {
  name: "tail",
  title: "Tentacle",
  help:
    "CCDIK, FABRIK or JacobianIK with rotation limits and a collider: the tentacle's tip chases the green ball and " +
    "wraps around the grey one. Drag either ball; 2 s after you let go, the green one eases back to its orbit. A " +
    "flat fan limit cannot swing round the ball toward you.",
  build,
};
