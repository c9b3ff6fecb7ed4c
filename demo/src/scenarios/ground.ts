/** Ground: the character walks a loop over steps, a moving deck and a hump; GrounderFBBIK plants the feet. */
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { GrounderFBBIK } from "../../../src/effectors/grounding/grounder-fbbik";
import { MovingGroundRaycast } from "../../../src/effectors/grounding/moving-ground-raycast";
import { nearestGroundRaycast } from "../../../src/effectors/grounding/nearest-ground-raycast";
import { StaticGroundRaycast } from "../../../src/effectors/grounding/static-ground-raycast";
import { slider } from "../controls";
import { CourseWalker } from "../course-walker";
import { FollowCamera } from "../follow-camera";
import type { Ctx, Json, Scenario, ScenarioRun } from "../kit";
import { bonePos, captureAnimated, feetOnSurfaces, flatAround, frameCamera, playClip, surfaceAt } from "../kit";
import { visibleHeight } from "../framing";
import { LoopPath, measureGait, walkInPlace } from "../locomotion";
import { createCourse } from "../props/course";

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const feet = [r.leftFoot, r.rightFoot];
  const names = ["leftFoot", "rightFoot"] as const;
  // the walker carries the character along the loop: a node between the feet, the model's root under it
  const origin = bonePos(r.leftFoot).add(bonePos(r.rightFoot)).scale(0.5);
  origin.y = 0;
  const walkerNode = new TransformNode("walker", scene);
  walkerNode.position.copyFrom(origin);
  c.root.position.subtractInPlace(origin);
  c.root.parent = walkerNode;
  // the model's own in-place walk, else a procedural walk in place; the walker moves at the clip's pace
  let walk = playClip(c, "Walk_Loop") ?? playClip(c, "walk") ?? playClip(c, "Walk");
  const natural = walk !== null;
  if (walk === null) {
    walk = walkInPlace(c, scene);
    c.extra.push(walk);
    walk.start(true, 1);
  }
  const gait = measureGait(c, walk);
  const pace = natural && gait.speed > 0.1 * h ? gait.speed : 0.3 * h;

  const size = visibleHeight(c);
  const lookAt = 0.45 * size;
  const builtStepHeight = 0.08 * h;
  let stepHeight = builtStepHeight;
  const course = createCourse(scene, ctx.shadows, { origin, forward, right, h }, stepHeight);
  // the steps, ramps and floor are baked once (again when the steps change); the deck is followed as it moves
  const statics = StaticGroundRaycast.fromMeshes([...course.statics, ctx.ground]);
  /** The steps raised to `height` (world units), and the grounder's baked ground with them. */
  const setStepHeight = (height: number) => {
    stepHeight = height;
    course.setStepHeight(height);
    statics.refresh();
  };
  const raycast = nearestGroundRaycast(statics.raycast, MovingGroundRaycast.fromMeshes([course.deck.top]).raycast);
  const grounder = GrounderFBBIK.create(ik, { footRadius: 0.03 * h, raycast });
  ctx.components.push(grounder);
  const surfaces: AbstractMesh[] = [...course.statics, course.deck.top, ctx.ground];

  // the character controller: where the walker is on the loop, its height the ground's under it
  const path = new LoopPath(origin, forward, right, course.length, course.radius);
  const fps = walk.targetedAnimations[0]?.animation.framePerSecond ?? 60;
  const yaw0 = Math.atan2(forward.x, forward.z);
  const walker = new CourseWalker(walkerNode, path, raycast, h, 0.1 * h, yaw0);
  const { dir } = walker;
  let u = 0;
  const duration = (walk.to - walk.from) / fps;
  let clipTime = 0;
  let deckTime = 0;
  const camera = new FollowCamera(ctx.camera, forward);
  const lookAtNow = new Vector3();

  // checks: each foot planted (its animation near its lowest for 0.1 s) where the ground is flat around it
  type Rec = { count: number; worst: number; ground: number; foot: number };
  const perSurface: Record<string, Rec>[] = [{}, {}];
  const planted = [0, 0];
  const plantedFrames = [0, 0];
  let settled = 0;
  let rootY = 0;
  let lastDt = 0;
  const flat = (p: Vector3, g: number): boolean =>
    flatAround(scene, surfaces, p, g, dir, 0.05 * h, 0.03 * h, 0.001 * h);
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({ feet: feetOnSurfaces(scene, surfaces, feet), walked: u, pace, height: h }),
    update: (dt) => {
      lastDt = dt;
      if (ctx.paused() || !walk.isStarted) return;
      deckTime += dt;
      course.moveDeck(deckTime);
      // the walk clip on the scenario's clock, as the walker, the deck and the grounder: in step at any frame
      // rate (the clip paused, posed by hand; it stops when another clip is chosen in the panel)
      walk.pause();
      clipTime = (clipTime + dt) % duration;
      walk.goToFrame(walk.from + clipTime * fps);
      // the animation-only pose for the checks, taken before the walker moves (its height is rootY)
      captureAnimated(c);
      rootY = walkerNode.position.y;
      u += dt * pace;
      walker.place(u, dt, false);
      // the camera follows from the side-front: it turns with the walker's heading, eased
      camera.update(dt, dir, lookAtNow.copyFrom(walkerNode.position).addInPlaceFromFloats(0, lookAt, 0));
    },
    after: () => {
      if (run.done) return;
      // the first frames (loading) can be long: the grounder settles over a few before anything is measured
      settled++;
      feet.forEach((f, i) => {
        const a = c.animated[names[i]!];
        if (a === undefined) return;
        // planted: seconds and frames the clip has held the foot within 1 % of h of its lowest
        const low = a.y - rootY < gait.lowest[i]! + 0.01 * h;
        planted[i] = low ? planted[i]! + lastDt : 0;
        plantedFrames[i] = low ? plantedFrames[i]! + 1 : 0;
        const p = bonePos(f);
        const g = surfaceAt(scene, surfaces, p);
        if (g === null || planted[i]! < 0.1 || plantedFrames[i]! < 2 || settled < 5 || !flat(p, g.y)) return;
        // the ankle stands as high above the ground under it as the clip has it above the root's level
        const err = p.y - g.y - (a.y - rootY);
        const rec = (perSurface[i]![g.mesh] ??= { count: 0, worst: 0, ground: g.y, foot: p.y });
        rec.count++;
        if (Math.abs(err) > Math.abs(rec.worst)) Object.assign(rec, { worst: err, ground: g.y, foot: p.y });
      });
      const seen = perSurface.every((m) => Object.keys(m).some((k) => k.startsWith("step")) && m.deck !== undefined);
      if (seen || u > 2 * path.total) {
        run.checks = {
          perSurface: perSurface as unknown as Json,
          walked: u,
          loop: path.total,
          pace,
          tolerance: 0.01 * h,
          height: h,
        };
        run.done = true;
      }
    },
    panel: (el) => {
      el.append(
        slider(
          "step height (× h)",
          0,
          0.14,
          0.01,
          () => stepHeight / h,
          (v) => setStepHeight(v * h),
          "ground-step",
        ),
      );
    },
    reset: () => {
      if (stepHeight !== builtStepHeight) setStepHeight(builtStepHeight);
      u = 0;
      walker.place(0, 0, true);
      grounder.resetPosition();
    },
    dispose: () => grounder.dispose(),
  };
  walker.place(0, 0, true);
  // sized from how tall the character looks (a chibi's helmet reaches far above its joints)
  frameCamera(ctx, c, walkerNode.position.add(new Vector3(0, lookAt, 0)), 3.1 * size, 0.9, 0.8);
  ctx.camera.beta = 1.15;
  return run;
}

export const ground: Scenario = {
  name: "ground",
  title: "Ground",
  help:
    "GrounderFBBIK: the feet and pelvis follow steps, a moving deck and a ramp while the character walks. " +
    "The slider sets the step height.",
  build,
};
