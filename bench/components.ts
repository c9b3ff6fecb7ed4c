/**
 * What the components around the IK cost per frame: the interaction system (reaching and holding, carrying
 * a picked-up object, paused on a moving object or with one in hand), hit reactions, recoil, the motion
 * modifiers (Inertia, Amplifier, BodyTilt, EffectorOffset on a character walking a circle) and the grounder
 * (with StaticGroundRaycast, and with Babylon picking), each on its own Mannequin with its own
 * FullBodyBipedIK, plus the IK alone with one hand on a target for comparison.
 *
 * A frame is what `scene.render()` makes the IK and its components do (as in the frame benchmark):
 * advance the frame id, give the scene this frame's animation time (`scene.deltaTime` = 16 ms, which is
 * what the components step by), notify `onBeforeAnimationsObservable`, `onBeforeRenderObservable` and
 * `onBeforeRenderTargetsRenderObservable`.
 * Hits and shots are fired once, before the timed frames, with curves as long as the run: the figures
 * are those of every frame of an active reaction (a hit or a shot itself is an event, not a frame).
 *
 * Reported per case: median µs per frame (batches of 100 frames) and bytes allocated per frame
 * (`measureAllocation`, the smallest of 3 loops). Target: 0 bytes per frame (below 1 B) for every
 * component but the grounder, whose ground probes go through Babylon's picking, which allocates
 * (documented in `BabylonGroundRaycast`); its figure is reported without a target.
 */
import "@babylonjs/core/Materials/standardMaterial.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FullBodyBipedIK } from "../src/babylon/full-body-biped-ik.js";
import { Curve } from "../src/math/curve.js";
import { GrounderFBBIK } from "../src/effectors/grounding/grounder-fbbik.js";
import { MovingGroundRaycast } from "../src/effectors/grounding/moving-ground-raycast.js";
import { StaticGroundRaycast } from "../src/effectors/grounding/static-ground-raycast.js";
import { InteractionCurveType } from "../src/effectors/interaction/interaction-curves.js";
import { InteractionObject } from "../src/effectors/interaction/interaction-object.js";
import { InteractionSystem } from "../src/effectors/interaction/interaction-system.js";
import {
  Amplifier,
  BodyTilt,
  EffectorOffset,
  HitPointBone,
  HitPointEffector,
  HitReaction,
  Inertia,
  OffsetPose,
  Recoil,
} from "../src/effectors/modifiers/index.js";
import { FullBodyBipedEffector } from "../src/solver/biped-bones.js";
import { type LoadedModel, loadModel } from "../test/helpers/babylon-scene.js";
import { type Benchmark, type TargetCheck, measureAllocation, round, summarize, timeBatches } from "./common.js";

/** One component case's figures. */
export interface ComponentCaseResult {
  /** What runs. */
  name: string;
  /** Median µs per frame (IK + component). */
  microsPerFrame: number;
  /** Bytes allocated per frame (below 1: none per frame). */
  bytesPerFrame: number;
  /** GCs during the kept allocation loop. */
  gcs: number;
  /** True when the case has the 0-bytes target (the grounder has none: Babylon picking allocates). */
  zeroTarget: boolean;
}

/** What the components benchmark writes to bench/results/components.json. */
export interface ComponentsBenchResult {
  cases: ComponentCaseResult[];
  /** Frames per timing run and per allocation loop. */
  frames: number;
  node: string;
  date: string;
}

const FRAMES = 20_000;
const BATCH = 100;
const DT_MS = 16;

interface Case {
  name: string;
  zeroTarget: boolean;
  /** Sets the component up on a loaded model with its IK; returns the per-frame driver (or null). */
  setup(m: LoadedModel, ik: FullBodyBipedIK, h: number): ((frame: number) => void) | null;
}

function frameId(scene: Scene): void {
  (scene as unknown as { _frameId: number })._frameId++;
}

/** World position of a bone's node. */
function bonePosition(
  ik: FullBodyBipedIK,
  pick: (r: FullBodyBipedIK["references"]) => { getTransformNode(): TransformNode | null },
): Vector3 {
  const n = pick(ik.references).getTransformNode()!;
  n.computeWorldMatrix(true);
  return n.getAbsolutePosition().clone();
}

/** Weight curves at 1 for as long as the benchmark runs. */
function held(): Curve {
  return new Curve([
    { time: 0, value: 1 },
    { time: 1e6, value: 1 },
  ]);
}

/**
 * Starts an interaction of `hand` with a new object a little in front of the hand, with position and
 * rotation weights (and pull) held at 1 for the whole run; optionally picked up at `pickUpAt` seconds.
 */
function startHolding(
  m: LoadedModel,
  ik: FullBodyBipedIK,
  h: number,
  hand: FullBodyBipedEffector.LeftHand | FullBodyBipedEffector.RightHand,
  options: { fadeInTime?: number; pull?: boolean; pickUpAt?: number; pauseAt?: number },
): TransformNode {
  const system = new InteractionSystem(ik);
  if (options.fadeInTime !== undefined) system.fadeInTime = options.fadeInTime;
  const left = hand === FullBodyBipedEffector.LeftHand;
  const node = new TransformNode("object", m.scene);
  node.position.copyFrom(
    bonePosition(ik, (r) => (left ? r.leftHand : r.rightHand)).add(
      new Vector3((left ? 0.05 : -0.05) * h, -0.03 * h, 0.06 * h),
    ),
  );
  node.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.4, 0.3, -0.5);
  const channels = [InteractionCurveType.PositionWeight, InteractionCurveType.RotationWeight];
  if (options.pull === true) channels.push(InteractionCurveType.Pull);
  const events = [];
  if (options.pickUpAt !== undefined) events.push({ time: options.pickUpAt, pickUp: true });
  if (options.pauseAt !== undefined) events.push({ time: options.pauseAt, pause: true });
  const object = new InteractionObject(node, {
    weightCurves: channels.map((type) => ({ type, curve: held() })),
    events,
  });
  system.startInteraction(hand, object, false);
  return node;
}

const CASES: Case[] = [
  {
    name: "IK alone, left hand on a fixed target (for comparison)",
    zeroTarget: true,
    setup(_m, ik, h) {
      const e = ik.solver.leftHandEffector;
      e.position.copyFrom(bonePosition(ik, (r) => r.leftHand).add(new Vector3(0.05 * h, -0.03 * h, 0.06 * h)));
      e.positionWeight = 1;
      e.rotationWeight = 1;
      return null;
    },
  },
  {
    name: "interaction: left hand reaching and holding an object",
    zeroTarget: true,
    setup(m, ik, h) {
      // a slow fade: the effector blends bone and target for the first part of the run
      startHolding(m, ik, h, FullBodyBipedEffector.LeftHand, { fadeInTime: 30, pull: true });
      return null;
    },
  },
  {
    name: "interaction: right hand carrying a picked-up object",
    zeroTarget: true,
    setup(m, ik, h) {
      startHolding(m, ik, h, FullBodyBipedEffector.RightHand, { pickUpAt: 0.1 });
      return null;
    },
  },
  {
    name: "interaction: right hand paused on an object that moves",
    zeroTarget: true,
    setup(m, ik, h) {
      const node = startHolding(m, ik, h, FullBodyBipedEffector.RightHand, { pauseAt: 0.1 });
      const start = node.position.clone();
      return (f) => {
        node.position.set(start.x + 0.02 * h * Math.sin(f * 0.05), start.y, start.z);
      };
    },
  },
  {
    name: "interaction: right hand paused holding a picked-up object",
    zeroTarget: true,
    setup(m, ik, h) {
      startHolding(m, ik, h, FullBodyBipedEffector.RightHand, { pickUpAt: 0.1, pauseAt: 0.1 });
      return null;
    },
  },
  {
    name: "HitReaction: effector and bone hit points reacting (one long hit)",
    zeroTarget: true,
    setup(m, ik, h) {
      const chest = ik.references.spine[ik.references.spine.length - 1]!;
      const box = CreateBox("collider", { size: 0.25 * h }, m.scene);
      box.position.copyFrom(bonePosition(ik, () => chest));
      // curves as long as the run, so every timed frame is a frame of an active reaction
      const push = new Curve([
        { time: 0, value: 0 },
        { time: 0.2, value: 1 },
        { time: 1e6, value: 0 },
      ]);
      const angle = new Curve([
        { time: 0, value: 0 },
        { time: 0.1, value: 10 },
        { time: 1e6, value: 0 },
      ]);
      const hr = new HitReaction(ik, {
        effectorHitPoints: [
          new HitPointEffector({
            collider: box,
            offsetInForceDirection: push,
            offsetInUpDirection: push,
            effectorLinks: [
              { effector: FullBodyBipedEffector.Body },
              { effector: FullBodyBipedEffector.LeftHand, weight: 0.5 },
            ],
          }),
        ],
        boneHitPoints: [
          new HitPointBone({ collider: box, aroundCenterOfMass: angle, boneLinks: [{ bone: chest, weight: 0.75 }] }),
        ],
      });
      hr.hit(
        box,
        new Vector3(0.05 * h, 0, 0.1 * h),
        bonePosition(ik, () => chest),
      );
      return null;
    },
  },
  {
    name: "Recoil: two-handed, recoiling (one long shot)",
    zeroTarget: true,
    setup(_m, ik, h) {
      const recoil = new Recoil(ik, {
        twoHanded: true,
        handRotationOffset: { x: -8, y: 3, z: 0 },
        recoilWeight: new Curve([
          { time: 0, value: 0 },
          { time: 0.1, value: 1 },
          { time: 1e6, value: 0 },
        ]),
        offsets: [
          {
            offset: new Vector3(0, 0.03, -0.05).scale(h),
            effectorLinks: [
              { effector: FullBodyBipedEffector.RightHand },
              { effector: FullBodyBipedEffector.Body, weight: 0.3 },
            ],
          },
        ],
      });
      recoil.fire(1);
      return null;
    },
  },
  {
    name: "Inertia, Amplifier, BodyTilt and EffectorOffset on a character walking a circle",
    zeroTarget: true,
    setup(m, ik, h) {
      const r = ik.references;
      new Inertia(ik, { bodies: [{ transform: r.pelvis, effectorLinks: [{ effector: FullBodyBipedEffector.Body }] }] });
      new Amplifier(ik, {
        bodies: [
          {
            transform: r.pelvis,
            relativeTo: m.root,
            speed: 3,
            effectorLinks: [{ effector: FullBodyBipedEffector.Body, weight: 0.2 }],
          },
        ],
      });
      new BodyTilt(ik, {
        poseLeft: new OffsetPose([
          { effector: FullBodyBipedEffector.Body, offset: { x: -0.1 * h, y: -0.02 * h, z: 0 } },
        ]),
        poseRight: new OffsetPose([
          { effector: FullBodyBipedEffector.Body, offset: { x: 0.1 * h, y: -0.02 * h, z: 0 } },
        ]),
      });
      const eo = new EffectorOffset(ik);
      eo.leftHandOffset.set(0, 0.02 * h, 0.03 * h);
      const root = m.root;
      const start = root.position.clone();
      const startRotation = (root.rotationQuaternion ?? Quaternion.Identity()).clone();
      const turn = new Quaternion();
      return (f) => {
        const a = f * 0.01;
        root.position.set(start.x + 2 * h * Math.sin(a), start.y, start.z + 2 * h * (1 - Math.cos(a)));
        Quaternion.RotationYawPitchRollToRef(a, 0, 0, turn);
        turn.multiplyToRef(startRotation, root.rotationQuaternion!);
      };
    },
  },
  {
    name: "GrounderFBBIK on flat ground with StaticGroundRaycast",
    zeroTarget: true,
    setup(m, ik, h) {
      const ground = CreateGround("ground", { width: 8 * h, height: 8 * h }, m.scene);
      GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast });
      return null;
    },
  },
  {
    name: "GrounderFBBIK on a platform rising, sinking and turning every frame, with MovingGroundRaycast",
    zeroTarget: true,
    setup(m, ik, h) {
      const platform = CreateBox("platform", { width: 8 * h, height: 0.2 * h, depth: 8 * h }, m.scene);
      platform.rotationQuaternion = Quaternion.Identity();
      GrounderFBBIK.create(ik, { raycast: MovingGroundRaycast.fromMeshes([platform]).raycast });
      return (f) => {
        const a = (f % 600) * ((2 * Math.PI) / 600);
        platform.position.y = -0.1 * h + 0.05 * h * Math.sin(a);
        Quaternion.RotationYawPitchRollToRef(0.2 * Math.sin(a), 0, 0, platform.rotationQuaternion!);
      };
    },
  },
  {
    name: "GrounderFBBIK on flat ground (Babylon picking allocates: no target)",
    zeroTarget: false,
    setup(m, ik, h) {
      CreateGround("ground", { width: 8 * h, height: 8 * h }, m.scene);
      GrounderFBBIK.create(ik, { predicate: (mesh) => mesh.name === "ground" });
      return null;
    },
  },
];

async function runCase(c: Case): Promise<ComponentCaseResult> {
  const m = await loadModel("Mannequin");
  try {
    const scene = m.scene;
    if (m.root.rotationQuaternion === null) m.root.rotationQuaternion = Quaternion.Identity();
    const ik = FullBodyBipedIK.create(scene, m.skeleton);
    scene.render();
    const nodes = m.skeleton.bones.map((b) => b.getTransformNode()!);
    let lo = Infinity;
    let hi = -Infinity;
    for (const n of nodes) {
      const y = n.getAbsolutePosition().y;
      lo = Math.min(lo, y);
      hi = Math.max(hi, y);
    }
    const drive = c.setup(m, ik, hi - lo);
    const frame = (f: number): void => {
      drive?.(f);
      frameId(scene);
      scene.deltaTime = DT_MS;
      scene.onBeforeAnimationsObservable.notifyObservers(scene);
      scene.onBeforeRenderObservable.notifyObservers(scene);
      scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
    };
    let f = 0;
    for (let i = 0; i < 5_000; i++) frame(f++);
    const timed = timeBatches(frame, FRAMES / BATCH, BATCH, f);
    f = timed.nextFrame;
    const alloc = measureAllocation(frame, FRAMES, f, 3);
    if (!ik.solver.inner.solvedLastUpdate) throw new Error(`${c.name}: the IK stopped solving`);
    return {
      name: c.name,
      microsPerFrame: round(summarize(timed.samples, BATCH).median),
      bytesPerFrame: round(alloc.bytesPerOp, 2),
      gcs: alloc.gcsDuringLoop,
      zeroTarget: c.zeroTarget,
    };
  } finally {
    m.dispose();
  }
}

/** The components benchmark. */
export const componentsBenchmark: Benchmark<ComponentsBenchResult> = {
  name: "components",
  file: "components.json",
  async run() {
    Logger.LogLevels = Logger.ErrorLogLevel;
    const cases: ComponentCaseResult[] = [];
    for (const c of CASES) cases.push(await runCase(c));
    return { cases, frames: FRAMES, node: process.version, date: new Date().toISOString() };
  },
  rows(r) {
    return r.cases.map((c) => [c.name, `${c.microsPerFrame} µs, ${c.bytesPerFrame} B (${c.gcs} GCs)`, "per frame"]);
  },
  checks(r) {
    // the smallest heap object is 16 B: below 1 B per frame is one-off heap growth spread over the loop
    return r.cases
      .filter((c) => c.zeroTarget)
      .map(
        (c): TargetCheck => ({
          label: `bytes per frame: ${c.name}`,
          value: c.bytesPerFrame,
          unit: "B",
          target: "0 (< 1 B)",
          pass: c.bytesPerFrame < 1,
        }),
      );
  },
};
