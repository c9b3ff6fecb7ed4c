/**
 * FBBIKHeadEffector on the real models (UAL always, Xbot when ../shared/assets/models has it), in left- and
 * right-handed scenes: the head reaches a headset moved down, forward and sideways by up to 20 % of the
 * height and turned up to 45°, within 1e-6 of the height (docs/API.md §7) and 2°, while both hands hold their
 * targets within 1 % of the height; weight 0 leaves the IK's output bit for bit; non-finite targets are ignored and warned
 * once; dispose removes the hooks. Tracking lost and back eases the head and, with `fadeSeconds`, the hands.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FBBIKHeadEffector, type FBBIKHeadEffectorOptions } from "../../src/effectors/head/fbbik-head-effector.js";
import { type LoadedModel, type ModelName, modelAvailable } from "../helpers/babylon-scene.js";
import { disposeOpen, height, load, report, worldPos } from "../helpers/modifier-scene.js";

/** The clips the tests play: an idle one, else the first (the others are not loaded: most of a load is clips). */
const IDLE = (name: string, index: number) => /idle/i.test(name) || index === 0;

afterEach(disposeOpen);

const MODELS: ModelName[] = (["UAL", "Xbot"] as const).filter((m) => modelAvailable(m));

/** A VR rig on a model: the IK, the head effector on a headset node, and two controllers on the hands. */
interface VRRig {
  m: LoadedModel;
  ik: FullBodyBipedIK;
  head: FBBIKHeadEffector;
  headset: TransformNode;
  controllers: [TransformNode, TransformNode];
  h: number;
  up: Vector3;
  forward: Vector3;
  right: Vector3;
  /** +1 when the left hand is on the `right` side of the head (a mirrored scene), −1 otherwise. */
  leftSide: number;
  headRest: Vector3;
  headRestRotation: Quaternion;
}

function nodeOf(b: Bone): TransformNode {
  return b.getTransformNode()!;
}

/** The character's forward on the ground plane: from the heels to the toes. */
function characterForward(ik: FullBodyBipedIK): Vector3 {
  const r = ik.references;
  const feet = [r.leftFoot, r.rightFoot];
  const f = new Vector3();
  for (const foot of feet) {
    const toe = foot.children[0];
    if (toe !== undefined) f.addInPlace(worldPos(toe).subtract(worldPos(foot)));
  }
  f.y = 0;
  return f.normalize();
}

async function vrRig(m: LoadedModel, options: (ik: FullBodyBipedIK) => FBBIKHeadEffectorOptions): Promise<VRRig> {
  const rightHanded = m.scene.useRightHandedSystem;
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const h = height(m);
  const headNode = nodeOf(ik.references.head!);
  headNode.computeWorldMatrix(true);
  const headset = new TransformNode("headset", m.scene);
  headset.position.copyFrom(headNode.getAbsolutePosition());
  headset.rotationQuaternion = headNode.absoluteRotationQuaternion.clone();
  const controllers: [TransformNode, TransformNode] = [
    new TransformNode("left", m.scene),
    new TransformNode("right", m.scene),
  ];
  const head = FBBIKHeadEffector.create(ik, { target: headset, ...options(ik) });
  ik.solver.leftHandEffector.target = controllers[0];
  ik.solver.rightHandEffector.target = controllers[1];
  ik.solver.leftHandEffector.positionWeight = 1;
  ik.solver.rightHandEffector.positionWeight = 1;
  const up = new Vector3(0, 1, 0);
  const forward = characterForward(ik);
  const right = rightHanded ? Vector3.Cross(forward, up) : Vector3.Cross(up, forward);
  // which side is the left hand on: the controllers go to the hands' own sides
  const side = Vector3.Dot(worldPos(ik.references.leftHand).subtract(headset.position), right) < 0 ? -1 : 1;
  const rig: VRRig = {
    m,
    ik,
    head,
    headset,
    controllers,
    h,
    up,
    forward,
    right,
    leftSide: side,
    headRest: headset.position.clone(),
    headRestRotation: headset.rotationQuaternion.clone(),
  };
  return rig;
}

/**
 * Moves the headset by `offset` (in units of h along right, up, forward) and turns it by `turn`, then puts
 * the controllers within reach: solved once with the hands free (the torso does not depend on them unless
 * they pull it), each controller goes 60 % of the arm's length from its upper arm, forward and down.
 */
function pose(rig: VRRig, offset: [number, number, number], turn: Quaternion): void {
  const { h, right, up, forward, ik } = rig;
  const p = rig.headRest
    .add(right.scale(offset[0] * h))
    .add(up.scale(offset[1] * h))
    .add(forward.scale(offset[2] * h));
  rig.headset.position.copyFrom(p);
  rig.headset.rotationQuaternion = turn.multiply(rig.headRestRotation);
  const hands = [ik.solver.leftHandEffector, ik.solver.rightHandEffector];
  for (const e of hands) e.positionWeight = 0;
  rig.m.scene.render();
  const r = ik.references;
  const arms = [
    [r.leftUpperArm, r.leftForearm, r.leftHand],
    [r.rightUpperArm, r.rightForearm, r.rightHand],
  ] as const;
  for (let i = 0; i < 2; i++) {
    const [upper, fore, hand] = arms[i]!;
    const s = worldPos(upper);
    const length = Vector3.Distance(s, worldPos(fore)) + Vector3.Distance(worldPos(fore), worldPos(hand));
    const dir = forward.subtract(up).normalize();
    rig.controllers[i]!.position.copyFrom(s.add(dir.scale(0.6 * length)));
    hands[i]!.positionWeight = 1;
  }
}

interface Errors {
  head: number;
  angle: number;
  hands: number;
}

function measure(rig: VRRig): Errors {
  const r = rig.ik.references;
  const headNode = nodeOf(r.head!);
  headNode.computeWorldMatrix(true);
  const head = Vector3.Distance(headNode.getAbsolutePosition(), rig.headset.position) / rig.h;
  const q = headNode.absoluteRotationQuaternion;
  const t = rig.headset.rotationQuaternion!;
  const angle = (2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(q, t)))) * 180) / Math.PI;
  const hands = Math.max(
    Vector3.Distance(worldPos(r.leftHand), rig.controllers[0].position),
    Vector3.Distance(worldPos(r.rightHand), rig.controllers[1].position),
  );
  return { head, angle, hands: hands / rig.h };
}

const CASES: { name: string; offset: [number, number, number]; axis: Vector3; angle: number }[] = [
  { name: "down 20 %", offset: [0, -0.2, 0], axis: new Vector3(1, 0, 0), angle: 0 },
  { name: "forward 20 %", offset: [0, 0, 0.2], axis: new Vector3(1, 0, 0), angle: 30 },
  { name: "sideways 20 %", offset: [0.2, 0, 0], axis: new Vector3(0, 0, 1), angle: 20 },
  { name: "down+forward, yaw 45°", offset: [0, -0.15, 0.15], axis: new Vector3(0, 1, 0), angle: 45 },
  { name: "sideways+down, pitch 45°", offset: [-0.12, -0.12, 0.05], axis: new Vector3(1, 0, 0), angle: 45 },
  { name: "all three, roll 45°", offset: [0.1, -0.1, 0.1], axis: new Vector3(0, 0, 1), angle: 45 },
  { name: "turned only, yaw −45°", offset: [0, 0, 0], axis: new Vector3(0, 1, 0), angle: -45 },
];

/** Variants of the settings the accuracy test runs with. */
const VARIANTS: { label: string; options: (ik: FullBodyBipedIK) => FBBIKHeadEffectorOptions }[] = [
  { label: "defaults", options: () => ({}) },
  {
    label: "CCD over spine and neck, rigid body, no clamps",
    options: (ik) => {
      const r = ik.references;
      return {
        CCDBones: [...r.spine, r.head!.getParent()!],
        roll: 0.5,
        bodyWeight: 1,
        thighWeight: 1,
        bodyClampWeight: 0,
        headClampWeight: 0,
      };
    },
  },
  { label: "no bend, body half", options: () => ({ bendWeight: 0, bodyWeight: 0.5, thighWeight: 0.3 }) },
];

/**
 * The heap tests' rig and its updates, each a frame of its own: the headset and the controllers step through seven
 * places made beforehand; with `switchOn(true)` the head effector is on, and tracking is lost and back every 60
 * updates (the head's and the left hand's targets and weights, the hand fading); `switchOn(false)`: the IK alone.
 */
async function updatingRig(
  name: ModelName,
): Promise<{ rig: VRRig; run: (frames: number) => void; switchOn: (on: boolean) => void; loop: { fades: boolean } }> {
  const m = await load(name, false, IDLE);
  const rig = await vrRig(m, (ik) => ({
    CCDBones: ik.references.spine,
    stretchBones: [ik.references.head!.getParent()!],
    fixHead: true,
  }));
  pose(rig, [0.05, -0.1, 0.1], Quaternion.RotationAxis(rig.up, 0.5));
  const p0 = rig.headset.position.clone();
  const h = rig.h;
  const spare = new TransformNode("spare", m.scene);
  spare.position.copyFrom(p0).addInPlace(rig.forward.scale(0.1 * h));
  // the headset's places made beforehand: a double handed to Babylon's setters may be boxed (see `run`); the
  // last one lower than the legs fold (minKneeAngle lifts the torso, the thighs' trail is capped), the
  // controllers lowered with it (within reach: the solver's PullBody is not what this counts)
  const places = [0, 1, 2, 3, 4, 5, 6].map((i) => p0.add(new Vector3(0.002 * h * i, i === 6 ? -h : 0, 0)));
  const held = rig.controllers.map((c) => [c.position.clone(), c.position.add(new Vector3(0, -0.6 * h, 0))]);
  const loop = { fades: false };
  const left = rig.ik.solver.leftHandEffector;
  const run = (frames: number): void => {
    for (let f = 0; f < frames; f++) {
      // each update a frame of its own, so the fades move by the scene's delta time
      (m.scene as unknown as { _frameId: number })._frameId++;
      rig.headset.position.copyFrom(places[f % 7]!);
      for (let i = 0; i < 2; i++) rig.controllers[i]!.position.copyFrom(held[i]![f % 7 === 6 ? 1 : 0]!);
      if (loop.fades) {
        // tracking lost and back: another node, then the weight dropped and restored
        const k = f % 60;
        if (k === 5) rig.head.target = spare;
        else if (k === 15) rig.head.target = rig.headset;
        else if (k === 30) rig.head.weight = 0;
        else if (k === 40) rig.head.weight = 1;
        // and a controller's: another node and back, the weights dropped and restored
        else if (k === 10) left.target = spare;
        else if (k === 20) left.target = rig.controllers[0];
        else if (k === 45) left.positionWeight = 0;
        else if (k === 55) left.positionWeight = 1;
      }
      rig.ik.update();
    }
  };
  const switchOn = (on: boolean): void => {
    rig.head.enabled = on;
    loop.fades = on;
    left.fadeSeconds = on ? 0.3 : 0;
  };
  return { rig, run, switchOn, loop };
}

/**
 * The least heap growth of `rounds` rounds of 1,000 updates: JIT work elsewhere can add to one round, and a round
 * with a garbage collection shrinks and is left out (0 when every round had one).
 */
function leastGrowth(run: (frames: number) => void, rounds: number): number {
  let grown = Infinity;
  for (let round = 0; round < rounds; round++) {
    const before = process.memoryUsage().heapUsed;
    run(1000);
    const g = process.memoryUsage().heapUsed - before;
    if (g >= 0) grown = Math.min(grown, g);
  }
  return grown === Infinity ? 0 : grown;
}

describe.each(MODELS)("FBBIKHeadEffector on %s", (name) => {
  // first in the file: what it counts is the code V8 has not optimised yet when the effector is switched off
  it("switched off after the fades, the IK alone allocates nothing from its third 1,000 updates (heap growth)", async () => {
    const { run, switchOn } = await updatingRig(name);
    switchOn(true);
    run(6000);
    switchOn(false);
    run(2000);
    const grown = leastGrowth(run, 3);
    report(`head effector ${name} off after the fades: heap growth per 1,000 updates (B)`, grown);
    // measured 240–700 B; UAL's was 32,256 B in every run while the pelvis's leg test warmed up on its own, boxing
    // the two feet's weights
    expect(grown).toBeLessThan(8_000);
  });

  for (const rightHanded of [false, true]) {
    for (const variant of VARIANTS) {
      it(`reaches the headset, hands on the controllers (${rightHanded ? "RH" : "LH"}, ${variant.label})`, async () => {
        const m = await load(name, rightHanded, IDLE);
        const rig = await vrRig(m, variant.options);
        let worst: Errors = { head: 0, angle: 0, hands: 0 };
        for (const c of CASES) {
          const axis = c.axis.x !== 0 ? rig.right : c.axis.y !== 0 ? rig.up : rig.forward;
          pose(rig, c.offset, Quaternion.RotationAxis(axis, (c.angle * Math.PI) / 180));
          for (let f = 0; f < 2; f++) rig.m.scene.render();
          const e = measure(rig);
          worst = {
            head: Math.max(worst.head, e.head),
            angle: Math.max(worst.angle, e.angle),
            hands: Math.max(worst.hands, e.hands),
          };
        }
        report(
          `head effector ${name} ${rightHanded ? "RH" : "LH"} ${variant.label}: head/h, °, hands/h`,
          worst.head,
          worst.angle,
          worst.hands,
        );
        // measured 1.8e-7 (UAL), 1.0e-7 (Xbot; 4.3e-3 before the spine bent the chest onto its plane)
        expect(worst.head).toBeLessThan(1e-6);
        expect(worst.angle).toBeLessThan(2);
        expect(worst.hands).toBeLessThan(0.01);
        expect(rig.ik.warningsRaised.filter((w) => w.cause.startsWith("headEffector"))).toEqual([]);
      });
    }
  }

  it("follows a moving, turning headset while the idle clip plays (60 frames, LH and RH)", async () => {
    for (const rightHanded of [false, true]) {
      const m = await load(name, rightHanded, IDLE);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const idle = m.container.animationGroups.find((g) => /idle/i.test(g.name)) ?? m.container.animationGroups[0]!;
      idle.start(true);
      m.scene.render();
      const h = height(m);
      const headNode = nodeOf(ik.references.head!);
      headNode.computeWorldMatrix(true);
      const base = headNode.getAbsolutePosition().clone();
      const rest = headNode.absoluteRotationQuaternion.clone();
      const headset = new TransformNode("headset", m.scene);
      FBBIKHeadEffector.create(ik, { target: headset });
      let worst = 0;
      let worstAngle = 0;
      for (let f = 0; f < 60; f++) {
        headset.position.copyFrom(base.add(new Vector3(0.05 * h * Math.sin(f / 10), -0.1 * h, 0.05 * h)));
        headset.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.5 * Math.sin(f / 7)).multiply(rest);
        m.scene.render();
        headNode.computeWorldMatrix(true);
        worst = Math.max(worst, Vector3.Distance(headNode.getAbsolutePosition(), headset.position) / h);
        const d = Math.min(
          1,
          Math.abs(Quaternion.Dot(headNode.absoluteRotationQuaternion, headset.rotationQuaternion)),
        );
        worstAngle = Math.max(worstAngle, (2 * Math.acos(d) * 180) / Math.PI);
      }
      report(`head effector ${name} ${rightHanded ? "RH" : "LH"} idle playing: head/h, °`, worst, worstAngle);
      // measured 2.2e-7 (UAL), 1.5e-7 (Xbot; 1.3e-4 before the spine bent the chest onto its plane)
      expect(worst).toBeLessThan(1e-6);
      expect(worstAngle).toBeLessThan(2);
    }
  });

  it("with weight 0 the IK's output is bit for bit the IK's alone (hands driven, idle playing)", async () => {
    const bones: number[][] = [];
    for (const withHead of [false, true]) {
      const m = await load(name, false, IDLE);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const r = ik.references;
      const idle = m.container.animationGroups.find((g) => /idle/i.test(g.name)) ?? m.container.animationGroups[0];
      idle?.start(true);
      ik.solver.leftHandEffector.position.copyFrom(worldPos(r.leftHand).add(new Vector3(0.05, 0.1, 0.05)));
      ik.solver.leftHandEffector.positionWeight = 1;
      if (withHead) {
        const headset = new TransformNode("headset", m.scene);
        headset.position.copyFrom(worldPos(r.head!).add(new Vector3(0.1, -0.2, 0.1)));
        const head = FBBIKHeadEffector.create(ik, { target: headset, weight: 0, CCDBones: r.spine });
        for (let f = 0; f < 5; f++) m.scene.render();
        head.weight = 1;
        m.scene.render();
        head.weight = 0;
      } else {
        for (let f = 0; f < 6; f++) m.scene.render();
      }
      for (let f = 0; f < 3; f++) m.scene.render();
      bones.push(
        m.skeleton.bones.flatMap((b) => {
          const n = b.getTransformNode()!;
          return [...n.position.asArray(), ...n.rotationQuaternion!.asArray()];
        }),
      );
    }
    expect(bones[1]).toEqual(bones[0]);
  });

  it("tracking lost and back eases the body over fadeSeconds; tracking a moving headset is FinalIK's, bit for bit", async () => {
    const m = await load(name, false, IDLE);
    const rig = await vrRig(m, () => ({}));
    const { ik, head, h } = rig;
    // the hands free: only the head moves the body
    ik.solver.leftHandEffector.positionWeight = 0;
    ik.solver.rightHandEffector.positionWeight = 0;
    const r = ik.references;
    const place = (node: TransformNode, offset: readonly number[], yaw: number): void => {
      node.position.copyFrom(
        rig.headRest
          .add(rig.right.scale(offset[0]! * h))
          .add(rig.up.scale(offset[1]! * h))
          .add(rig.forward.scale(offset[2]! * h)),
      );
      node.rotationQuaternion = Quaternion.RotationAxis(rig.up, yaw).multiply(rig.headRestRotation);
    };
    let pelvis = worldPos(r.pelvis);
    let headAt = worldPos(r.head!);
    /** Renders `frames` frames: the largest pelvis and head moves between two of them, in h. */
    const moves = (frames: number): [number, number] => {
      const most: [number, number] = [0, 0];
      for (let f = 0; f < frames; f++) {
        m.scene.render();
        const p = worldPos(r.pelvis);
        const hd = worldPos(r.head!);
        most[0] = Math.max(most[0], Vector3.Distance(p, pelvis) / h);
        most[1] = Math.max(most[1], Vector3.Distance(hd, headAt) / h);
        pelvis = p;
        headAt = hd;
      }
      return most;
    };
    // two places far apart: crouched and leaning forward; standing, sideways and turned 40°
    const places = [
      { offset: [0, -0.15, 0.1], yaw: 0 },
      { offset: [0.1, -0.05, 0.05], yaw: 0.7 },
    ];
    let node = rig.headset;
    place(node, places[0]!.offset, places[0]!.yaw);
    moves(3);
    // tracking lost three ways: the pose held (target null), let go (weight 0), the node disposed and another
    // one given; meanwhile the user moved to the other place, where tracking comes back
    const ways = ["target null", "weight 0", "new node", "target null, fadeSeconds 0"] as const;
    const figures: number[] = [];
    for (let i = 0; i < ways.length; i++) {
      const way = ways[i]!;
      if (way === "weight 0") head.weight = 0;
      else if (way === "new node") node.dispose();
      else head.target = null;
      if (way.endsWith("fadeSeconds 0")) head.fadeSeconds = 0;
      const lost = moves(20);
      if (way === "new node") node = new TransformNode("headset again", m.scene);
      const to = places[(i + 1) % 2]!;
      place(node, to.offset, to.yaw);
      if (way === "weight 0") head.weight = 1;
      else head.target = node;
      const back = moves(40);
      const error = Vector3.Distance(worldPos(r.head!), node.position) / h;
      figures.push(...lost, ...back, error);
      if (way.endsWith("fadeSeconds 0")) {
        // FinalIK's: the body goes to the headset in one frame
        expect(back[0]).toBeGreaterThan(0.05);
      } else {
        // measured 0.4–1.1 % of h a frame (before: 11–15 %, the whole way in one frame); 0.3 s at 60 FPS
        expect(Math.max(...lost, ...back), way).toBeLessThan(0.025);
      }
      expect(error, way).toBeLessThan(0.01);
    }
    report(
      `head effector ${name} tracking lost and back, per way [lost pelvis, head; back pelvis, head; error] /h`,
      ...figures,
    );

    // a moving headset, and weights changed no faster than 1/fadeSeconds a second: as without the fade
    head.fadeSeconds = 0.3;
    const path = (): { bones: number[]; worst: number } => {
      place(node, places[0]!.offset, 0);
      head.rotationWeight = 1;
      for (let f = 0; f < 3; f++) m.scene.render();
      const bones: number[] = [];
      let worst = 0;
      for (let f = 0; f < 40; f++) {
        const u = Math.sin(f / 6);
        place(node, [0.05 * u, -0.15 + 0.05 * u, 0.1], 0.4 * u);
        // 1 → 0.6 → 1 at 0.02 a frame: 1.25 a second, below 1 / 0.3 s
        head.rotationWeight = 1 - 0.02 * Math.min(f, 40 - f);
        m.scene.render();
        worst = Math.max(worst, Vector3.Distance(worldPos(r.head!), node.position) / h);
        for (const b of m.skeleton.bones) {
          const t = b.getTransformNode()!;
          bones.push(...t.position.asArray(), ...t.rotationQuaternion!.asArray());
        }
      }
      return { bones, worst };
    };
    const eased = path();
    head.fadeSeconds = 0;
    const plain = path();
    report(`head effector ${name} moving headset: worst head error /h, eased and not`, eased.worst, plain.worst);
    expect(eased.worst).toBeLessThan(0.01);
    expect(eased.bones).toEqual(plain.bones);
  });

  it("hands with fadeSeconds: a controller lost and back eases the hand and the body; 0 is FinalIK's, bit for bit", async () => {
    const m = await load(name, false, IDLE);
    const rig = await vrRig(m, () => ({}));
    const { ik, h } = rig;
    pose(rig, [0, -0.05, 0.05], Quaternion.Identity());
    const r = ik.references;
    const hands = [ik.solver.leftHandEffector, ik.solver.rightHandEffector] as const;
    const bones = [r.leftHand, r.rightHand] as const;
    // the recipe's: the controllers hold the hands' rotations, taken by rotationWeight 1
    for (let i = 0; i < 2; i++) {
      rig.controllers[i]!.rotationQuaternion = nodeOf(bones[i]!).absoluteRotationQuaternion.clone();
      hands[i]!.rotationWeight = 1;
    }
    const hand = hands[0];
    const turned = rig.controllers[0].rotationQuaternion!.clone();
    // the left controller's two places: within reach, and 20 % of the height further forward (the body is pulled)
    const places = [rig.controllers[0].position.clone(), rig.controllers[0].position.add(rig.forward.scale(0.2 * h))];
    let pelvis = worldPos(r.pelvis);
    let handAt = worldPos(r.leftHand);
    const frames: number[] = [];
    /** Renders `count` frames: the largest pelvis and hand moves between two of them, in h; records the bones. */
    const moves = (count: number): [number, number] => {
      const most: [number, number] = [0, 0];
      for (let f = 0; f < count; f++) {
        m.scene.render();
        const p = worldPos(r.pelvis);
        const hd = worldPos(r.leftHand);
        most[0] = Math.max(most[0], Vector3.Distance(p, pelvis) / h);
        most[1] = Math.max(most[1], Vector3.Distance(hd, handAt) / h);
        pelvis = p;
        handAt = hd;
        for (const b of m.skeleton.bones) {
          const t = b.getTransformNode()!;
          frames.push(...t.position.asArray(), ...t.rotationQuaternion!.asArray());
        }
      }
      return most;
    };
    // tracking lost three ways (the pose held, let go, the node disposed and another given); meanwhile the
    // controller went to the other place, where tracking comes back
    const ways = ["target null", "weights 0", "new node"] as const;
    const run = (seconds: number | null): { figures: number[]; bones: number[] } => {
      if (seconds !== null) for (const e of hands) e.fadeSeconds = seconds;
      let node = rig.controllers[0];
      node.position.copyFrom(places[0]!);
      moves(20);
      frames.length = 0;
      const figures: number[] = [];
      for (let i = 0; i < ways.length; i++) {
        const way = ways[i]!;
        if (way === "weights 0") hand.positionWeight = hand.rotationWeight = 0;
        else if (way === "new node") node.dispose();
        else hand.target = null;
        const lost = moves(20);
        if (way === "new node") {
          node = new TransformNode("controller again", m.scene);
          node.rotationQuaternion = turned.clone();
        }
        node.position.copyFrom(places[(i + 1) % 2]!);
        if (way === "weights 0") hand.positionWeight = hand.rotationWeight = 1;
        else hand.target = node;
        const back = moves(40);
        figures.push(...lost, ...back, Vector3.Distance(worldPos(r.leftHand), node.position) / h);
      }
      rig.controllers[0] = node;
      return { figures, bones: [...frames] };
    };
    // as the effector was created (fadeSeconds never set), eased, then set back to 0
    const plain = run(null);
    const eased = run(0.3);
    const off = run(0);
    report(
      `hand effector ${name} controller lost and back, per way [lost pelvis, hand; back pelvis, hand; error] /h`,
      ...plain.figures,
      ...eased.figures,
    );
    for (let i = 0; i < ways.length; i++) {
      const [lostPelvis, lostHand, backPelvis, backHand, error] = eased.figures.slice(5 * i, 5 * i + 5) as number[];
      const [, , , plainHand, plainError] = plain.figures.slice(5 * i, 5 * i + 5) as number[];
      // FinalIK's: the hand goes the whole way in one frame
      expect(plainHand, ways[i]).toBeGreaterThan(0.1);
      expect(Math.max(lostPelvis!, lostHand!, backPelvis!, backHand!), ways[i]).toBeLessThan(0.03);
      expect(error, ways[i]).toBeLessThan(0.01);
      expect(plainError, ways[i]).toBeLessThan(0.01);
    }
    expect(ik.warningsRaised.map((w) => w.cause)).toContain("LeftHand:target-disposed");
    // after the ease, fadeSeconds 0 is again what the effector did before it, bit for bit
    expect(off.bones).toEqual(plain.bones);

    // a controller that keeps its node and moves, weights changed no faster than 1/fadeSeconds: as without
    const path = (seconds: number): number[] => {
      hand.fadeSeconds = seconds;
      const node = rig.controllers[0];
      node.position.copyFrom(places[0]!);
      moves(5);
      frames.length = 0;
      for (let f = 0; f < 40; f++) {
        const u = Math.sin(f / 6);
        node.position
          .copyFrom(places[0]!)
          .addInPlace(rig.forward.scale(0.1 * h * u))
          .addInPlace(rig.up.scale(0.05 * h * u));
        node.rotationQuaternion = Quaternion.RotationAxis(rig.up, 0.4 * u).multiply(turned);
        // 1 → 0.6 → 1 at 0.02 a frame: 1.25 a second, below 1 / 0.3 s
        hand.positionWeight = 1 - 0.02 * Math.min(f, 40 - f);
        moves(1);
      }
      return [...frames];
    };
    expect(path(0.3)).toEqual(path(0));

    // the weights read back are the ones set: the eased ones stand in the solver during its solve only
    hand.fadeSeconds = 0.3;
    hand.positionWeight = 1;
    m.scene.render();
    let during = -1;
    ik.solver.onPostSolveObservable.add(() => {
      during = hand.positionWeight;
    });
    hand.positionWeight = 0;
    m.scene.render();
    expect(hand.positionWeight).toBe(0);
    expect(during).toBeCloseTo(1 - 0.016 / 0.3, 9);
    // a NaN weight is the solver's to report and ignore for the frame; then the hand fades in from nothing
    hand.positionWeight = Number.NaN;
    m.scene.render();
    expect(ik.warningsRaised.map((w) => w.cause)).toContain("LeftHand:positionWeight");
    hand.positionWeight = 1;
    m.scene.render();
    expect(hand.positionWeight).toBe(1);
    expect(during).toBeCloseTo(0.016 / 0.3, 9);
  });

  it("ignores a NaN or infinite headset for the frame, warned once, and never writes NaN", async () => {
    const m = await load(name, false, IDLE);
    const rig = await vrRig(m, () => ({}));
    pose(rig, [0.05, -0.1, 0.05], Quaternion.Identity());
    m.scene.render();
    const before = measure(rig);
    const bad = [NaN, Infinity, -Infinity];
    for (const v of bad) {
      rig.headset.position.set(v, 0, 0);
      for (let f = 0; f < 2; f++) m.scene.render();
      rig.headset.position.set(0, v, 1);
      rig.headset.rotationQuaternion = new Quaternion(v, 0, 0, 1);
      for (let f = 0; f < 2; f++) m.scene.render();
      for (const b of m.skeleton.bones) {
        const n = b.getTransformNode()!;
        expect([...n.position.asArray(), ...n.rotationQuaternion!.asArray()].every(Number.isFinite)).toBe(true);
      }
    }
    rig.head.position.set(NaN, 0, 0);
    rig.head.target = null;
    m.scene.render();
    const causes = rig.ik.warningsRaised.map((w) => w.cause).filter((c) => c.startsWith("headEffector"));
    expect(causes.sort()).toEqual(["headEffector:position"]);
    // a bad setting keeps its last valid value
    rig.head.bodyWeight = NaN;
    m.scene.render();
    expect(rig.head.bodyWeight).toBe(0.8);
    expect(before.head).toBeLessThan(0.01);
  });

  it("an out-of-reach controller pulls the head off the headset unless handsPullBody is false; fixHead keeps it, stretch narrows it", async () => {
    const results: { head: number; hand: number }[] = [];
    const variants: ((ik: FullBodyBipedIK, h: number) => FBBIKHeadEffectorOptions)[] = [
      () => ({}),
      () => ({ handsPullBody: false }),
      () => ({ fixHead: true }),
      // the neck and the chest take up to 3 % of the height of the head's error after the solve
      (ik, h) => ({
        stretchBones: [ik.references.spine.at(-1)!, ik.references.head!.getParent()!],
        maxStretch: 0.03 * h,
      }),
    ];
    for (const options of variants) {
      const m = await load(name, false, IDLE);
      const h = height(m);
      const rig = await vrRig(m, (ik) => options(ik, h));
      pose(rig, [0, -0.05, 0.05], Quaternion.Identity());
      // the left controller 20 % of the height further out than the arm reaches
      const r = rig.ik.references;
      const s = worldPos(r.leftUpperArm);
      const out = rig.controllers[0].position.subtract(s).normalize();
      rig.controllers[0].position.copyFrom(s.add(out.scale(0.35 * rig.h + 0.2 * rig.h)));
      for (let f = 0; f < 3; f++) m.scene.render();
      const e = measure(rig);
      results.push({
        head: e.head,
        hand: Vector3.Distance(worldPos(r.leftHand), rig.controllers[0].position) / rig.h,
      });
    }
    const [pull, noPull, fixHead, stretch] = results as [
      { head: number; hand: number },
      { head: number; hand: number },
      { head: number; hand: number },
      { head: number; hand: number },
    ];
    report(`head effector ${name} pull: head/h, hand/h`, pull.head, pull.hand, noPull.head, noPull.hand);
    // pulled: the hand gets closer, the head leaves the headset
    expect(pull.head).toBeGreaterThan(0.02);
    expect(pull.hand).toBeLessThan(noPull.hand - 0.02);
    // not pulled: the head stays on the headset, the hand stops short
    expect(noPull.head).toBeLessThan(1e-6);
    expect(noPull.hand).toBeGreaterThan(0.1);
    // fixHead: pulled, and the head is put back on the headset after the solve
    expect(fixHead.head).toBeLessThan(1e-5);
    // stretched: 3 % of the height closer (the stretch moves the head toward the headset)
    expect(stretch.head).toBeCloseTo(pull.head - 0.03, 3);
  });

  it("allocates nothing per update, fades of the head and a hand included (1,000 updates, heap growth loose)", async () => {
    const { rig, run, switchOn, loop } = await updatingRig(name);
    // the least growth of five rounds, with the effector off and on: the scene's own work is the same
    const growth = (on: boolean): number => {
      switchOn(on);
      run(1000);
      return leastGrowth(run, 5);
    };
    // both paths compiled first (the fades run in a fraction of the updates: their code is compiled late)
    growth(true);
    growth(false);
    const off = growth(false);
    const on = growth(true);
    report(`head effector ${name} heap growth per 1,000 updates, off/on (B)`, off, on);
    // measured 0 B per update; one 16-byte number boxed per update would be 16 kB
    expect(on - off).toBeLessThan(8_000);
    // the IK alone too, after the fades' history (its bone lengths were boxed once the solver deoptimised)
    expect(off).toBeLessThan(8_000);
    rig.head.weight = 1;
    rig.head.target = rig.headset;
    loop.fades = false;
    run(60);
    expect(measure(rig).head).toBeLessThan(1e-6);
  });

  it("dispose removes its hooks; the IK then runs alone", async () => {
    const m = await load(name, false, IDLE);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const inner = ik.solver.inner;
    const counts = () => [
      inner.onPreUpdate.observerCount,
      inner.onPreIteration.observerCount,
      inner.onPreBend.observerCount,
      ik.solver.onPostUpdateObservable.observers.length,
    ];
    const alone = counts();
    const headset = new TransformNode("headset", m.scene);
    headset.position.copyFrom(worldPos(ik.references.head!).add(new Vector3(0, -0.2, 0)));
    const head = FBBIKHeadEffector.create(ik, { target: headset });
    expect(counts()).not.toEqual(alone);
    m.scene.render();
    head.dispose();
    expect(head.isDisposed).toBe(true);
    // Babylon removes an observer on the next microtask
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(counts()).toEqual(alone);
    m.scene.render();
    m.scene.render();
    // the head is back where the animation has it
    expect(Vector3.Distance(worldPos(ik.references.head!), headset.position)).toBeGreaterThan(0.1 * height(m));
  });
});
