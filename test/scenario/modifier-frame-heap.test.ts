/**
 * The offset modifiers allocate nothing a frame once warm: a character walking a figure eight (its root
 * moving and turning every frame, one way and then the other) with Inertia, Amplifier, BodyTilt (left and
 * right OffsetPoses with offsets and pins), an EffectorOffset and a two-handed Recoil fired every 13 frames
 * (mid-curve every frame). In a fresh module graph (vitest.config.ts, HEAP), a file of its own: which calls
 * V8 inlines depends on what warmed up first (ARCHITECTURE.md, "Doubles across calls").
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Amplifier } from "../../src/effectors/modifiers/amplifier.js";
import { BodyTilt } from "../../src/effectors/modifiers/body-tilt.js";
import { EffectorOffset } from "../../src/effectors/modifiers/effector-offset.js";
import { Inertia } from "../../src/effectors/modifiers/inertia.js";
import { OffsetLimits } from "../../src/effectors/modifiers/offset-modifier.js";
import { OffsetPose } from "../../src/effectors/modifiers/offset-pose.js";
import { Recoil } from "../../src/effectors/modifiers/recoil.js";
import { Vec3 } from "../../src/math/vec3.js";
import { FullBodyBipedEffector as E } from "../../src/solver/biped-bones.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { bytesPerFrame, renderWithoutDrawing, whereFramesAllocate } from "../helpers/frame-heap.js";
import { height } from "../helpers/scene-probes.js";

/** Frames per loop of the figure eight (one circle each way, 3.84 s a circle at Babylon's 16 ms). */
const LOOP = 480;

/** Seeded uniform numbers whose state stays a small integer (a large one would be a heap number itself). */
class SmallRandom {
  private seed = 7;
  readonly next = (): number => {
    this.seed = (this.seed * 75 + 74) % 65537;
    return this.seed / 65537;
  };
}

it("Inertia, Amplifier, BodyTilt with poses, EffectorOffset and a firing two-handed Recoil: 0 B a frame", async () => {
  const m = await loadModel("Mannequin");
  const scene = m.scene;
  const h = height(m);
  const ik = FullBodyBipedIK.create(scene, m.skeleton);
  const r = ik.references;
  scene.render();
  const inertia = new Inertia(ik, {
    bodies: [
      { transform: r.pelvis, effectorLinks: [{ effector: E.Body }], gravity: -0.1 * h, matchVelocity: 0.1 },
      { transform: r.leftHand, effectorLinks: [{ effector: E.LeftHand, weight: 0.7 }] },
    ],
    limits: [
      new OffsetLimits({ effector: E.Body, spring: 0.3, x: true, z: true, min: V(-0.03 * h), max: V(0.03 * h) }),
    ],
  });
  // the chest's velocity relative to a node standing in the world: the walk itself
  const post = new TransformNode("post", scene);
  const amplifier = new Amplifier(ik, {
    weight: 0.8,
    bodies: [{ transform: r.spine.at(-1)!, relativeTo: post, effectorLinks: [{ effector: E.Body, weight: 0.02 }] }],
  });
  const pose = (side: number) =>
    new OffsetPose([
      { effector: E.Body, offset: new Vector3(0.05 * side * h, -0.02 * h, 0) },
      {
        effector: side > 0 ? E.RightHand : E.LeftHand,
        offset: new Vector3(0, 0.03 * h, 0.02 * h),
        pin: new Vector3(0.3 * side * h, 0.5 * h, 0.3 * h),
        pinWeight: new Vector3(0.3, 0.2, 0),
      },
    ]);
  const tilt = new BodyTilt(ik, { tiltSensitivity: 1, poseLeft: pose(-1), poseRight: pose(1) });
  const offset = new EffectorOffset(ik, { weight: 0.7, handsMaintainRelativePositionWeight: 0.4 });
  offset.bodyOffset.set(0, -0.03 * h, 0.01 * h);
  offset.rightFootOffset.set(0.01 * h, 0.02 * h, 0);
  const recoil = new Recoil(ik, {
    twoHanded: true,
    blendTime: 0.05,
    rotationRandom: { x: 3, y: 3, z: 2 },
    handRotationOffset: { x: -8, y: 3, z: 1 },
    random: new SmallRandom().next,
    offsets: [
      {
        offset: new Vector3(0, 0.03 * h, -0.05 * h),
        effectorLinks: [{ effector: E.RightHand }, { effector: E.Body, weight: 0.3 }],
      },
    ],
  });
  // the figure eight made beforehand: a double handed to Babylon's setters may be boxed
  const root = m.root;
  const turn0 = (root.rotationQuaternion ??= Quaternion.Identity()).clone();
  const radius = 1.2 * h;
  const places: Vector3[] = [];
  const turns: Quaternion[] = [];
  for (let f = 0; f < LOOP; f++) {
    // one circle about (−radius, 0, 0) turning one way, then one about (radius, 0, 0) turning the other
    const side = f < LOOP / 2 ? -1 : 1;
    const a = (4 * Math.PI * f) / LOOP;
    places.push(new Vector3(side * radius * (1 - Math.cos(a)), 0, radius * Math.sin(a)));
    turns.push(Quaternion.RotationYawPitchRoll(side * a, 0, 0).multiply(turn0));
  }
  // what the modifiers left on the effectors, before the solve (fields copied: the probe allocates nothing)
  const body = new Vec3();
  const rightHand = new Vec3();
  ik.solver.onPreReadObservable.add(() => {
    const b = ik.solver.bodyEffector.positionOffset;
    const rh = ik.solver.rightHandEffector.positionOffset;
    body.x = b.x;
    body.y = b.y;
    body.z = b.z;
    rightHand.x = rh.x;
    rightHand.y = rh.y;
    rightHand.z = rh.z;
  });
  const frame = (f: number): void => {
    const i = f % LOOP;
    root.position.copyFrom(places[i]!);
    root.rotationQuaternion!.copyFrom(turns[i]!);
    if (f % 13 === 0) recoil.fire(1);
    renderWithoutDrawing(scene);
  };
  const least = bytesPerFrame(frame, 10_000);
  console.log(`modifier frame heap: ${least.toFixed(2)} B a frame`);
  // they act: the lazy pelvis, the walk's velocity, a tilt, a recoil mid-curve
  const length = (v: { x: number; y: number; z: number }) => Math.hypot(v.x, v.y, v.z);
  expect(length(inertia.bodies[0]!.offset)).toBeGreaterThan(1e-3 * h);
  expect(length(amplifier.bodies[0]!.offset)).toBeGreaterThan(0.1 * h);
  expect(Math.abs(tilt.tiltAngle)).toBeGreaterThan(0.3);
  expect(recoil.inProgress && recoil.currentWeight > 0.1).toBe(true);
  expect(length(body)).toBeGreaterThan(0.01 * h);
  expect(length(rightHand)).toBeGreaterThan(0.01 * h);
  expect(ik.warningsRaised).toEqual([]);
  // printed with the failure (npm test prints a failing test's output): where the bytes come from
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(least).toBeLessThan(1);
  m.dispose();
});

function V(s: number): Vector3 {
  return new Vector3(s, s, s);
}
