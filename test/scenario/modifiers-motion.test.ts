/**
 * Inertia, Amplifier, BodyTilt, EffectorOffset, OffsetPose, OffsetLimits and the OffsetModifier base on
 * the real models in NullEngine (left-handed scenes, and right-handed where the handedness matters;
 * Mannequin and Superhero always, Xbot when ../shared/assets/models has it): each does its documented thing
 * measurably, and nothing at weight 0.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Amplifier } from "../../src/effectors/modifiers/amplifier.js";
import { BodyTilt } from "../../src/effectors/modifiers/body-tilt.js";
import { EffectorOffset } from "../../src/effectors/modifiers/effector-offset.js";
import { CharacterFrame, readCharacterFrame } from "../../src/effectors/modifiers/frame.js";
import { Inertia } from "../../src/effectors/modifiers/inertia.js";
import { OffsetLimits } from "../../src/effectors/modifiers/offset-modifier.js";
import { OffsetPose } from "../../src/effectors/modifiers/offset-pose.js";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import { type LoadedModel, type ModelName, modelAvailable } from "../helpers/babylon-scene.js";
import {
  DT,
  V,
  disposeOpen,
  height,
  load,
  poseArmsForward,
  report,
  sampleOffsets,
  worldPos,
} from "../helpers/modifier-scene.js";

afterEach(disposeOpen);

/** Every bone's world matrix equal between two loads of a model, bit for bit. */
function expectSamePose(a: LoadedModel, b: LoadedModel, frame: number): void {
  for (let i = 0; i < a.skeleton.bones.length; i++) {
    const x = a.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
    const y = b.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
    for (let j = 0; j < 16; j++)
      if (x[j] !== y[j]) throw new Error(`frame ${frame}: ${a.skeleton.bones[i]!.name} differs`);
  }
}

const last = (a: Vector3[]): Vector3 => a[a.length - 1]!;

const MODELS: ModelName[] = ["Mannequin", "Superhero", "Xbot"];

/**
 * The model twice with the arms posed forward and the IK, rendered once: `m` gets the modifier, `ref`
 * stays without it for comparison.
 */
async function armsForwardPair(
  name: ModelName,
): Promise<{ m: LoadedModel; ref: LoadedModel; ik: FullBodyBipedIK; h: number }> {
  const m = await load(name);
  const ref = await load(name);
  poseArmsForward(m);
  poseArmsForward(ref);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  FullBodyBipedIK.create(ref.scene, ref.skeleton);
  m.scene.render();
  ref.scene.render();
  return { m, ref, ik, h: height(m) };
}

for (const name of MODELS) {
  const available = modelAvailable(name);
  describe.skipIf(!available)(
    available ? name : `${name} (skipped: ../shared/assets/models/${name}.glb is not on this machine)`,
    () => {
      it("Inertia: the body lags the moving character, settles when it stops, and limits clamp its offset (hard and soft)", async () => {
        const run = async (limits: OffsetLimits[], weight: number) => {
          const m = await load(name);
          const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
          m.scene.render();
          const h = height(m);
          const inertia = new Inertia(ik, {
            weight,
            bodies: [{ transform: ik.references.pelvis, effectorLinks: [{ effector: FullBodyBipedEffector.Body }] }],
            limits,
          });
          const body = sampleOffsets(ik, FullBodyBipedEffector.Body);
          const frame = readCharacterFrame(ik, new CharacterFrame());
          const velocity = V(frame.right).scale(1.5 * h); // 1.5 heights per second to the character's right
          const local: Vector3[] = [];
          for (let k = 0; k < 300; k++) {
            if (k < 40) m.root.position.addInPlace(velocity.scale(DT));
            m.scene.render();
            local.push(frame.directionToLocal(last(body), new Vector3()));
          }
          return { h, local, inertia };
        };
        const free = await run([], 1);
        const h = free.h;
        // lags while moving: the offset points back against the motion
        const lag = Math.min(...free.local.slice(5, 40).map((v) => v.x));
        report(
          `${name} inertia: min lag/h, overshoot/h, final/h`,
          lag / h,
          Math.max(...free.local.slice(40).map((v) => v.x)) / h,
          free.local[299]!.length() / h,
        );
        expect(lag).toBeLessThan(-0.05 * h);
        expect(Math.max(...free.local.slice(1, 40).map((v) => v.x))).toBeLessThan(0);
        // catches up with an overshoot after the stop, and settles
        expect(Math.max(...free.local.slice(40).map((v) => v.x))).toBeGreaterThan(0);
        expect(free.local[299]!.length()).toBeLessThan(1e-3 * h);
        // limits in root space, hard and soft (the lazy point itself is not limited, so the raw offsets match)
        const hard = await run(
          [
            new OffsetLimits({
              effector: FullBodyBipedEffector.Body,
              x: true,
              min: { x: -0.02 * h, y: 0, z: 0 },
              max: { x: 0.01 * h, y: 0, z: 0 },
            }),
          ],
          1,
        );
        const soft = await run(
          [
            new OffsetLimits({
              effector: FullBodyBipedEffector.Body,
              spring: 0.5,
              x: true,
              min: { x: -0.02 * h, y: 0, z: 0 },
              max: { x: 0.01 * h, y: 0, z: 0 },
            }),
          ],
          1,
        );
        let worstHard = 0;
        let worstSoft = 0;
        for (let k = 0; k < 300; k++) {
          const raw = free.local[k]!.x;
          const clamp = Math.min(0.01 * h, Math.max(-0.02 * h, raw));
          worstHard = Math.max(worstHard, Math.abs(hard.local[k]!.x - clamp));
          worstSoft = Math.max(worstSoft, Math.abs(soft.local[k]!.x - (clamp + (raw - clamp) * 0.5)));
        }
        report(`${name} limits: hard/h, soft/h`, worstHard / h, worstSoft / h);
        expect(worstHard / h).toBeLessThan(1e-9);
        expect(worstSoft / h).toBeLessThan(1e-9);
        expect(Math.min(...hard.local.map((v) => v.x))).toBeGreaterThanOrEqual(-0.02 * h * (1 + 1e-9));
        // weight 0: nothing
        const off = await run([], 0);
        expect(Math.max(...off.local.map((v) => v.length()))).toBe(0);
      });

      it("Amplifier: the offset is the relative velocity × link weight (proportional, split vertical/horizontal, smoothed), and it refuses without fixTransforms", async () => {
        const m = await load(name);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        m.scene.render();
        const h = height(m);
        const relativeTo = new TransformNode("relativeTo", m.scene);
        relativeTo.rotationQuaternion = Quaternion.RotationAxis(new Vector3(0, 1, 0), 0.6);
        relativeTo.position.set(0.3, 0.1, -0.2);
        const part = new TransformNode("part", m.scene);
        part.position.set(0.5, 1, 0.2);
        const amp = new Amplifier(ik, {
          weight: 0.5,
          bodies: [
            {
              transform: part,
              relativeTo,
              speed: 0,
              effectorLinks: [{ effector: FullBodyBipedEffector.LeftHand, weight: 0.2 }],
            },
            {
              transform: part,
              relativeTo,
              speed: 0,
              verticalWeight: 0,
              horizontalWeight: 2,
              effectorLinks: [{ effector: FullBodyBipedEffector.RightHand, weight: 0.2 }],
            },
            {
              transform: part,
              relativeTo,
              speed: 3,
              effectorLinks: [{ effector: FullBodyBipedEffector.Body, weight: 0.2 }],
            },
          ],
        });
        const left = sampleOffsets(ik, FullBodyBipedEffector.LeftHand);
        const right = sampleOffsets(ik, FullBodyBipedEffector.RightHand);
        const body = sampleOffsets(ik, FullBodyBipedEffector.Body);
        const drift = new Vector3(0.2, 0, 0.1).scale(h); // both move with this: it cancels
        const relVelocity = new Vector3(0.3, 0.4, -0.2).scale(h);
        let worst = 0;
        let worstSplit = 0;
        let worstSmooth = 0;
        let smooth = new Vector3();
        for (let k = 0; k < 40; k++) {
          const v = k < 20 ? relVelocity : relVelocity.scale(2);
          relativeTo.position.addInPlace(drift.scale(DT));
          part.position.addInPlace(drift.add(v).scale(DT));
          m.scene.render();
          if (k === 0) {
            // the first frame has no previous position: no velocity
            expect(last(left).length()).toBe(0);
            continue;
          }
          worst = Math.max(
            worst,
            last(left)
              .subtract(v.scale(0.2 * 0.5))
              .length() /
              (v.length() * 0.1),
          );
          const horizontal = new Vector3(v.x, 0, v.z);
          worstSplit = Math.max(
            worstSplit,
            last(right)
              .subtract(horizontal.scale(2 * 0.2 * 0.5))
              .length() /
              (v.length() * 0.1),
          );
          smooth = Vector3.Lerp(smooth, v, 1 - Math.exp(-DT * 3));
          worstSmooth = Math.max(
            worstSmooth,
            last(body)
              .subtract(smooth.scale(0.2 * 0.5))
              .length() /
              (v.length() * 0.1),
          );
        }
        // float32 world matrices: relative velocity errors of ~1e-5
        report(`${name} amplifier relative errors: plain, split, smoothed`, worst, worstSplit, worstSmooth);
        expect(worst).toBeLessThan(1e-3);
        expect(worstSplit).toBeLessThan(1e-3);
        expect(worstSmooth).toBeLessThan(1e-3);
        // weight 0: nothing
        amp.weight = 0;
        part.position.addInPlace(relVelocity.scale(DT));
        m.scene.render();
        expect(last(left).length() + last(right).length() + last(body).length()).toBe(0);
        amp.weight = 0.5;
        // without fixTransforms: a warning and nothing added
        ik.fixTransforms = false;
        m.scene.render();
        expect(last(left).length()).toBe(0);
        expect(ik.warningsRaised.some((w) => w.cause === "amplifier:fixTransforms")).toBe(true);
        amp.dispose();
      });

      for (const rightHanded of [false, true]) {
        it(`BodyTilt: turning right leans into poseRight by the yaw rate, turning left into poseLeft (${rightHanded ? "right" : "left"}-handed scene)`, async () => {
          const m = await load(name, rightHanded);
          const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
          m.scene.render();
          const h = height(m);
          const poseRight = new OffsetPose([
            { effector: FullBodyBipedEffector.Body, offset: { x: 0.1 * h, y: -0.02 * h, z: 0 } },
          ]);
          const poseLeft = new OffsetPose([
            { effector: FullBodyBipedEffector.Body, offset: { x: -0.1 * h, y: -0.02 * h, z: 0 } },
          ]);
          const tilt = new BodyTilt(ik, { poseLeft, poseRight, tiltSensitivity: 0.5, weight: 0.8 });
          const body = sampleOffsets(ik, FullBodyBipedEffector.Body);
          const frame = readCharacterFrame(ik, new CharacterFrame());
          // the turn that brings forward toward the character's right
          const rate = 90; // degrees per second
          const step = (rate * DT * Math.PI) / 180;
          const probe = Quaternion.RotationAxis(Vector3.Up(), step);
          const sign = Vector3.Dot(V(frame.forward).applyRotationQuaternion(probe), V(frame.right)) > 0 ? 1 : -1;
          const turn = (direction: number, frames: number) => {
            for (let k = 0; k < frames; k++) {
              m.root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), sign * direction * step).multiply(
                m.root.rotationQuaternion ?? Quaternion.Identity(),
              );
              m.scene.render();
            }
          };
          turn(1, 120);
          const target = Math.min(1, rate * 0.5 * 0.01);
          expect(tilt.yawRate).toBeCloseTo(rate, 2);
          expect(tilt.tiltAngle).toBeCloseTo(target, 4);
          // the offset is the right pose × tilt × weight, in the (turned) character's frame
          const now = readCharacterFrame(ik, new CharacterFrame());
          const expectedRight = now
            .directionToWorld(poseRight.effectorLinks[0]!.offset, new Vector3())
            .scale(tilt.tiltAngle * 0.8);
          expect(last(body).subtract(expectedRight).length() / h).toBeLessThan(1e-9);
          expect(Vector3.Dot(last(body), V(now.right))).toBeGreaterThan(0.03 * h);
          turn(-1, 120);
          expect(tilt.yawRate).toBeCloseTo(-rate, 2);
          expect(tilt.tiltAngle).toBeCloseTo(-target, 4);
          readCharacterFrame(ik, now);
          const expectedLeft = now
            .directionToWorld(poseLeft.effectorLinks[0]!.offset, new Vector3())
            .scale(-tilt.tiltAngle * 0.8);
          expect(last(body).subtract(expectedLeft).length() / h).toBeLessThan(1e-9);
          expect(Vector3.Dot(last(body), V(now.right))).toBeLessThan(-0.03 * h);
          // standing still the tilt fades
          turn(0, 120);
          expect(Math.abs(tilt.tiltAngle)).toBeLessThan(1e-4);
          tilt.weight = 0;
          turn(1, 5);
          expect(last(body).length()).toBe(0);
        });
      }

      it("EffectorOffset: moves the hands by offset × weight in the character's frame within 1 % h; nothing at weight 0", async () => {
        const { m, ref, ik, h } = await armsForwardPair(name);
        const r = ik.references;
        const eo = new EffectorOffset(ik, { weight: 0, handsMaintainRelativePositionWeight: 0.5 });
        eo.leftHandOffset.set(0, 0.05 * h, 0.03 * h);
        eo.rightHandOffset.set(-0.03 * h, 0.04 * h, 0);
        for (let k = 0; k < 3; k++) {
          m.scene.render();
          ref.scene.render();
          expectSamePose(m, ref, k);
        }
        expect(ik.solver.leftHandEffector.maintainRelativePositionWeight).toBe(0);
        eo.weight = 0.7;
        m.scene.render();
        ref.scene.render();
        expect(ik.solver.leftHandEffector.maintainRelativePositionWeight).toBe(0.5);
        expect(ik.solver.rightHandEffector.maintainRelativePositionWeight).toBe(0.5);
        eo.handsMaintainRelativePositionWeight = 0;
        m.scene.render();
        ref.scene.render();
        const frame = readCharacterFrame(ik, new CharacterFrame());
        const refBones = (b: Bone) => ref.skeleton.bones[m.skeleton.bones.indexOf(b)]!;
        for (const [bone, offset] of [
          [r.leftHand, eo.leftHandOffset],
          [r.rightHand, eo.rightHandOffset],
        ] as const) {
          const moved = worldPos(bone).subtract(worldPos(refBones(bone)));
          const expected = frame.directionToWorld(offset, new Vector3()).scale(0.7);
          expect(moved.subtract(expected).length() / h).toBeLessThan(0.01);
        }
        // in a node's frame: a node turned a quarter about up turns the offsets with it
        const node = new TransformNode("space", m.scene);
        node.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), Math.PI / 2);
        eo.node = node;
        m.scene.render();
        ref.scene.render();
        const nodeFrame = new CharacterFrame().setFromNode(node, false);
        const moved = worldPos(r.leftHand).subtract(worldPos(refBones(r.leftHand)));
        expect(
          moved.subtract(nodeFrame.directionToWorld(eo.leftHandOffset, new Vector3()).scale(0.7)).length() / h,
        ).toBeLessThan(0.01);
      });

      it("OffsetPose: offsets × weight in root space; pins replace the offset per axis by pinWeight × |weight| (the hand reaches its pin within 1 % h); nothing at weight 0", async () => {
        const { m, ref, ik, h } = await armsForwardPair(name);
        const r = ik.references;
        const frame = readCharacterFrame(ik, new CharacterFrame());
        const leftHand = frame.pointToLocal(worldPos(r.leftHand), new Vector3());
        const rightHand = frame.pointToLocal(worldPos(r.rightHand), new Vector3());
        // the left hand pinned 5 % of the height higher (y only) and pushed forward; the right hand raised
        const pinY = leftHand.y + 0.05 * h;
        const pose = new OffsetPose([
          {
            effector: FullBodyBipedEffector.LeftHand,
            offset: { x: 0, y: 0, z: 0.03 * h },
            pin: { x: 0, y: pinY, z: 0 },
            pinWeight: { x: 0, y: 1, z: 0 },
          },
          { effector: FullBodyBipedEffector.RightHand, offset: { x: 0, y: 0.04 * h, z: 0 } },
        ]);
        let weight = 0;
        ik.solver.onPreUpdateObservable.add(() => pose.apply(ik, weight));
        const left = sampleOffsets(ik, FullBodyBipedEffector.LeftHand);
        const right = sampleOffsets(ik, FullBodyBipedEffector.RightHand);
        m.scene.render();
        ref.scene.render();
        expectSamePose(m, ref, 0);
        expect(last(left).length()).toBe(0);
        weight = 0.5;
        m.scene.render();
        expect(
          last(right)
            .subtract(V(frame.up).scale(0.04 * h * 0.5))
            .length() / h,
        ).toBeLessThan(1e-12);
        const l = frame.directionToLocal(last(left), new Vector3());
        expect(Math.abs(l.x) / h).toBeLessThan(1e-12);
        expect(Math.abs(l.y - 0.5 * (pinY - leftHand.y)) / h).toBeLessThan(1e-6);
        expect(Math.abs(l.z - 0.03 * h * 0.5) / h).toBeLessThan(1e-12);
        weight = 1;
        m.scene.render();
        const leftNow = frame.pointToLocal(worldPos(r.leftHand), new Vector3());
        const rightNow = frame.pointToLocal(worldPos(r.rightHand), new Vector3());
        expect(Math.abs(leftNow.y - pinY) / h).toBeLessThan(0.01);
        expect(Math.abs(leftNow.z - leftHand.z - 0.03 * h) / h).toBeLessThan(0.01);
        expect(
          rightNow
            .subtract(rightHand)
            .subtract(new Vector3(0, 0.04 * h, 0))
            .length() / h,
        ).toBeLessThan(0.01);
      });

      it("OffsetModifier: delta time from the scene (16 ms), once per frame, nothing when disabled, nothing after dispose", async () => {
        const m = await load(name);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        m.scene.render();
        const eo = new EffectorOffset(ik);
        eo.bodyOffset.set(0, -0.01, 0);
        const body = sampleOffsets(ik, FullBodyBipedEffector.Body);
        m.scene.render();
        expect(eo.deltaTime).toBe(DT);
        expect(last(body).y).toBeCloseTo(-0.01, 15);
        // a second update in the same frame: delta time 0, nothing added
        ik.update();
        expect(eo.deltaTime).toBe(0);
        expect(last(body).length()).toBe(0);
        eo.enabled = false;
        m.scene.render();
        expect(last(body).length()).toBe(0);
        eo.enabled = true;
        eo.weight = 7;
        expect(eo.weight).toBe(1);
        eo.weight = Number.NaN;
        expect(eo.weight).toBe(0);
        eo.weight = 1;
        // driven by hand
        eo.autoUpdate = false;
        m.scene.render();
        expect(last(body).length()).toBe(0);
        ik.solver.onPreUpdateObservable.add(() => eo.update(0.02));
        m.scene.render();
        expect(eo.deltaTime).toBe(0.02);
        eo.dispose();
        expect(eo.isDisposed).toBe(true);
        m.scene.render();
        expect(eo.deltaTime).toBe(0);
      });
    },
  );
}

describe("motion modifiers over time (Mannequin)", () => {
  it("switched off while the character walks and turns away, Inertia, Amplifier and BodyTilt resume from where it is (no jump); a NaN speed does not stay", async () => {
    const m = await load("Mannequin");
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    m.scene.render();
    const h = height(m);
    const { Body } = FullBodyBipedEffector;
    const inertia = new Inertia(ik, {
      bodies: [{ transform: ik.references.pelvis, effectorLinks: [{ effector: Body }] }],
    });
    const amplifier = new Amplifier(ik, {
      bodies: [
        {
          transform: ik.references.pelvis,
          relativeTo: new TransformNode("still", m.scene),
          effectorLinks: [{ effector: Body }],
        },
      ],
    });
    const lean = (x: number) => new OffsetPose([{ effector: Body, offset: { x, y: 0, z: 0 } }]);
    const tilt = new BodyTilt(ik, { poseRight: lean(0.1 * h), poseLeft: lean(-0.1 * h) });
    const body = sampleOffsets(ik, Body);
    for (let k = 0; k < 10; k++) m.scene.render();
    // off (weight 0, or disabled) for a second while the root walks 1.5 h/s and turns 90°/s
    inertia.weight = 0;
    amplifier.enabled = false;
    tilt.weight = 0;
    const right = V(readCharacterFrame(ik, new CharacterFrame()).right);
    for (let k = 0; k < 60; k++) {
      m.root.position.addInPlace(right.scale(1.5 * h * DT));
      m.root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), (Math.PI / 2) * DT).multiply(
        m.root.rotationQuaternion!,
      );
      m.scene.render();
    }
    inertia.weight = 1;
    amplifier.enabled = true;
    tilt.weight = 1;
    // standing at its new place: nothing moved since the modifiers came back, so nothing to add
    let worst = 0;
    let worstInertia = 0;
    let worstAmplifier = 0;
    let worstTilt = 0;
    for (let k = 0; k < 10; k++) {
      m.scene.render();
      worst = Math.max(worst, last(body).length() / h);
      worstInertia = Math.max(worstInertia, V(inertia.bodies[0]!.offset).length() / h);
      worstAmplifier = Math.max(worstAmplifier, V(amplifier.bodies[0]!.offset).length() / h);
      worstTilt = Math.max(worstTilt, Math.abs(tilt.tiltAngle));
    }
    report("resumed: body offset/h, inertia/h, amplifier/h, tilt", worst, worstInertia, worstAmplifier, worstTilt);
    expect(worstInertia).toBeLessThan(1e-6);
    expect(worstAmplifier).toBeLessThan(1e-6);
    expect(worstTilt).toBeLessThan(1e-6);
    expect(worst).toBeLessThan(1e-6);
    // a NaN smoothing speed eases nothing (the smoothed velocity stays finite)
    amplifier.bodies[0]!.speed = Number.NaN;
    m.root.position.addInPlace(right.scale(0.01 * h));
    m.scene.render();
    expect(Number.isFinite(V(amplifier.bodies[0]!.smoothVelocity).length())).toBe(true);
    // a NaN inertia speed for a frame does not stay in the lazy point once the speed is valid again
    inertia.bodies[0]!.speed = Number.NaN;
    m.scene.render();
    inertia.bodies[0]!.speed = 10;
    m.scene.render();
    expect(Number.isFinite(V(inertia.bodies[0]!.lazyPoint).length())).toBe(true);
  });

  it("a 0.5 s hitch while walking and turning leaves Inertia, Amplifier and BodyTilt as they were (within 10 %); after 5 s they restart", async () => {
    const m = await load("Mannequin");
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    // animations off: the modifiers take the engine's delta time, set here per frame
    m.scene.animationsEnabled = false;
    let ms = 1000 / 60;
    m.engine.getDeltaTime = () => ms;
    m.scene.render();
    const h = height(m);
    const pelvis = ik.references.pelvis;
    const inertia = new Inertia(ik, { bodies: [{ transform: pelvis, effectorLinks: [] }] });
    const amplifier = new Amplifier(ik, {
      bodies: [{ transform: pelvis, relativeTo: new TransformNode("still", m.scene), effectorLinks: [] }],
    });
    const tilt = new BodyTilt(ik);
    const right = V(readCharacterFrame(ik, new CharacterFrame()).right);
    const step = (seconds: number) => {
      ms = seconds * 1000;
      m.root.position.addInPlace(right.scale(1.5 * h * seconds));
      const turn = Quaternion.RotationAxis(Vector3.Up(), (Math.PI / 2) * seconds);
      m.root.rotationQuaternion = turn.multiply(m.root.rotationQuaternion!);
      m.scene.render();
      return [V(inertia.bodies[0]!.offset).length(), V(amplifier.bodies[0]!.offset).length(), tilt.tiltAngle];
    };
    let steady: number[] = [];
    for (let k = 0; k < 240; k++) steady = step(1 / 60);
    const hitch = step(0.5);
    const ratios = hitch.map((v, i) => v / steady[i]!);
    report("after a 0.5 s hitch / steady: inertia, amplifier, tilt", ...ratios);
    for (const r of ratios) expect(Math.abs(r - 1)).toBeLessThan(0.1);
    expect(step(5)).toEqual([0, 0, 0]);
  });

  it("Inertia and BodyTilt move alike at 30 and 144 FPS (within 5 % and 2.5 % of the peak)", async () => {
    const m = await load("Mannequin");
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    m.scene.render();
    const h = height(m);
    const start = m.root.rotationQuaternion!.clone();
    const right = V(readCharacterFrame(ik, new CharacterFrame()).right);
    /** The inertia body's lag and the tilt at 0.1 s … 1.2 s: a node moves 0.8 h/s, the root turns 90°/s, for 0.6 s. */
    const run = (fps: number): { lag: number[]; tilt: number[] } => {
      const dt = 1 / fps;
      const probe = new TransformNode("probe", m.scene);
      m.root.rotationQuaternion = start.clone();
      const inertia = new Inertia(ik, { autoUpdate: false, bodies: [{ transform: probe, effectorLinks: [] }] });
      const tilt = new BodyTilt(ik, { autoUpdate: false, tiltSensitivity: 1 });
      const drive = ik.solver.onSkeletonRead.add(() => {
        inertia.update(dt);
        tilt.update(dt);
      });
      m.scene.render(); // the lazy point and the heading start standing still
      const lag: number[] = [];
      const tilts: number[] = [];
      const frames = Math.round(1.2 * fps);
      for (let k = 1; k <= frames; k++) {
        if (k <= 0.6 * fps) {
          probe.position.addInPlace(right.scale(0.8 * h * dt));
          m.root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), (Math.PI / 2) * dt).multiply(
            m.root.rotationQuaternion!,
          );
        }
        m.scene.render();
        lag.push(Vector3.Dot(V(inertia.bodies[0]!.offset), right) / h);
        tilts.push(tilt.tiltAngle);
      }
      ik.solver.onSkeletonRead.remove(drive);
      inertia.dispose();
      tilt.dispose();
      probe.dispose();
      // at 0.1 s, 0.2 s … 1.2 s, between the frames around it (sample k − 1 is at k / fps)
      const at = (a: number[]) =>
        Array.from({ length: 12 }, (_, j) => {
          const f = ((j + 1) / 10) * fps - 1;
          const i = Math.min(Math.floor(f), a.length - 2);
          return a[i]! + (a[i + 1]! - a[i]!) * (f - i);
        });
      return { lag: at(lag), tilt: at(tilts) };
    };
    const slow = run(30);
    const fast = run(144);
    const gap = (a: number[], b: number[]) => {
      const peak = Math.max(...b.map(Math.abs));
      return Math.max(...a.map((v, i) => Math.abs(v - b[i]!))) / peak;
    };
    report("30 vs 144 FPS: inertia, tilt (share of the peak)", gap(slow.lag, fast.lag), gap(slow.tilt, fast.tilt));
    expect(slow.lag.length).toBe(12);
    expect(gap(slow.lag, fast.lag)).toBeLessThan(0.05);
    expect(gap(slow.tilt, fast.tilt)).toBeLessThan(0.025);
  });
});
