/**
 * Runs of docs/API.md's examples of section 6 (interactions, grounding, offset modifiers) and of the head
 * effector, on the character (test/scenario/docs-examples-run.test.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import "@babylonjs/core/Materials/standardMaterial.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { CreateCapsule } from "@babylonjs/core/Meshes/Builders/capsuleBuilder.js";
import { Observable } from "@babylonjs/core/Misc/observable.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { PhysicsShapeType } from "@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js";
import { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import { PhysicsAggregate } from "@babylonjs/core/Physics/v2/physicsAggregate.js";
import { WebXRTrackingState } from "@babylonjs/core/XR/webXRTypes.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { expect } from "vitest";
import {
  FBBIKHeadEffector,
  FullBodyBipedEffector,
  type FullBodyBipedIK,
  type GrounderIK,
  type GrounderQuadruped,
  type InteractionObject,
  InteractionSystem,
} from "../../src/index.js";
import type { Side } from "./docs-character.js";
import { angleDeg, nodeAt, worldRotation } from "./docs-runs-biped.js";
import { type DocsWorld, type ExampleRun, expectNear, expectNoWarnings } from "./docs-world.js";
import { buildQuadruped } from "./quadruped-rig.js";
import { worldPos } from "./scene-probes.js";

/**
 * Flat ground at y 0 with a 0.1 step under both feet (under one only, the other foot's sphere cast of `Best`
 * would touch its edge: the feet stand closer than two foot radii).
 */
function terrain(world: DocsWorld, scene: Scene): { ground: Mesh; step: Mesh } {
  const ground = CreateBox("ground", { width: 4, height: 0.2, depth: 4 }, scene);
  ground.position.y = -0.1;
  const feet = Vector3.Center(world.pos("leftFoot"), world.pos("rightFoot"));
  const step = CreateBox("step", { width: 0.8, height: 0.1, depth: 0.8 }, scene);
  step.position.set(feet.x, 0.05, feet.z);
  for (const m of [ground, step]) m.computeWorldMatrix(true);
  return { ground, step };
}

/** Runs a grounding example and checks that the feet rose onto the step. */
async function grounded(world: DocsWorld, ground: (ik: FullBodyBipedIK, t: { ground: Mesh; step: Mesh }) => void) {
  const ik = await world.ik();
  world.frames(1);
  const left0 = world.pos("leftFoot");
  const right0 = world.pos("rightFoot");
  ground(ik, terrain(world, ik.scene));
  world.frames(30);
  expectFeetOnStep(world, left0.y, right0.y);
  expectNoWarnings(ik);
  return ik;
}

/** Both feet 0.1 above where they stood (`left0`, `right0`: their heights then), onto the step, within 5 mm. */
function expectFeetOnStep(world: DocsWorld, left0: number, right0: number): void {
  for (const [foot, y0] of [
    ["leftFoot", left0],
    ["rightFoot", right0],
  ] as const)
    expect(Math.abs(world.pos(foot).y - y0 - 0.1), `${foot} onto the 0.1 step`).toBeLessThan(0.005);
}

/** Havok's engine from its wasm in node_modules (Node has no fetch of it), as test/scenario/grounding-havok does. */
async function havokEngine(): Promise<unknown> {
  const bytes = readFileSync(createRequire(import.meta.url).resolve("@babylonjs/havok/lib/esm/HavokPhysics.wasm"));
  const { default: HavokPhysics } = await import("@babylonjs/havok");
  return HavokPhysics({ wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
}

/** Where the character's right hand reaches easily: in front of its right shoulder. */
function reachable(world: DocsWorld): Vector3 {
  return world.armReach("right", new Vector3(0.3, 0, 1), 0.75);
}

export const AROUND_RUNS: Record<string, ExampleRun> = {
  async grabCup({ world, load, logs }) {
    const ik = await world.ik();
    const cup = nodeAt(ik.scene, "cup", reachable(world));
    const parent0 = cup.parent;
    const { lift, drop } = (await load()).grabCup(ik, cup) as { lift: () => void; drop: () => void };
    world.onCleanUp(() => cup.dispose());
    expect(logs()[0]).toEqual([true, 0]);
    world.frames(45); // 0.5 s: paused on the cup, picked up
    expectNear("right hand on the cup", world.pos("rightHand"), world.nodePos(cup), 0.01 * world.h);
    expect(cup.parent).toBe(world.node("rightHand"));
    expect(logs().map((l) => String(l[0]))).toContain("cup picked up at 0.5 s");
    const cupOnHand = world.nodePos(cup);
    lift();
    world.frames(70);
    expect(logs().map((l) => l[0])).toEqual([
      true,
      "cup picked up at 0.5 s",
      { sound: "clink" },
      "the weights return to their defaults",
    ]);
    // the hand went back to the animation, holding the cup
    expect(Vector3.Distance(world.nodePos(cup), cupOnHand)).toBeGreaterThan(0.05 * world.h);
    expectNear("cup in the hand", world.nodePos(cup), world.pos("rightHand"), 0.01 * world.h);
    drop();
    expect(cup.parent).toBe(parent0);
    expectNoWarnings(ik);
  },

  async doorKnob({ world, load }) {
    const ik = await world.ik();
    const interactions = world.own(new InteractionSystem(ik));
    const knob = nodeAt(ik.scene, "knob", reachable(world));
    const object = (await load()).doorKnob(ik.scene, interactions, knob) as InteractionObject;
    expect(interactions.startInteraction(FullBodyBipedEffector.RightHand, object, false)).toBe(true);
    world.frames(40);
    const grip = ik.scene.getTransformNodeByName("knob grip")!;
    expectNear("right hand on the grip", world.pos("rightHand"), world.nodePos(grip), 0.01 * world.h);
    expect(interactions.isPaused(FullBodyBipedEffector.RightHand)).toBe(true);
    // the captured finger pose hangs under the grip
    expect(grip.getChildTransformNodes(false).length).toBeGreaterThan(10);
    expectNoWarnings(ik);
  },

  async climbOneRung({ world, load, logs }) {
    const ik = await world.ik();
    const interactions = world.own(new InteractionSystem(ik));
    // rungs 0.12 apart in front of the character, hands within reach
    const hold = (name: string, p: Vector3, up: number) => nodeAt(ik.scene, name, p.add(new Vector3(0, up, 0)));
    const hand = (side: Side, up: number) =>
      hold(`${side} hand hold`, world.armReach(side, new Vector3(0, -0.2, 1), 0.75), up);
    const foot = (side: Side, up: number) =>
      hold(`${side} foot hold`, world.pos(`${side}Foot`).add(new Vector3(0, 0.05, 0.15)), up);
    const hands = [0, 0.12].map((up) => [hand("left", up), hand("right", up)]);
    const feet = [0, 0.12].map((up) => [foot("left", up), foot("right", up)]);
    interactions.speed = 4; // the script in a quarter of its time: fewer frames to render
    world.own((await load()).climbOneRung(interactions, hands, feet));
    world.frames(70); // the last step at 2.9 s, 0.45 s to reach: 0.84 s at speed 4, then the body settles
    expect(logs().at(-1)).toEqual(["every limb is on its last hold"]);
    expect(logs().length).toBe(9);
    for (const [i, limb] of (["leftHand", "rightHand"] as const).entries())
      expectNear(limb, world.pos(limb), world.nodePos(hands[1]![i]!), 0.01 * world.h);
    for (const [i, limb] of (["leftFoot", "rightFoot"] as const).entries())
      expectNear(limb, world.pos(limb), world.nodePos(feet[1]![i]!), 0.01 * world.h);
    expectNoWarnings(ik);
  },

  async climbALadder({ world, load }) {
    const ik = await world.ik();
    const interactions = world.own(new InteractionSystem(ik));
    const { LeftHand: LH, RightHand: RH, LeftFoot: LF, RightFoot: RF } = FullBodyBipedEffector;
    // a ladder 0.4 in front: rungs every 0.3, hands from the fifth rung, feet from the first; two rungs climbed
    const z = world.pos("hips").z + 0.4;
    const rung = (i: number, x: number, up: number) =>
      nodeAt(ik.scene, `rung ${i} ${x}`, new Vector3(x, 0.3 * (i + 1) + up, z - 0.05));
    const hands = [4, 5, 6].map((i) => [rung(i, -0.18, 0.05), rung(i, 0.18, 0.05)] as const);
    const feet = [0, 1, 2].map((i) => [rung(i, -0.12, 0.09), rung(i, 0.12, 0.09)] as const);
    const steps = [
      { time: 0, limb: LH, hold: hands[0]![0] },
      { time: 0, limb: RH, hold: hands[0]![1] },
      { time: 0, limb: LF, hold: feet[0]![0] },
      { time: 0, limb: RF, hold: feet[0]![1] },
    ];
    for (let r = 1; r <= 2; r++) {
      const t = 0.8 + 2.4 * (r - 1);
      steps.push({ time: t, limb: RH, hold: hands[r]![1] }, { time: t + 0.6, limb: LF, hold: feet[r]![0] });
      steps.push({ time: t + 1.2, limb: LH, hold: hands[r]![0] }, { time: t + 1.8, limb: RF, hold: feet[r]![1] });
    }
    const root = ik.references.root!;
    const rootY = root.position.y;
    interactions.speed = 4; // the script in a quarter of its time
    const climb = world.own((await load()).climbALadder(interactions, root, steps));
    // both hands' fingers captured under the grip pose
    expect(climb.gripPose!.getChildTransformNodes(false).length).toBeGreaterThan(20);
    world.frames(110); // the last step at 5.0 s, 0.45 s to reach: 1.4 s at speed 4, then the root settles
    expect(climb.isFinished).toBe(true);
    // the root rose by the two rungs (0.6), the hands are on the top holds
    expect(root.position.y - rootY).toBeGreaterThan(0.55);
    expect(root.position.y - rootY).toBeLessThan(0.61);
    expectNear("left hand", world.pos("leftHand"), world.nodePos(hands[2]![0]), 0.01 * world.h);
    expectNear("right foot", world.pos("rightFoot"), world.nodePos(feet[2]![1]), 0.01 * world.h);
    // the fingers are in the grip pose: not a "no hand pose" warning
    expect(interactions.getPoser(LH)!.poseRoot).toBe(climb.gripPose);
    expectNoWarnings(ik);
    // stop() leaves the root up the ladder: the examples after this one share the character
    climb.stop();
    root.position.y = rootY;
  },

  async groundFeet({ world, load }) {
    const run = (await load()).groundFeet;
    let teleport: ((to: Vector3) => void) | null = null;
    const ik = await grounded(world, (ik, t) => {
      teleport = run(ik, [t.ground, t.step], ik.references.root);
    });
    teleport!(ik.references.root!.position.clone());
    world.frames(1);
  },

  async groundLimbLegs({ world, load }) {
    const run = (await load()).groundLimbLegs;
    const m = await world.model();
    world.frames(1);
    const left0 = world.pos("leftFoot");
    const right0 = world.pos("rightFoot");
    const t = terrain(world, m.scene);
    const sides = ["left", "right"] as const;
    const legBones = sides.map((s) => [world.bone(`${s}Thigh`), world.bone(`${s}Calf`), world.bone(`${s}Foot`)]);
    const grounder = world.own(run(m.scene, world.bone("hips"), legBones, [t.ground, t.step]) as GrounderIK);
    for (const leg of grounder.legs) world.own(leg);
    world.frames(30);
    expectFeetOnStep(world, left0.y, right0.y);
    for (const leg of grounder.legs) expectNoWarnings(leg);
  },

  async groundQuadruped({ world, load }) {
    const run = (await load()).groundQuadruped;
    const m = await world.model();
    // a creature built in code beside the character, its forelegs on a step 0.1 high
    const q = buildQuadruped(m.scene, new Vector3(3, 0, 0));
    const floor = world.own(CreateBox("ground", { width: 3, height: 0.2, depth: 3 }, m.scene));
    floor.position.set(3, -0.1, 0);
    const step = world.own(CreateBox("step", { width: 1, height: 0.1, depth: 1 }, m.scene));
    step.position.set(3, 0.05, 0.5);
    world.own(q.root);
    world.own(q.skeleton);
    world.frames(1);
    const grounder = world.own(run(m.scene, q.root, q, [floor, step]) as GrounderQuadruped);
    for (const leg of [...grounder.legs, ...grounder.forelegs]) world.own(leg);
    world.frames(60);
    // the tips on their ground (the CCD legs' residue, 3.5e-4 in grounder-quadruped.test.ts), the body pitched by
    // rootRotationWeight's default 0.5 toward the hips' slope (0.1 over 0.8: 7.13°), still easing in: 3.53°
    q.hindLegs.forEach((b) => expect(Math.abs(worldPos(b[3]!).y)).toBeLessThan(2e-3));
    q.foreLegs.forEach((b) => expect(Math.abs(worldPos(b[3]!).y - 0.1)).toBeLessThan(2e-3));
    expect(Math.abs(grounder.pitch - (0.5 * Math.atan2(0.1, 0.8) * 180) / Math.PI)).toBeLessThan(0.1);
    for (const leg of grounder.legs) expectNoWarnings(leg);
  },

  async groundOnTerrain({ world, load }) {
    const run = (await load()).groundOnTerrain;
    await grounded(world, (ik, t) => {
      world.own(run(ik, [t.ground, t.step]).grounder);
    });
  },

  async groundOnLevel({ world, load }) {
    const run = (await load()).groundOnLevel;
    await grounded(world, (ik, t) => {
      world.own(run(ik, [t.ground], [t.step]));
    });
  },

  async groundOnPhysics({ world, load }) {
    const run = (await load()).groundOnPhysics;
    const m = await world.model();
    const havok = new HavokPlugin(false, await havokEngine());
    m.scene.enablePhysics(new Vector3(0, -9.81, 0), havok);
    world.onCleanUp(() => m.scene.disablePhysicsEngine());
    await grounded(world, (ik, t) => {
      for (const mesh of [t.ground, t.step]) world.own(new PhysicsAggregate(mesh, PhysicsShapeType.BOX, { mass: 0 }));
      // the character's capsule, over its feet: the rays pass through it
      const capsule = CreateCapsule("capsule", { height: world.h, radius: 0.3 }, ik.scene);
      capsule.position.y = world.h / 2;
      const body = world.own(new PhysicsAggregate(capsule, PhysicsShapeType.CAPSULE, { mass: 0 })).body;
      world.own(run(ik, havok, body));
    });
  },

  async reactions({ world, load }) {
    const ik = await world.ik();
    const chest = CreateBox("chest collider", { size: 0.3 }, ik.scene);
    chest.parent = world.node("chest");
    const { hit, shoot } = (await load()).reactions(ik, chest) as {
      hit: (force: Vector3, at: Vector3) => void;
      shoot: () => void;
    };
    world.frames(1);
    const body0 = worldPos(ik.rootNode);
    hit(new Vector3(0, 0, 0.1), world.nodePos(chest));
    world.frames(6); // the offset peaks at 0.1 s
    expect(worldPos(ik.rootNode).z - body0.z, "pushed along the force").toBeGreaterThan(0.05);
    world.frames(30);
    expectNear("body back", worldPos(ik.rootNode), body0, 1e-3 * world.h);
    const hand0 = world.pos("rightHand");
    shoot();
    world.frames(3); // the recoil peaks at 0.05 s
    expect(Vector3.Distance(world.pos("rightHand"), hand0), "the shot kicks the right hand").toBeGreaterThan(0.04);
    world.frames(25);
    expectNear("right hand back", world.pos("rightHand"), hand0, 1e-3 * world.h);
    expectNoWarnings(ik);
  },

  async followTracking({ world, load }) {
    const ik = await world.ik();
    const headset = nodeAt(ik.scene, "headset", world.pos("head"));
    const head = world.own(FBBIKHeadEffector.create(ik, { target: headset }));
    // a WebXRCamera needs an XR session: only its tracking-state observable is used
    const xrCamera = { onTrackingStateChanged: new Observable<WebXRTrackingState>() };
    (await load()).followTracking(head, xrCamera);
    xrCamera.onTrackingStateChanged.notifyObservers(WebXRTrackingState.NOT_TRACKING);
    expect(head.weight).toBe(0);
    xrCamera.onTrackingStateChanged.notifyObservers(WebXRTrackingState.TRACKING);
    expect(head.weight).toBe(1);
  },

  async vrAvatar({ world, load }) {
    const ik = await world.ik();
    const headset = nodeAt(ik.scene, "headset", world.pos("head").add(new Vector3(0, -0.1, 0.1)));
    const left = nodeAt(ik.scene, "left", world.pos("leftHand").add(new Vector3(0.3, -0.2, 0.3)));
    const right = nodeAt(ik.scene, "right", world.pos("rightHand").add(new Vector3(-0.3, -0.2, 0.3)));
    // trackers with axes of their own (the world's, turned): not the bones'
    for (const [t, yaw] of [
      [headset, 0],
      [left, 0.7],
      [right, -0.7],
    ] as const)
      t.rotationQuaternion = Quaternion.RotationYawPitchRoll(yaw, 0.3, 0);
    const headTurn = worldRotation(world.node("head"));
    world.own((await load()).vrAvatar(ik, headset, left, right) as FBBIKHeadEffector);
    world.frames(30); // the hands ease in over 0.3 s
    expectNear("head on the headset", world.pos("head"), world.nodePos(headset), 0.01 * world.h);
    // the trackers did not turn since the targets were made: the head keeps its turn
    expect(angleDeg(worldRotation(world.node("head")), headTurn)).toBeLessThan(2);
    expectNear("left hand", world.pos("leftHand"), world.nodePos(left), 0.01 * world.h);
    expectNear("right hand", world.pos("rightHand"), world.nodePos(right), 0.01 * world.h);
    expectNoWarnings(ik);
  },
};
