/**
 * creature: GrounderIK on a six-legged creature built in code (demo/src/props/creature.ts), each leg a CCDIK or
 * FABRIK of three bones (the panel's choice: the legs and the grounder made again), walking the ground scenario's
 * course (steps, the moving deck, the ramped hump) with an alternating tripod posed by hand for flat ground
 * (demo/src/creature-gait.ts). The grounder puts each tip on the ground under it, moves the body down for the lower
 * tips and turns the creature's root toward the plane of its feet (`characterRoot`). The character stands between
 * the lanes and watches it (LookAtIK). The checks record, from scene objects, the tips' height over the surface
 * under them while they stand, per surface, and the body's tilt while every tip stands on a ramp.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { CCDIK, FABRIK } from "../../../src/babylon/chain-ik";
import { LookAtIK } from "../../../src/babylon/look-at-ik";
import { GrounderIK } from "../../../src/effectors/grounding/grounder-ik";
import { MovingGroundRaycast } from "../../../src/effectors/grounding/moving-ground-raycast";
import { nearestGroundRaycast } from "../../../src/effectors/grounding/nearest-ground-raycast";
import { StaticGroundRaycast } from "../../../src/effectors/grounding/static-ground-raycast";
import { choice, slider } from "../controls";
import { CourseWalker } from "../course-walker";
import { CreatureGait } from "../creature-gait";
import { FollowCamera } from "../follow-camera";
import { outline } from "../framing";
import { KeepInView } from "../keep-in-view";
import type { Ctx, IKSwitch, Json, Scenario, ScenarioRun } from "../kit";
import { arr, bonePos, flatAround, frameCamera, playClip, surfaceAt } from "../kit";
import { LoopPath } from "../locomotion";
import { createCourse } from "../props/course";
import { buildCreature } from "../props/creature";

/** The legs' solvers, in the panel's order. */
const SOLVERS = ["CCDIK", "FABRIK"] as const;
/** Seconds a gait cycle takes. */
const PERIOD = 0.7;
/** The steepest the character looks down at the creature (radians below the horizontal). */
const GAZE_DOWN = (30 * Math.PI) / 180;
/** The farthest round the character looks after the creature (radians from its forward, either side). */
const GAZE_TURN = (70 * Math.PI) / 180;
/** The grounder's settings as the scenario builds them (lengths × h). */
const BUILT = { weight: 1, rootRotationWeight: 1, maxStep: 0.12 };

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  playClip(c, "Idle_Loop");
  const { h, forward, right } = c;
  const scene = ctx.scene;
  // the course around the character: it stands between the lanes, by the highest step and the hump's plateau
  const origin = forward.scale(-3.0 * h).add(right.scale(0.4 * h));
  const course = createCourse(scene, ctx.shadows, { origin, forward, right, h }, 0.08 * h);
  const raycast = nearestGroundRaycast(
    StaticGroundRaycast.fromMeshes([...course.statics, ctx.ground]).raycast,
    MovingGroundRaycast.fromMeshes([course.deck.top]).raycast,
  );
  const surfaces = [...course.statics, course.deck.top, ctx.ground];

  // the creature under a walker that carries it along the loop (the grounder turns the creature, not the walker)
  const size = 0.3 * h;
  const creature = buildCreature(scene, 6, size);
  const walkerNode = new TransformNode("creature walker", scene);
  creature.root.parent = walkerNode;
  for (const m of creature.meshes) {
    ctx.shadows.addShadowCaster(m, false);
    m.receiveShadows = true;
    m.isPickable = false;
  }
  const gait = new CreatureGait(creature);
  const pace = gait.stride / PERIOD;
  const path = new LoopPath(origin, forward, right, course.length, course.radius);
  // its body rises slowly onto a step: the grounder's tips, eased toward their ground at footSpeed, keep up
  const walker = new CourseWalker(walkerNode, path, raycast, h, 0.45 * size, 0, 0.06 * h);

  // the legs and the grounder (made again when the panel picks another solver)
  const settings = { ...BUILT };
  let solver = 0;
  let legs: (CCDIK | FABRIK)[] = [];
  let grounder: GrounderIK | null = null;
  // the IK switch: the current grounder's own enable fade (the legs without it follow the walk, bit for bit)
  let on = true;
  let fadeSeconds = 0;
  const ikSwitch: IKSwitch = {
    get enabled() {
      return on;
    },
    set enabled(v: boolean) {
      on = v;
      if (grounder !== null) grounder.enabled = v;
    },
    get enableFadeSeconds() {
      return fadeSeconds;
    },
    set enableFadeSeconds(v: number) {
      fadeSeconds = v;
      if (grounder !== null) grounder.enableFadeSeconds = v;
    },
    get isFading() {
      return grounder?.isFading ?? false;
    },
  };
  /** True when the grounder is on in full: neither off nor fading. */
  const full = () => on && !ikSwitch.isFading;
  const make = () => {
    grounder?.dispose();
    for (const leg of legs) leg.dispose();
    legs = creature.legs.map((bones) =>
      solver === 0 ? CCDIK.create(scene, bones) : FABRIK.create(scene, bones, { maxIterations: 16 }),
    );
    // on their own the legs follow the walk: the grounder aims them at the ground
    for (const leg of legs) leg.solver.ikPositionWeight = 0;
    grounder = GrounderIK.create(legs, creature.body, {
      raycast,
      root: walkerNode,
      characterRoot: creature.root,
      rootRotationWeight: settings.rootRotationWeight,
      maxStep: settings.maxStep * h,
      footRadius: 0.012 * h,
      footSpeed: 10,
      enableFadeSeconds: fadeSeconds,
    });
    grounder.enabled = on;
  };
  make();
  ctx.components.push(ikSwitch);
  // the character watches the creature
  const r = c.ik.references;
  const look = LookAtIK.create(scene, { spine: r.spine, head: r.head, eyes: r.eyes }, { forward });
  // the creature walks near its feet: a light spine keeps it from bowing to it
  look.solver.bodyWeight = 0.1;
  look.solver.headWeight = 0.8;
  // the gaze follows the creature, no steeper than GAZE_DOWN below the head: aimed at the creature at its feet,
  // the head bowed to the chest and the spine hunched (the Mannequin's big head folded over)
  const gaze = new TransformNode("gaze", scene);
  const head = r.head ?? r.spine[r.spine.length - 1]!;
  const aimGaze = () => {
    const from = bonePos(head);
    const to = bonePos(creature.body);
    const [dx, dz] = [to.x - from.x, to.z - from.z];
    const run = Math.hypot(dx, dz);
    // the creature behind a shoulder: the gaze as far round as GAZE_TURN (a turn toward a target beyond the
    // head's clamp swings the face along the great circle between, which dips far below both: bowed 51°)
    const turn = Math.atan2(dx * right.x + dz * right.z, dx * forward.x + dz * forward.z);
    const a = Math.max(-GAZE_TURN, Math.min(GAZE_TURN, turn));
    const [ax, az] = [Math.cos(a) * run, Math.sin(a) * run];
    gaze.position.set(
      from.x + ax * forward.x + az * right.x,
      Math.max(to.y, from.y - run * Math.tan(GAZE_DOWN)),
      from.z + ax * forward.z + az * right.z,
    );
  };
  look.target = gaze;
  ctx.components.push(look);

  // checks: each tip while it stands (its stance well begun), over the surface under it where that is flat
  type Rec = { count: number; worst: number; ground: number };
  const perSurface: Record<string, Rec> = {};
  /**
   * Per ramp: the means of the body's tilt, the nose's rise and the ramp's slope along the walk (°) over the frames
   * every tip has stood on it for 0.3 s or more.
   */
  const ramps: Record<string, { frames: number; tilt: number; noseRise: number; slope: number }> = {};
  let onRamp = 0;
  let settled = 0;
  // the walk starts on the highest step, the character in view: the deck and the ramp come next
  const start = 2.0 * h;
  let u = start;
  let deckTime = 0;
  let lastDt = 0;
  const up = new Vector3();
  const nose = new Vector3();
  /** Per frame, the worst standing tip's height over its ground, the last 30 frames (the IK switch's check). */
  const recent: number[] = [];
  const tips = creature.legs.map(() => new Vector3());
  const lookAt = new Vector3();
  const bodyLook = 0.3 * h;
  /** The body's tilt from the vertical and its nose's rise, degrees. */
  const tilt = () => {
    const m = creature.root.computeWorldMatrix(true);
    Vector3.TransformNormalToRef(Vector3.UpReadOnly, m, up);
    Vector3.TransformNormalToRef(Vector3.Forward(), m, nose);
    const deg = 180 / Math.PI;
    return {
      tilt: Math.acos(Math.min(1, up.normalize().y)) * deg,
      noseRise: Math.asin(nose.normalize().y) * deg,
    };
  };
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      tips: tips.map((p, i) => ({ tip: arr(p), ground: surfaceAt(scene, surfaces, p)?.y ?? null, leg: i })),
      ...tilt(),
      recentWorst: Math.max(0, ...recent.filter((v) => !Number.isNaN(v)).map(Math.abs)),
      recentStanding: recent.filter((v) => !Number.isNaN(v)).length,
      walked: u,
      height: h,
      solver: SOLVERS[solver]!,
    }),
    update: (dt) => {
      lastDt = dt;
      if (grounder !== null) grounder.weight = settings.weight;
      if (!ctx.paused()) {
        deckTime += dt;
        course.moveDeck(deckTime);
        u += dt * pace;
        walker.place(u, dt, false);
      }
      // the walk, posed every frame (the legs' IK starts from it)
      gait.pose(u / gait.stride);
      // a little ahead of the creature: where it goes, and the character it walks toward on the ramp
      const ahead = 0.3 * h;
      lookAt.copyFrom(walkerNode.position).addInPlaceFromFloats(walker.dir.x * ahead, bodyLook, walker.dir.z * ahead);
      camera.update(dt, walker.dir, lookAt);
      keepBoth();
      aimGaze();
    },
    after: () => {
      settled++;
      const phase = u / gait.stride;
      // NaN: no tip stood where the ground around it is a plane
      let worst = Number.NaN;
      let ramp: string | null = null;
      let allOnRamp = true;
      creature.legs.forEach((bones, i) => {
        const p = tips[i]!.copyFrom(bonePos(bones[3]!));
        const g = surfaceAt(scene, surfaces, p);
        if (g === null) return;
        if (!g.mesh.startsWith("ramp") || (ramp !== null && g.mesh !== ramp)) allOnRamp = false;
        ramp = g.mesh;
        const s = gait.stance(i, phase);
        if (s < 0.2 || s > 0.9 || !flatAround(scene, surfaces, p, g.y, walker.dir, 0.02 * h, 0.01 * h, 0.0005 * h))
          return;
        // the walk has a standing tip on the root's plane: grounded, it stands on the surface under it
        const err = p.y - g.y;
        if (!(Math.abs(err) <= Math.abs(worst))) worst = err;
        if (settled < 30 || !full() || run.done) return;
        const rec = (perSurface[g.mesh] ??= { count: 0, worst: 0, ground: g.y });
        rec.count++;
        if (Math.abs(err) > Math.abs(rec.worst)) Object.assign(rec, { worst: err, ground: g.y });
      });
      recent.push(worst);
      if (recent.length > 30) recent.shift();
      onRamp = allOnRamp && ramp !== null ? onRamp + lastDt : 0;
      if (ramp !== null && onRamp > 0.3 && !run.done && full()) {
        // the ramp's slope along the walk, from the ground ahead of and behind the body
        const { pos, dir } = walker;
        const d = 0.1 * h;
        const ahead = walker.groundUnder(pos.x + dir.x * d, pos.z + dir.z * d);
        const behind = walker.groundUnder(pos.x - dir.x * d, pos.z - dir.z * d);
        const slope = (Math.atan((ahead - behind) / (2 * d)) * 180) / Math.PI;
        const t = tilt();
        const rec = (ramps[ramp] ??= { frames: 0, tilt: 0, noseRise: 0, slope: 0 });
        // running means over the frames
        rec.frames++;
        rec.tilt += (t.tilt - rec.tilt) / rec.frames;
        rec.noseRise += (t.noseRise - rec.noseRise) / rec.frames;
        rec.slope += (slope - rec.slope) / rec.frames;
      }
      const high = Object.entries(perSurface).some(([n, r]) => n.startsWith("step") && r.ground > 0.15 * h);
      if (!run.done && high && (ramps["ramp up"]?.frames ?? 0) >= 30) {
        run.checks = {
          perSurface: perSurface as unknown as Json,
          ramps: ramps as unknown as Json,
          walked: u,
          tolerance: 0.005 * h,
          height: h,
          rootRotationWeight: settings.rootRotationWeight,
        };
        run.done = true;
      }
    },
    panel: (el) => {
      el.append(
        choice("leg solver", "creature-solver", [...SOLVERS], solver, (i) => {
          solver = i;
          make();
        }).el,
        slider(
          "weight",
          0,
          1,
          0.05,
          () => settings.weight,
          (v) => (settings.weight = v),
          "creature-weight",
        ),
        slider(
          "root rotation weight",
          0,
          1,
          0.05,
          () => settings.rootRotationWeight,
          (v) => {
            settings.rootRotationWeight = v;
            if (grounder !== null) grounder.rootRotationWeight = v;
          },
          "creature-root-rotation",
        ),
        slider(
          "max step (× h)",
          0,
          0.25,
          0.01,
          () => settings.maxStep,
          (v) => {
            settings.maxStep = v;
            if (grounder !== null) grounder.solver.maxStep = v * h;
          },
          "creature-max-step",
        ),
      );
    },
    resetView: () => view.reset(),
    reset: () => {
      Object.assign(settings, BUILT);
      solver = 0;
      make();
      u = start;
      walker.place(u, 0, true);
    },
    dispose: () => {
      grounder?.dispose();
      for (const leg of legs) leg.dispose();
      look.dispose();
    },
  };
  walker.place(u, 0, true);
  aimGaze();
  const camera = new FollowCamera(ctx.camera, walker.dir);
  // it opens on the creature and the character (a phone's narrow view holds both), then follows the creature
  const between = Vector3.Lerp(walkerNode.position, c.root.getAbsolutePosition(), 0.5);
  frameCamera(ctx, c, between.addInPlaceFromFloats(0, bodyLook, 0), 2.3 * h, 1, 0.35);
  ctx.camera.beta = 0.95;
  // every frame as far as both need, the character's meshes whole: followed at the opening's radius, the creature
  // in the middle, a chibi's head went off the view's top as the creature came near it (the UAL's too, later)
  const view = new KeepInView(ctx.camera);
  // the creature's box about its walker, as it stands (fitted to its legs' own boxes, the view pulsed with the gait)
  let [reach, top, bottom] = [0, -Infinity, Infinity];
  for (const m of creature.meshes) {
    m.computeWorldMatrix(true);
    for (const v of m.getBoundingInfo().boundingBox.vectorsWorld) {
      const d = v.subtract(walkerNode.position);
      reach = Math.max(reach, Math.hypot(d.x, d.z));
      [top, bottom] = [Math.max(top, d.y), Math.min(bottom, d.y)];
    }
  }
  const box = Array.from({ length: 8 }, () => new Vector3());
  const seen = [...outline(c), ...box];
  const keepBoth = () => {
    const at = walkerNode.position;
    box.forEach((p, i) =>
      p.set(at.x + (i & 1 ? reach : -reach), at.y + (i & 2 ? top : bottom), at.z + (i & 4 ? reach : -reach)),
    );
    view.update(seen);
  };
  keepBoth();
  return run;
}

export const creature: Scenario = {
  name: "creature",
  title: "Creature",
  help:
    "GrounderIK on a six-legged creature (a CCDIK or FABRIK per leg): its tips stand on the steps, the moving deck " +
    "and the ramps, its body tilts with the ground. IK off: the walk alone, made for flat ground.",
  build,
};
