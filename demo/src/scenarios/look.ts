/**
 * look: LookAtIK on the character's spine, head and eyes (when the model has eye bones), on its Idle_Loop.
 * The target follows the cursor over a vertical plane in front of the character; when the pointer rests, a
 * scripted target wanders between points around the face. The checks record, at each scripted hold, the head
 * bone's world rotation, its forward axis found from the rest pose, and the target mesh's position.
 */
import type { PointerInfo } from "@babylonjs/core/Events/pointerEvents";
import { PointerEventTypes } from "@babylonjs/core/Events/pointerEvents";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Plane } from "@babylonjs/core/Maths/math.plane";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { LookAtIK } from "../../../src/babylon/look-at-ik";
import { propSlider, section } from "../controls";
import { framePoints } from "../frame-box";
import { outline, visibleHeight } from "../framing";
import { Wander } from "../wander";
import type { Ctx, Json, Scenario, ScenarioRun } from "../kit";
import { arr, bonePos, boneRotation, frameCamera, mat, playClip } from "../kit";
import { signalMaterial } from "../props/signal";

/** Seconds without pointer motion before the scripted target takes over again. */
const IDLE = 2;

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const head = r.head ?? r.spine[r.spine.length - 1]!;
  // the head's forward in its own frame, from the rest pose (the character faces `forward` at spawn)
  const headAxis = forward.applyRotationQuaternion(Quaternion.Inverse(boneRotation(head)));
  // created in the rest pose, so each bone's forward is read from it
  const look = LookAtIK.create(scene, { spine: r.spine, head: r.head, eyes: r.eyes }, { forward, target: null });
  const s = look.solver;
  s.bodyWeight = 0.4;
  s.headWeight = 1;
  s.eyesWeight = 1;
  s.clampWeight = 0.5;
  s.clampWeightHead = 0.3;
  s.clampWeightEyes = 0.5;
  const defaults = [s.bodyWeight, s.headWeight, s.eyesWeight, s.clampWeight, s.clampWeightHead, s.clampWeightEyes];
  ctx.components.push(look);
  playClip(c, "Idle_Loop");

  // the target: a glowing ball on a vertical plane in front of the face, and a faint gaze line to it
  const face = bonePos(head);
  const centre = face.add(forward.scale(0.8 * h));
  const plane = Plane.FromPositionAndNormal(centre, forward);
  const target = CreateSphere("look target", { diameter: 0.06 * h, segments: 16 }, scene);
  target.material = signalMaterial(scene, "look target", new Color3(1, 0.55, 0.1));
  target.isPickable = false;
  target.position.copyFrom(centre);
  ctx.shadows.addShadowCaster(target, false);
  look.target = target;
  const gaze = CreateCylinder("gaze", { height: 1, diameter: 0.006 * h, tessellation: 6 }, scene);
  gaze.material = mat(scene, "gaze", new Color3(1, 0.7, 0.3), 0.45);
  gaze.isPickable = false;
  gaze.rotationQuaternion = new Quaternion();

  // the scripted wander: points around the face, each reached in `MOVE` s and held `HOLD` s
  const at = (x: number, y: number) => centre.add(right.scale(x * h)).add(new Vector3(0, y * h, 0));
  const stops = [
    { name: "right", p: at(0.45, 0.05) },
    { name: "left", p: at(-0.5, 0.1) },
    { name: "up", p: at(0.1, 0.35) },
    { name: "low left", p: at(-0.4, -0.25) },
  ];
  const MOVE = 0.9;
  const wander = new Wander(target.position, stops, { move: MOVE, hold: 0.8, idle: IDLE, loop: true });
  let follow = true;

  const pointer = scene.onPointerObservable.add((pi: PointerInfo) => {
    if (!follow || pi.type !== PointerEventTypes.POINTERMOVE) return;
    const ray = scene.createPickingRay(scene.pointerX, scene.pointerY, null, ctx.camera);
    const d = ray.intersectsPlane(plane);
    if (d === null) return;
    ray.origin.addToRef(ray.direction.scaleInPlace(d), target.position);
    // the cursor on the floor in front of the plane meets it under the floor: the ball rests on the floor
    target.position.y = Math.max(target.position.y, 0.03 * h);
    wander.touch();
    sinceTouch = 0;
    delete run.checks.pointer;
  });
  /** Frames since the pointer last moved the target: the test's record is taken on the third. */
  let sinceTouch = -1;

  // a record: the head bone's world rotation and rest-pose forward axis, the head and the target positions
  const record = (name: string): Json => ({
    stop: name,
    headRotation: boneRotation(head).asArray(),
    headAxis: arr(headAxis),
    head: arr(bonePos(head)),
    target: arr(target.position),
    height: h,
  });
  const toTarget = new Vector3();
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      ...(record(wander.scripted ? wander.stop!.name : "pointer") as object),
      centre: arr(centre),
      idle: wander.idle,
    }),
    control: (cmd, arg) => {
      // the test hook: `follow` on/off (the cursor drives the target)
      if (cmd === "follow") follow = arg === true;
      return follow;
    },
    update: (dt) => {
      if (ctx.paused()) return;
      wander.update(dt);
    },
    after: () => {
      // the gaze line from the head to the target
      const a = bonePos(head);
      target.position.subtractToRef(a, toTarget);
      const len = toTarget.length();
      gaze.scaling.y = len;
      a.addToRef(target.position, gaze.position).scaleInPlace(0.5);
      Quaternion.FromUnitVectorsToRef(Vector3.UpReadOnly, toTarget.scaleInPlace(1 / len), gaze.rotationQuaternion!);
      // the key moments: the first two holds (right, then left), once the target has rested a few frames
      if (sinceTouch >= 0 && ++sinceTouch === 3 && !wander.scripted) run.checks.pointer = record("pointer");
      const st = wander.stop!;
      if (wander.scripted && wander.index < 2 && wander.t > MOVE + 0.3 && run.checks[st.name] === undefined) {
        run.checks[st.name] = record(st.name);
        run.done = run.checks.right !== undefined && run.checks.left !== undefined;
      }
    },
    reset: () => {
      [s.bodyWeight, s.headWeight, s.eyesWeight, s.clampWeight, s.clampWeightHead, s.clampWeightEyes] = defaults;
    },
    panel: (el) => {
      const sec = section("LookAtIK");
      sec.append(
        propSlider(s, "bodyWeight", "body weight", [0, 1, 0.05], "look-body"),
        propSlider(s, "headWeight", "head weight", [0, 1, 0.05], "look-head"),
      );
      if (r.eyes.length > 0) sec.append(propSlider(s, "eyesWeight", "eyes weight", [0, 1, 0.05], "look-eyes"));
      sec.append(
        propSlider(s, "clampWeight", "body clamp", [0, 1, 0.05], "look-clamp"),
        propSlider(s, "clampWeightHead", "head clamp", [0, 1, 0.05], "look-clamp-head"),
      );
      if (r.eyes.length > 0)
        sec.append(propSlider(s, "clampWeightEyes", "eyes clamp", [0, 1, 0.05], "look-clamp-eyes"));
      el.append(sec);
    },
    dispose: () => {
      scene.onPointerObservable.remove(pointer);
      look.dispose();
    },
  };
  // in front, a little to the side: the face, the turn of the head and the target in view
  const H = visibleHeight(c);
  frameCamera(
    ctx,
    c,
    new Vector3(0, Math.max(0.66 * h, 0.55 * H), 0).add(forward.scale(0.3 * h)),
    Math.max(1.7 * h, 1.5 * H),
    0.35,
    1,
  );
  ctx.camera.beta = 1.3;
  // every stop of the ball in view too, clear of the panel (the stop above the face left the top of the view)
  const ball = new Vector3(0, 0.05 * h, 0);
  framePoints(ctx.camera, [...outline(c), ...stops.flatMap((st) => [st.p.add(ball), st.p.subtract(ball)])]);
  return run;
}

export const look: Scenario = {
  name: "look",
  title: "Look at",
  help:
    "LookAtIK: the spine, head and eyes turn toward the orange ball. " +
    "Move the cursor to lead it; the clamps limit the turn.",
  build,
};
