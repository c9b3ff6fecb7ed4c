/**
 * grab: the InteractionSystem on the character's PickUp_Table clip. The left hand reaches for the cup
 * wherever the user drags it on the table (a pivot turns the grip toward the hand), the HandPoser closes the
 * fingers around it, the pick-up event parents the cup to the hand, the hand lifts it and puts it back.
 * The clip's frame follows the interaction's timer, so the body's reach, lean and lift match the hand's.
 * On a model without the clip the procedural idle plays and the lift is the interaction's Y offset.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { Curve } from "../../../src/math/curve";
import { InteractionCurveType as Ch } from "../../../src/effectors/interaction/interaction-curves";
import { InteractionObject } from "../../../src/effectors/interaction/interaction-object";
import { InteractionSystem } from "../../../src/effectors/interaction/interaction-system";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import { curl, fitFistToWall, makeGrip } from "../props/grip";
import { stopGripAtWall } from "../props/grip-stop";
import { fistOf, liftOverBoard } from "../props/edge-lift";
import { framePoints } from "../frame-box";
import { headBall, hiddenByHead, outline, visibleHeight } from "../framing";
import { makeTable } from "../props/table";
import type { Ctx, Json, Scenario, ScenarioRun } from "../kit";
import { arr, bonePos, frameCamera, playClip, worldPos } from "../kit";

/** A curve through `[time, value]` keys, flat at each key (eases between them). */
const keys = (ks: [number, number][]) =>
  new Curve(ks.map(([time, value]) => ({ time, value, inTangent: 0, outTangent: 0 })));

// the script (interaction seconds): reach, grasp and pick up, lift, hold, put down, let go, back
const GRASP = 1.1;
const LIFTED = 2.1;
const DOWN = 3.6;
const LET_GO = 4.0;
const END = 4.8;
/** The reach's arc over the board's edge, in what the resting hand's skin hangs below the tabletop. */
const HOP = 2;
/** PickUp_Table's frame (fraction of the clip) at the script's keys: reach low at 0.28, lifted at 0.6. */
const CLIP: [number, number][] = [
  [0, 0],
  [GRASP, 0.28],
  [GRASP + 0.3, 0.28],
  [LIFTED, 0.6],
  [2.8, 0.6],
  [DOWN, 0.28],
  [LET_GO, 0.28],
  [END, 1],
];

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const LH = FullBodyBipedEffector.LeftHand;
  const table = makeTable(ctx, c);
  const { cup, top, cupRadius, cupHeight } = table;
  table.place(-0.45, -0.2);
  // the grip beside the cup: wrist place and turn, and the closed fingers for the hand poser
  const nodes = new Set(
    c.skeleton.bones.map((b: Bone) => b.getTransformNode()).filter((n): n is TransformNode => n !== null),
  );
  const grip = makeGrip(r.leftHand, nodes, cupRadius, forward, right, h, Vector3.Down(), true);
  // the grip's axis at half the cup's height or as high as the hand's skin needs: the hand rests on the
  // tabletop, never in it (a cap at 0.8 of the cup's height put the Mannequin's fist through the board)
  const axisY = Math.max(top + 0.5 * cupHeight, top - grip.lowest);
  // a fist (no fingers to close) against the wall over the cup's height, from the wrist down the cup's axis
  fitFistToWall(grip, r.leftHand, cupRadius, right, Vector3.Down(), h, [axisY - top - cupHeight, axisY - top]);
  const pivot = new TransformNode("grip pivot", ctx.scene);
  pivot.position.set(cup.position.x, axisY, cup.position.z);
  pivot.setParent(cup);
  const target = new TransformNode("grip", ctx.scene);
  target.position.copyFrom(worldPos(pivot).add(grip.wristOffset));
  target.rotationQuaternion = grip.rotation.clone();
  target.setParent(pivot);
  if (grip.pose !== null) grip.pose.parent = target;

  const clip = playClip(c, "PickUp_Table");
  clip?.pause();
  const lift = clip === null ? 0.14 * h : 0;
  // on the way to the cup and back, the hand goes over the board's edge: up by as far as its skin hangs below
  // the tabletop at rest (the Mannequin's fist, from beside the table, crossed the board 9.5 cm deep)
  const fist = fistOf(r.leftHand, h);
  const hop = HOP * Math.max(0, top + 0.005 * h - (bonePos(r.leftHand).y - fist.below));
  const weight =
    clip === null
      ? keys([
          [0, 0],
          [GRASP, 1],
          [LET_GO, 1],
          [END, 0],
        ])
      : keys([
          [0, 0],
          [GRASP, 1],
          [GRASP + 0.3, 1],
          [LIFTED, 0.15],
          [2.8, 0.15],
          [DOWN, 1],
          [LET_GO, 1],
          [END, 0],
        ]);
  const system = new InteractionSystem(ik);
  const object = new InteractionObject(cup, {
    findTargets: false,
    weightCurves: [
      { type: Ch.PositionWeight, curve: weight },
      {
        type: Ch.RotationWeight,
        curve: keys([
          [0, 0],
          [GRASP, 1],
          [LET_GO, 1],
          [END, 0],
        ]),
      },
      // the fingers close only on a hand that has them (the Mannequin's fist: no pose, no curve to warn of)
      ...(grip.pose === null
        ? []
        : [
            {
              type: Ch.PoserWeight,
              curve: keys([
                [0, 0],
                [0.5, 0],
                [GRASP, 1],
                [LET_GO, 1],
                [LET_GO + 0.4, 0],
              ]),
            },
          ]),
      {
        type: Ch.PositionOffsetY,
        curve: keys([
          [0, 0],
          [0.55 * GRASP, hop],
          [GRASP, 0],
          [GRASP + 0.3, 0],
          [LIFTED, lift],
          [2.8, lift],
          [DOWN, 0],
          [LET_GO, 0],
          [(LET_GO + END) / 2, hop],
          [END, 0],
        ]),
      },
    ],
    events: [
      { time: GRASP, pickUp: true },
      { time: LET_GO, message: "put down" },
    ],
  });
  object.createTarget(LH, target, { pivot, twistWeight: 0.5 });
  // each frame, the fingers' curl stops at the cup's wall (the pose was wrapped for the cup's first place)
  const held = () => system.getHeldObject(LH) !== null;
  const unstop = stopGripAtWall(ik, r.leftHand, grip, cup, cupRadius, cupHeight, 0.008 * h, held);
  // where the straight reach and the hop still cross the board's edge, the hand is lifted over it
  const reach = { board: table.meshes[0]!, top, grip: target, fist, margin: 0.005 * h, held };
  const unlift = liftOverBoard(system, ik.solver.leftHandEffector, r.leftHand, reach);
  // where the cup stood (world), to set it down there exactly: kept while it stands, since at the pick-up
  // event it already hangs under the hand
  const home = { position: new Vector3(), rotation: new Quaternion() };
  const keepHome = () => {
    if (held()) return;
    cup.computeWorldMatrix(true).decompose(undefined, home.rotation, home.position);
  };
  keepHome();
  /** Where the cup stood when the hand picked it up (the test's check of the put-down). */
  const stood = new Vector3();
  system.onInteractionPickUpObservable.add(() => {
    stood.copyFrom(home.position);
    table.drag.enabled = false;
  });
  system.onInteractionEventObservable.add((e) => {
    if (e.event?.message !== "put down") return;
    system.release(LH, home.position, home.rotation);
    table.drag.enabled = true;
  });

  // the script's clock: rest, then the interaction; the clip's frame follows the interaction's timer
  const clipFrame = new Curve(CLIP.map(([time, value]) => ({ time, value, inTangent: 0, outTangent: 0 })));
  let rest = 0.6;
  let loop = 0;
  const time = () => system.getProgress(LH) * object.length;
  const hand = r.leftHand;
  const open = grip.fingers.map((ch) => curl(hand, ch));
  const joints = () => grip.fingers.flat().map(worldPos);
  // the fingers that wrap the cup's wall (the thumb may lie over its rim)
  const wrapping = () =>
    grip.fingers
      .slice(grip.thumb ? 1 : 0)
      .flat()
      .map(worldPos);
  // the nearest finger joint's distance from the cup's wall, in the cup's frame (it tilts in the hand)
  const toCup = new Matrix();
  const fingerGap = () => {
    cup.computeWorldMatrix(true).invertToRef(toCup);
    const gaps = wrapping().map((p) => Vector3.TransformCoordinates(p, toCup));
    return Math.min(...gaps.map((q) => Math.hypot(q.x, q.z) - cupRadius));
  };
  const record = (phase: string): Json => ({
    phase,
    loop,
    hand: arr(bonePos(r.leftHand)),
    grip: arr(worldPos(target)),
    cup: arr(worldPos(cup)),
    cupRadius,
    cupHeight,
    top,
    lowestFinger: grip.fingers.length > 0 ? Math.min(...joints().map((p) => p.y)) : null,
    fingerGap: grip.fingers.length > 0 ? fingerGap() : null,
    curl: grip.fingers.map((ch) => curl(hand, ch)),
    open,
    held: system.getHeldObject(LH) !== null,
    height: h,
  });
  let moved: Vector3 | null = null;
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({ cup: arr(worldPos(cup)), grip: arr(worldPos(target)), hand: arr(bonePos(r.leftHand)), t: time() }),
    update: (dt) => {
      // the panel's pause holds the script too: the interaction's timer drives the clip
      system.speed = ctx.paused() ? 0 : 1;
      if (ctx.paused()) return;
      if (!system.isInInteraction(LH)) {
        rest -= dt;
        if (rest <= 0) {
          system.startInteraction(LH, object, false);
          rest = 0.6;
          loop++;
        }
      }
      if (clip !== null) clip.goToFrame(clip.from + (clip.to - clip.from) * clipFrame.evaluate(time()));
    },
    after: () => {
      keepHome();
      // key moments after this frame's solve: grasped (fingers closed), lifted, put down, and a grasp after a move
      const t = time();
      const key = moved === null ? "" : "moved ";
      if (t > GRASP + 0.15 && t < GRASP + 0.3 && run.checks[`${key}grasp`] === undefined)
        run.checks[`${key}grasp`] = record("grasp");
      if (t > LIFTED + 0.2 && t < 2.8 && run.checks.lifted === undefined) run.checks.lifted = record("lifted");
      if (t > LET_GO + 0.1 && !held() && run.checks.lifted !== undefined && run.checks["put down"] === undefined) {
        const rec = record("put down") as { [k: string]: Json };
        rec.stood = arr(stood);
        run.checks["put down"] = rec;
      }
      run.done = ["grasp", "lifted", "put down"].every((k) => run.checks[k] !== undefined);
    },
    control: (cmd, arg) => {
      // "cup" [u, v]: move the cup on the table (as a drag would), once it is back on it
      if (cmd !== "cup" || !Array.isArray(arg) || system.getHeldObject(LH) !== null) return null;
      table.place(Number(arg[0]), Number(arg[1]));
      moved = cup.position.clone();
      return arr(moved);
    },
    dispose: () => {
      unstop();
      unlift();
      system.dispose();
    },
  };
  // from the front, a little to the right, the table across the view: the hand grips the cup from its left, so
  // from the reaching hand's side the lifted cup hid behind the fingers (the UAL's, 7 % of its wall in view) or the
  // chibi's fist; framed from the body (meshes' top included: a chibi's head is far above its head bone), the table
  // and the cup lifted; lower where a chibi's head, overhanging the table, hid the cup in the hand
  const tall = visibleHeight(c);
  const board = table.meshes[0]!.getBoundingInfo().boundingBox.vectorsWorld.map((v) => v.clone());
  const cupAt = [worldPos(cup), worldPos(target), worldPos(target).addInPlaceFromFloats(0, lift + cupHeight, 0)];
  const ball = headBall(c);
  for (const beta of [1.25, 1.35, 1.45]) {
    frameCamera(ctx, c, new Vector3(0, 0.5 * tall, 0).add(forward.scale(0.2 * h)), 2.7 * tall, 0.4, 1);
    ctx.camera.beta = beta;
    framePoints(ctx.camera, [...outline(c), ...board, ...cupAt]);
    if (!cupAt.some((p) => hiddenByHead(ctx.camera, ball, p))) break;
  }
  return run;
}

export const grab: Scenario = {
  name: "grab",
  title: "Grab",
  help:
    "InteractionSystem + HandPoser on PickUp_Table: the hand meets the cup, the fingers close, the cup is picked " +
    "up and put back. Drag the cup on the table.",
  build,
};
