import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { Curve } from "../../../src/effectors/curve";
import { InteractionCurveType } from "../../../src/effectors/interaction/interaction-curves";
import { InteractionObject } from "../../../src/effectors/interaction/interaction-object";
import { InteractionSystem } from "../../../src/effectors/interaction/interaction-system";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import {
  armLength,
  arr,
  bonePos,
  boneRotation,
  type Ctx,
  frameCamera,
  type Json,
  keyBone,
  mat,
  type ScenarioRun,
  worldPos,
  type Scenario,
} from "../kit";

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const L = armLength(c, false);
  const shoulder = bonePos(r.rightUpperArm);
  // the cup beyond arm's reach: the body has to lean in (pull)
  const cupHome = shoulder.add(forward.scale(1.2 * L)).add(right.scale(-0.15 * L));
  const tableTop = shoulder.y - 0.75 * L;
  cupHome.y = tableTop + 0.05 * h;
  const table = CreateBox("table", { width: 0.9 * h, height: 0.04 * h, depth: 0.5 * h }, scene);
  table.rotationQuaternion = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  table.position.copyFrom(cupHome.add(forward.scale(0.12 * h)));
  table.position.y = tableTop - 0.02 * h;
  table.material = mat(scene, "table", new Color3(0.55, 0.38, 0.22));
  const legs: Mesh[] = [];
  for (const [a, b] of [
    [-1, -1],
    [-1, 1],
    [1, -1],
    [1, 1],
  ] as const) {
    const leg = CreateBox("leg", { width: 0.03 * h, height: tableTop, depth: 0.03 * h }, scene);
    leg.position.copyFrom(table.position.add(right.scale(a * 0.42 * h)).add(forward.scale(b * 0.22 * h)));
    leg.position.y = tableTop / 2 - 0.02 * h;
    leg.material = table.material;
    legs.push(leg);
  }
  const cupRadius = 0.035 * h;
  const cup = CreateCylinder("cup", { height: 0.1 * h, diameter: 2 * cupRadius }, scene);
  cup.material = mat(scene, "cup", new Color3(0.85, 0.15, 0.15));
  cup.position.copyFrom(cupHome);
  for (const m of [table, cup, ...legs]) {
    ctx.shadows.addShadowCaster(m, false);
    m.receiveShadows = true;
  }
  // the grip: the hand's target, beside the cup toward the character, turned like the hand at rest
  const grip = new TransformNode("grip", scene);
  grip.parent = cup;
  grip.position.copyFrom(forward.scale(-(cupRadius + 0.015 * h)));
  const handRot = boneRotation(r.rightHand);
  grip.rotationQuaternion = handRot;

  const system = new InteractionSystem(ik);
  const object = new InteractionObject(grip, {
    weightCurves: [
      { type: InteractionCurveType.PositionWeight, curve: Curve.riseHoldFall(0.9, 1.1, 1.9) },
      { type: InteractionCurveType.RotationWeight, curve: Curve.riseHoldFall(0.9, 1.1, 1.9) },
    ],
    events: [{ time: 1.0, pause: true }],
  });
  const RH = FullBodyBipedEffector.RightHand;
  let phase: "reach" | "lift" | "hold" | "down" | "release" | "rest" = "rest";
  let t = 0.5;
  let graspFrames = 0;
  // a pose record: solved bones, their animation-only positions this frame, the cup and the grip
  const record = (): Json => {
    const solved: { [k: string]: Json } = {};
    const animated: { [k: string]: Json } = {};
    for (const k of ["pelvis", "chest", "leftShoulder", "rightShoulder", "leftHand", "rightHand"] as const) {
      solved[k] = arr(bonePos(keyBone(c, k)));
      const a = c.animated[k];
      if (a !== undefined) animated[k] = arr(a);
    }
    return { phase, solved, animated, cup: arr(worldPos(cup)), grip: arr(worldPos(grip)), cupRadius, height: h };
  };
  // the cup lifted a fraction `e` (0: on the table, 1: up and toward the character)
  const liftCup = (e: number) => {
    cup.position.copyFrom(cupHome);
    cup.position.y += 0.15 * h * e;
    cup.position.addInPlace(forward.scale(-0.1 * h * e));
  };
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      cup: arr(worldPos(cup)),
      grip: arr(worldPos(grip)),
      rightHand: arr(bonePos(r.rightHand)),
      leftHand: arr(bonePos(r.leftHand)),
      phase,
      height: h,
    }),
    after: () => {
      // the key moments of the first loop, after this frame's solve
      if (phase === "rest" && t > 0.6 && run.checks.rest === undefined) run.checks.rest = record();
      if (phase === "reach" && system.isPaused(RH) && graspFrames >= 2 && run.checks.grasp === undefined)
        run.checks.grasp = record();
      if (phase === "hold" && t > 0.4 && run.checks.hold === undefined) {
        run.checks.hold = record();
        run.done = run.checks.rest !== undefined && run.checks.grasp !== undefined;
      }
    },
    update: (dt) => {
      t += dt;
      switch (phase) {
        case "rest":
          if (t > 0.8) {
            cup.position.copyFrom(cupHome);
            system.startInteraction(RH, object, true);
            phase = "reach";
            t = 0;
          }
          break;
        case "reach":
          if (system.isPaused(RH)) {
            // a few frames holding the cup at the grasp (measured in `after`), then lift
            if (++graspFrames >= 4) {
              phase = "lift";
              t = 0;
            }
          }
          break;
        case "lift": {
          const k = Math.min(1, t / 0.8);
          liftCup(0.5 - 0.5 * Math.cos(Math.PI * k));
          if (k >= 1) {
            phase = "hold";
            t = 0;
          }
          break;
        }
        case "hold":
          if (t > 0.8) {
            phase = "down";
            t = 0;
          }
          break;
        case "down": {
          const k = Math.min(1, t / 0.8);
          liftCup(0.5 + 0.5 * Math.cos(Math.PI * k));
          if (k >= 1) {
            system.resumeInteraction(RH);
            phase = "release";
            t = 0;
          }
          break;
        }
        case "release":
          if (!system.isInInteraction(RH)) {
            phase = "rest";
            t = 0;
            graspFrames = 0;
          }
          break;
      }
    },
    dispose: () => system.dispose(),
  };
  // from the side, a little in front: the reach, the lean and the cup all in view
  const mid = cupHome.add(bonePos(r.pelvis)).scale(0.5);
  mid.y = 0.5 * h;
  frameCamera(ctx, c, mid, 3.6 * h, 1, 0.6);
  ctx.camera.beta = 1.1;
  return run;
}

export const grab: Scenario = {
  name: "grab",
  title: "Grab",
  help:
    "InteractionSystem: the right hand reaches for the cup, grasps it, lifts it and puts it back; " +
    "the body leans in.",
  build,
};
