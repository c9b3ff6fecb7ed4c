/**
 * HitReaction and Recoil on the real models in NullEngine (left-handed scenes, Mannequin and Superhero
 * always, Xbot when ../shared/assets/models has it): offsets follow their curves to 1e-9, repeated hits
 * cross-fade, bone hit points turn bones by the curve's angle, recoil magnitudes are random but bounded and
 * reproducible, two-handed recoil keeps the hands together, and the pose returns to the animation once a
 * reaction is over.
 */
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { type Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode as TransformNodeClass } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Curve } from "../../src/math/curve.js";
import { CharacterFrame, readCharacterFrame } from "../../src/effectors/modifiers/frame.js";
import { HitPointBone, HitPointEffector, HitReaction } from "../../src/effectors/modifiers/hit-reaction.js";
import { Inertia } from "../../src/effectors/modifiers/inertia.js";
import { Recoil, RecoilHandedness, RecoilOffset } from "../../src/effectors/modifiers/recoil.js";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import { type LoadedModel, type ModelName, modelAvailable, proceduralIdle } from "../helpers/babylon-scene.js";
import {
  DT,
  V,
  disposeOpen,
  gripError,
  height,
  load,
  poseArmsForward,
  recordAnimatedHands,
  report,
  sampleOffsets,
  worldPos,
} from "../helpers/modifier-scene.js";

/** The clip the tests play (the others are not loaded). */
const IDLE = (clip: string) => clip === "idle";

import { Random } from "../helpers/random.js";

afterEach(disposeOpen);

/**
 * The model twice, each with the IK and the idle playing, rendered once: `m` gets the modifiers, `ref`
 * stays without them for comparison.
 */
async function idlingPair(
  name: ModelName,
): Promise<{ m: LoadedModel; ref: LoadedModel; ik: FullBodyBipedIK; h: number }> {
  const m = await load(name, false, IDLE);
  const ref = await load(name, false, IDLE);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  playIdle(m, ik, name);
  playIdle(ref, FullBodyBipedIK.create(ref.scene, ref.skeleton), name);
  m.scene.render();
  ref.scene.render();
  return { m, ref, ik, h: height(m) };
}

/** The model's idle clip, or a procedural sway of the spine, an arm and a leg. */
function playIdle(m: LoadedModel, ik: FullBodyBipedIK, name: ModelName): AnimationGroup {
  if (name === "Xbot") {
    const g = m.container.animationGroups.find((a) => a.name === "idle")!;
    g.start(true);
    return g;
  }
  const r = ik.references;
  const g = proceduralIdle(
    m.scene,
    [r.spine[0]!, r.leftUpperArm, r.rightForearm, r.leftThigh].map((b) => b.getTransformNode()!),
  );
  g.start(true);
  return g;
}

/** Largest bone world-position difference between two loads of the same model, over h. */
function poseDifference(a: LoadedModel, b: LoadedModel, h: number): number {
  let worst = 0;
  for (let i = 0; i < a.skeleton.bones.length; i++) {
    worst = Math.max(worst, Vector3.Distance(worldPos(a.skeleton.bones[i]!), worldPos(b.skeleton.bones[i]!)) / h);
  }
  return worst;
}

/** A box at a bone, as a hit collider. */
function colliderAt(m: LoadedModel, bone: Bone, size: number) {
  const box = CreateBox(`collider-${bone.name}`, { size }, m.scene);
  box.position.copyFrom(worldPos(bone));
  return box;
}

/** A bone hit point turns its bone in the world by the curve's angle about cross(force, lever). */
async function boneHitCase(name: ModelName, rightHanded: boolean): Promise<void> {
  const m = await load(name, rightHanded, IDLE);
  const ref = await load(name, rightHanded, IDLE);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  FullBodyBipedIK.create(ref.scene, ref.skeleton);
  m.scene.render();
  ref.scene.render();
  const h = height(m);
  const spine = ik.references.spine[0]!;
  const child = ik.references.spine[1] ?? ik.references.head!;
  const box = colliderAt(m, spine, 0.2 * h);
  const angleCurve = new Curve([
    { time: 0, value: 0 },
    { time: 0.1, value: 12, inTangent: 0, outTangent: 0 },
    { time: 0.3, value: 0, inTangent: 0, outTangent: 0 },
  ]);
  const point = new HitPointBone({
    collider: box,
    crossFadeTime: 0,
    aroundCenterOfMass: angleCurve,
    boneLinks: [{ bone: spine, weight: 0.75 }],
  });
  const hr = new HitReaction(ik, { boneHitPoints: [point] });
  const hitPoint = worldPos(spine).add(new Vector3(0, 0.1 * h, 0));
  const force = new Vector3(0, 0, 0.2);
  hr.hit(box, force, hitPoint);
  const axis = Vector3.Cross(force, hitPoint.subtract(box.getBoundingInfo().boundingBox.centerWorld)).normalize();
  expect(point.axis.subtract(axis).length()).toBeLessThan(1e-12);
  let t = 0;
  let worst = 0;
  let peak = 0;
  for (let k = 0; k < 25; k++) {
    m.scene.render();
    ref.scene.render();
    t = Math.min(t + DT, point.length);
    const a = worldPos(child).subtract(worldPos(spine));
    const b = worldPos(ref.skeleton.bones[m.skeleton.bones.indexOf(child)]!).subtract(
      worldPos(ref.skeleton.bones[m.skeleton.bones.indexOf(spine)]!),
    );
    // signed angle from the reference to the turned direction about the axis
    const pa = a.subtract(axis.scale(Vector3.Dot(a, axis)));
    const pb = b.subtract(axis.scale(Vector3.Dot(b, axis)));
    const angle = (Math.atan2(Vector3.Dot(Vector3.Cross(pb, pa), axis), Vector3.Dot(pa, pb)) * 180) / Math.PI;
    const expected = angleCurve.evaluate(t) * 0.75;
    worst = Math.max(worst, Math.abs(angle - expected));
    peak = Math.max(peak, Math.abs(expected));
  }
  report(`${name}${rightHanded ? " RH" : ""} bone hit: worst angle error (deg), peak`, worst, peak);
  expect(peak).toBeGreaterThan(8);
  // float32 world matrices: a few 1e-5 degrees
  expect(worst).toBeLessThan(1e-3);
}

/**
 * Two-handed recoil keeps the left hand where it was relative to the right (and one-handed does not): its place
 * in every frame, its rotation where the pin is full (it fades in and out with the shot).
 */
async function twoHandedCase(name: ModelName, rightHanded: boolean): Promise<void> {
  const run = async (twoHanded: boolean) => {
    const m = await load(name, rightHanded, IDLE);
    if (name !== "Xbot") poseArmsForward(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    playIdle(m, ik, name);
    m.scene.render();
    const h = height(m);
    const r = ik.references;
    const recoil = new Recoil(ik, {
      twoHanded,
      magnitudeRandom: 0,
      handRotationOffset: { x: -8, y: 3, z: 0 },
      offsets: [
        {
          offset: new Vector3(0, 0.03, -0.05).scale(h),
          effectorLinks: [{ effector: FullBodyBipedEffector.RightHand }],
        },
      ],
      handedness: RecoilHandedness.Right,
    });
    // the animated hands, as the modifier sees them
    const animated = recordAnimatedHands(ik);
    recoil.fire(1);
    let worst = 0;
    let worstRotation = 0;
    let fadingRotation = 0;
    let moved = 0;
    while (recoil.inProgress) {
      m.scene.render();
      const grip = gripError(ik, animated, recoil.handRotation, h);
      worst = Math.max(worst, grip.place);
      moved = Math.max(moved, Vector3.Distance(worldPos(r.rightHand), animated.r) / h);
      const turn = grip.rotation;
      if (recoil.pinWeight >= 1) worstRotation = Math.max(worstRotation, turn);
      else fadingRotation = Math.max(fadingRotation, turn);
    }
    return { worst, worstRotation, fadingRotation, moved };
  };
  const two = await run(true);
  const one = await run(false);
  report(
    `${name}${rightHanded ? " RH" : ""} two-handed: worst rel/h, worst rel rotation pinned, fading (rad), primary moved/h, one-handed rel/h`,
    two.worst,
    two.worstRotation,
    two.fadingRotation,
    two.moved,
    one.worst,
  );
  expect(two.moved).toBeGreaterThan(0.03);
  expect(two.worst).toBeLessThan(0.01);
  expect(two.worstRotation).toBeLessThan(1e-3);
  expect(one.worst).toBeGreaterThan(0.03);
}

const MODELS: ModelName[] = ["Mannequin", "Superhero", "Xbot"];

for (const name of MODELS) {
  const available = modelAvailable(name);
  describe.skipIf(!available)(
    available ? name : `${name} (skipped: ../shared/assets/models/${name}.glb is not on this machine)`,
    () => {
      it("HitReaction: an effector hit rises and decays along its curves (× link weight × weight, to 1e-9), then adds nothing", async () => {
        const m = await load(name, false, IDLE);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        m.scene.render();
        const h = height(m);
        const chest = ik.references.spine[ik.references.spine.length - 1]!;
        const box = colliderAt(m, chest, 0.2 * h);
        const forceDir = new Curve([
          { time: 0, value: 0 },
          { time: 0.08, value: 1 },
          { time: 0.4, value: 0, inTangent: 0, outTangent: 0 },
        ]);
        const upDir = new Curve([
          { time: 0, value: 0 },
          { time: 0.15, value: -0.5 },
          { time: 0.3, value: 0 },
        ]);
        const point = new HitPointEffector({
          collider: box,
          crossFadeTime: 0,
          offsetInForceDirection: forceDir,
          offsetInUpDirection: upDir,
          effectorLinks: [
            { effector: FullBodyBipedEffector.Body },
            { effector: FullBodyBipedEffector.LeftHand, weight: 0.5 },
          ],
        });
        const hr = new HitReaction(ik, { effectorHitPoints: [point], weight: 0.8 });
        const body = sampleOffsets(ik, FullBodyBipedEffector.Body);
        const hand = sampleOffsets(ik, FullBodyBipedEffector.LeftHand);
        const force = new Vector3(0.05, 0, 0.12).scale(h);
        expect(hr.hit(box, force, worldPos(chest))).toBe(1);
        const up = V(readCharacterFrame(ik, new CharacterFrame()).up);
        let t = 0;
        let worst = 0;
        let peak = 0;
        const frames = 40;
        for (let k = 0; k < frames; k++) {
          m.scene.render();
          const active = t < point.length;
          t = Math.min(t + DT, point.length);
          const expected = active
            ? force
                .scale(forceDir.evaluate(t))
                .add(up.scale(upDir.evaluate(t) * force.length()))
                .scale(0.8)
            : Vector3.Zero();
          worst = Math.max(
            worst,
            body[body.length - 1]!.subtract(expected).length() / h,
            hand[hand.length - 1]!.subtract(expected.scale(0.5)).length() / h,
          );
          peak = Math.max(peak, expected.length() / h);
        }
        report(`${name} hit effector: worst/h, peak/h`, worst, peak);
        expect(peak).toBeGreaterThan(0.05);
        expect(worst).toBeLessThan(1e-9);
        // past the curves: nothing is added
        expect(body[body.length - 1]!.length()).toBe(0);
        expect(hr.inProgress).toBe(false);
      });

      it("HitReaction: a repeated hit cross-fades from the previous offset (no jump beyond dt / crossFadeTime of the gap)", async () => {
        const run = async (crossFadeTime: number) => {
          const m = await load(name, false, IDLE);
          const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
          m.scene.render();
          const h = height(m);
          const box = colliderAt(m, ik.references.pelvis, 0.2 * h);
          const point = new HitPointEffector({
            collider: box,
            crossFadeTime,
            effectorLinks: [{ effector: FullBodyBipedEffector.Body }],
          });
          const hr = new HitReaction(ik, { effectorHitPoints: [point] });
          const body = sampleOffsets(ik, FullBodyBipedEffector.Body);
          const f1 = new Vector3(0, 0, 0.1 * h);
          const f2 = new Vector3(0.1 * h, 0, -0.05 * h);
          hr.hit(box, f1, Vector3.Zero());
          for (let k = 0; k < 4; k++) m.scene.render();
          const before = body[body.length - 1]!.clone();
          hr.hit(box, f2, Vector3.Zero());
          const curve = point.offsetInForceDirection;
          let t = 0;
          let worstFormula = 0;
          const values: Vector3[] = [before];
          for (let k = 0; k < 12; k++) {
            m.scene.render();
            t = Math.min(t + DT, point.length);
            const fader = crossFadeTime > 0 ? Math.min(1, ((k + 1) * DT) / crossFadeTime) : 1;
            const target = f2.scale(curve.evaluate(t));
            const expected = Vector3.Lerp(before, target, fader);
            const got = body[body.length - 1]!;
            worstFormula = Math.max(worstFormula, got.subtract(expected).length() / h);
            values.push(got.clone());
          }
          const firstJump = values[1]!.subtract(values[0]!).length();
          const gap = f2.scale(curve.evaluate(DT)).subtract(before).length();
          return { worstFormula, firstJump, gap };
        };
        const faded = await run(0.1);
        const cut = await run(0);
        report(
          `${name} crossfade: formula faded/cut, first jump faded/cut, gap`,
          faded.worstFormula,
          cut.worstFormula,
          faded.firstJump,
          cut.firstJump,
          faded.gap,
        );
        expect(faded.worstFormula).toBeLessThan(1e-9);
        expect(cut.worstFormula).toBeLessThan(1e-9);
        expect(faded.firstJump).toBeLessThanOrEqual((DT / 0.1) * faded.gap * (1 + 1e-9));
        expect(cut.firstJump).toBeGreaterThan(3 * faded.firstJump);
      });

      it("HitReaction: a bone hit point turns the bone by curve(t) × weight degrees about cross(force, point − centre)", () =>
        boneHitCase(name, false));

      it("HitReaction: the pose returns to the animation after the curves end (within 1e-6 h of a scene without modifiers)", async () => {
        const { m, ref, ik, h } = await idlingPair(name);
        const chest = ik.references.spine[ik.references.spine.length - 1]!;
        const box = colliderAt(m, chest, 0.2 * h);
        const hr = new HitReaction(ik, {
          effectorHitPoints: [
            new HitPointEffector({
              collider: box,
              effectorLinks: [
                { effector: FullBodyBipedEffector.Body },
                { effector: FullBodyBipedEffector.LeftShoulder },
                { effector: FullBodyBipedEffector.RightShoulder },
              ],
            }),
          ],
          boneHitPoints: [
            new HitPointBone({
              collider: box,
              boneLinks: [{ bone: ik.references.spine[0]! }, { bone: chest, weight: 0.5 }],
            }),
          ],
        });
        hr.hit(box, new Vector3(0.02, 0, 0.1).scale(h), worldPos(chest).add(new Vector3(0, 0.05 * h, 0)));
        let during = 0;
        let frame = 0;
        while (hr.inProgress) {
          m.scene.render();
          ref.scene.render();
          during = Math.max(during, poseDifference(m, ref, h));
          frame++;
        }
        expect(frame).toBeGreaterThan(20);
        expect(during).toBeGreaterThan(0.01);
        let after = 0;
        for (let k = 0; k < 10; k++) {
          m.scene.render();
          ref.scene.render();
          after = Math.max(after, poseDifference(m, ref, h));
        }
        expect(after).toBeLessThan(1e-6);
        report(`${name} hit pose: during/h, after/h`, during, after);
      });

      it("Recoil: offsets rise and decay along recoilWeight × a random magnitude that is bounded and reproducible", async () => {
        const m = await load(name, false, IDLE);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        m.scene.render();
        const h = height(m);
        const rng = new Random(42);
        const recoil = new Recoil(ik, {
          twoHanded: false,
          weight: 0.9,
          random: () => rng.next(),
          offsets: [
            {
              offset: new Vector3(0, 0.02, -0.06).scale(h),
              effectorLinks: [
                { effector: FullBodyBipedEffector.RightHand },
                { effector: FullBodyBipedEffector.Body, weight: 0.3 },
              ],
            },
          ],
        });
        const hand = sampleOffsets(ik, FullBodyBipedEffector.RightHand);
        const body = sampleOffsets(ik, FullBodyBipedEffector.Body);
        const frame = readCharacterFrame(ik, new CharacterFrame());
        const local = recoil.offsets[0]!.offset;
        const world = frame.directionToWorld(local, new Vector3());
        recoil.fire(1);
        const mlp = recoil.magnitudeMultiplier;
        expect(Math.abs(mlp - 1)).toBeLessThanOrEqual(0.1);
        let t = 0;
        let worst = 0;
        while (recoil.inProgress) {
          m.scene.render();
          t = Math.min(t + DT, recoil.recoilLength);
          const w = recoil.recoilWeight.evaluate(t) * mlp * 0.9;
          worst = Math.max(
            worst,
            hand[hand.length - 1]!.subtract(world.scale(w)).length() / h,
            body[body.length - 1]!.subtract(world.scale(w * 0.3)).length() / h,
          );
        }
        report(`${name} recoil curve: worst/h, magnitude`, worst, mlp);
        expect(worst).toBeLessThan(1e-9);
        m.scene.render();
        expect(hand[hand.length - 1]!.length()).toBe(0);
        // the same seed gives the same magnitudes; 200 shots stay within ±magnitudeRandom and use both sides
        const a = new Random(5);
        const b = new Random(5);
        const r1 = new Recoil(ik, {
          random: () => a.next(),
          magnitudeRandom: 0.25,
          rotationRandom: { x: 4, y: 4, z: 4 },
        });
        const r2 = new Recoil(ik, {
          random: () => b.next(),
          magnitudeRandom: 0.25,
          rotationRandom: { x: 4, y: 4, z: 4 },
        });
        const mags: number[] = [];
        for (let i = 0; i < 200; i++) {
          r1.fire(2);
          r2.fire(2);
          expect(r1.magnitudeMultiplier).toBe(r2.magnitudeMultiplier);
          expect(r1.randomRotation.equals(r2.randomRotation)).toBe(true);
          // a random rotation within ±4° per axis turns the aim space by at most 4·√3°
          expect(2 * Math.acos(Math.min(1, Math.abs(r1.randomRotation.w)))).toBeLessThanOrEqual(
            (4 * Math.sqrt(3) * Math.PI) / 180 + 1e-12,
          );
          mags.push(r1.magnitudeMultiplier);
        }
        expect(Math.min(...mags)).toBeGreaterThanOrEqual(1.75);
        expect(Math.max(...mags)).toBeLessThanOrEqual(2.25);
        expect(Math.min(...mags)).toBeLessThan(1.8);
        expect(Math.max(...mags)).toBeGreaterThan(2.2);
        r1.dispose();
        r2.dispose();
      });

      it("Recoil: a shot fired while one runs carries its offset over, at most maxAdditiveOffsetMag (0.2 × character scale)", async () => {
        const m = await load(name, false, IDLE);
        const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
        m.scene.render();
        const h = height(m);
        const recoil = new Recoil(ik, {
          twoHanded: false,
          magnitudeRandom: 0,
          offsets: [{ offset: new Vector3(0, 0, -0.5 * h), effectorLinks: [{ effector: FullBodyBipedEffector.Body }] }],
        });
        const o = recoil.offsets[0]!;
        expect(recoil.characterScale).toBeGreaterThan(0.5);
        expect(recoil.characterScale).toBeLessThan(1.5);
        recoil.fire(1);
        for (let k = 0; k < 4; k++) m.scene.render();
        const running = o.current.clone();
        recoil.fire(0.2);
        const max = 0.2 * recoil.characterScale;
        expect(running.length()).toBeGreaterThan(max);
        expect(o.additiveOffset.length()).toBeCloseTo(max, 12);
        expect(Vector3.Dot(o.additiveOffset.normalizeToNew(), running.normalizeToNew())).toBeCloseTo(1, 12);
        // it fades linearly over the new shot
        m.scene.render();
        const expected = o.offset
          .scale(recoil.recoilWeight.evaluate(DT) * 0.2)
          .add(o.additiveOffset.scale(1 - DT / recoil.recoilLength));
        expect(o.current.subtract(expected).length() / h).toBeLessThan(1e-12);
        // an explicit maximum is used as it is
        const explicit = new RecoilOffset({
          offset: { x: 0, y: 0, z: 1 },
          maxAdditiveOffsetMag: 0.05,
          effectorLinks: [],
        });
        expect(explicit.maxAdditiveOffsetMag).toBe(0.05);
      });

      it("Recoil: two-handed keeps the other hand's place relative to the weapon hand within 1 % h (and it does not when one-handed)", () =>
        twoHandedCase(name, false));

      it("Recoil: the pose returns to the animation after the curve (within 1e-6 h of a scene without modifiers)", async () => {
        const { m, ref, ik, h } = await idlingPair(name);
        const recoil = new Recoil(ik, {
          handRotationOffset: { x: -10, y: 0, z: 5 },
          rotationRandom: { x: 3, y: 3, z: 0 },
          random: new Random(3).next.bind(new Random(3)),
          offsets: [
            {
              offset: new Vector3(0, 0.02, -0.05).scale(h),
              effectorLinks: [{ effector: FullBodyBipedEffector.RightHand }],
            },
            { offset: new Vector3(0, 0, -0.02).scale(h), effectorLinks: [{ effector: FullBodyBipedEffector.Body }] },
          ],
        });
        recoil.fire(1);
        let during = 0;
        while (recoil.inProgress) {
          m.scene.render();
          ref.scene.render();
          during = Math.max(during, poseDifference(m, ref, h));
        }
        expect(during).toBeGreaterThan(0.01);
        let after = 0;
        for (let k = 0; k < 10; k++) {
          m.scene.render();
          ref.scene.render();
          after = Math.max(after, poseDifference(m, ref, h));
        }
        expect(after).toBeLessThan(1e-6);
        report(`${name} recoil pose: during/h, after/h`, during, after);
      });

      it("weight 0 or disabled: HitReaction and Recoil change nothing (bones equal the scene without modifiers exactly)", async () => {
        const { m, ref, ik, h } = await idlingPair(name);
        const chest = ik.references.spine[ik.references.spine.length - 1]!;
        const box = colliderAt(m, chest, 0.2 * h);
        const hr = new HitReaction(ik, {
          weight: 0,
          effectorHitPoints: [
            new HitPointEffector({ collider: box, effectorLinks: [{ effector: FullBodyBipedEffector.Body }] }),
          ],
          boneHitPoints: [new HitPointBone({ collider: box, boneLinks: [{ bone: chest }] })],
        });
        const recoil = new Recoil(ik, {
          enabled: false,
          handRotationOffset: { x: -10, y: 0, z: 0 },
          offsets: [
            { offset: new Vector3(0, 0, -0.05 * h), effectorLinks: [{ effector: FullBodyBipedEffector.RightHand }] },
          ],
        });
        hr.hit(box, new Vector3(0, 0, 0.1 * h), worldPos(chest));
        recoil.fire(1);
        for (let k = 0; k < 15; k++) {
          m.scene.render();
          ref.scene.render();
          for (let i = 0; i < m.skeleton.bones.length; i++) {
            const a = m.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
            const b = ref.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
            for (let j = 0; j < 16; j++)
              if (a[j] !== b[j]) throw new Error(`frame ${k}: ${m.skeleton.bones[i]!.name} differs`);
          }
        }
        // the timers stood still while nothing was applied
        expect(hr.inProgress).toBe(true);
        expect(recoil.timer).toBe(0);
      });
    },
  );
}

describe("Mannequin in a right-handed scene (the mirror image)", () => {
  it("HitReaction: a bone hit point turns the bone by curve(t) × weight degrees about cross(force, point − centre)", () =>
    boneHitCase("Mannequin", true));
  it("Recoil: two-handed keeps the other hand's place relative to the weapon hand within 1 % h", () =>
    twoHandedCase("Mannequin", true));
});

describe("modifiers and the rig", () => {
  it("on an animated, walking character, recoil, an active hit reaction and inertia read bones from the rig: the same offsets as from Babylon, and no bone's world matrix forced per frame", async () => {
    // twice the same scene: `a` as shipped, `b` with the rig path switched off (bones from Babylon's
    // recomputed world matrices, the pre-rig way); their offsets must agree to rounding
    const runs: { offsets: Vector3[]; forced: number }[] = [];
    for (const viaRig of [true, false]) {
      const { m, ik, h } = await idlingPair("Mannequin");
      if (!viaRig) Object.defineProperty(ik.rig, "poseIsCurrent", { get: () => false });
      const r = ik.references;
      const recoil = new Recoil(ik, {
        twoHanded: true,
        magnitudeRandom: 0,
        recoilWeight: new Curve([
          { time: 0, value: 0 },
          { time: 0.2, value: 1 },
          { time: 100, value: 0 },
        ]),
        offsets: [
          {
            offset: new Vector3(0, 0.03, -0.05).scale(h),
            effectorLinks: [{ effector: FullBodyBipedEffector.RightHand }],
          },
        ],
      });
      const box = CreateBox("collider", { size: 0.25 * h }, m.scene);
      box.position.copyFrom(worldPos(r.spine[r.spine.length - 1]!));
      const long = new Curve([
        { time: 0, value: 0 },
        { time: 0.2, value: 1 },
        { time: 100, value: 0 },
      ]);
      const hr = new HitReaction(ik, {
        effectorHitPoints: [
          new HitPointEffector({
            collider: box,
            offsetInForceDirection: long,
            effectorLinks: [{ effector: FullBodyBipedEffector.Body }],
          }),
        ],
      });
      new Inertia(ik, { bodies: [{ transform: r.pelvis, effectorLinks: [{ effector: FullBodyBipedEffector.Body }] }] });
      const hand = sampleOffsets(ik, FullBodyBipedEffector.LeftHand);
      const body = sampleOffsets(ik, FullBodyBipedEffector.Body);
      recoil.fire(1);
      hr.hit(box, new Vector3(0, 0, 0.1 * h), box.position.clone());
      m.scene.render();
      m.scene.render();
      // forced recomputes of the skeleton's nodes (the moving root's own are legitimate: it did move)
      let forced = 0;
      const boneNodes = new Set(m.skeleton.bones.map((b) => b.getTransformNode()));
      const original = TransformNodeClass.prototype.computeWorldMatrix;
      TransformNodeClass.prototype.computeWorldMatrix = function (
        this: InstanceType<typeof TransformNodeClass>,
        force?: boolean,
        ...rest: unknown[]
      ) {
        if (force === true && boneNodes.has(this)) forced++;
        return (original as (...a: unknown[]) => Matrix).call(this, force, ...rest);
      };
      // the character walks a curve, so world and component space differ and Inertia has a velocity
      const start = m.root.position.clone();
      const turn0 = (m.root.rotationQuaternion ?? Quaternion.Identity()).clone();
      try {
        for (let f = 0; f < 30; f++) {
          m.root.position.set(start.x + 0.02 * h * f, start.y, start.z + 0.0005 * h * f * f);
          m.root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.02 * f).multiply(turn0);
          m.scene.render();
        }
      } finally {
        TransformNodeClass.prototype.computeWorldMatrix = original;
      }
      runs.push({ offsets: [...hand.slice(-30), ...body.slice(-30)], forced });
    }
    const [rig, babylon] = runs;
    // the recoil re-pins the left hand to the right one: an offset that depends on both hands' poses
    expect(Math.max(...rig!.offsets.map((o) => o.length()))).toBeGreaterThan(0);
    let worst = 0;
    rig!.offsets.forEach((o, i) => (worst = Math.max(worst, o.subtract(babylon!.offsets[i]!).length())));
    // Babylon's world matrices are float32: agreement to its precision
    expect(worst).toBeLessThan(1e-5);
    expect(rig!.forced).toBe(0);
    expect(babylon!.forced).toBeGreaterThan(0);
  });
});

describe("the IK's master weight", () => {
  it("scales HitReaction's bone turns and Recoil's hand turn as it scales the effectors: half at 0.5, none at 0", async () => {
    /** Angle (degrees) between a bone's local rotation in `m` and in the reference scene. */
    const turnOf = (m: LoadedModel, ref: LoadedModel, bone: Bone): number => {
      const local = (l: LoadedModel) =>
        l.skeleton.bones[m.skeleton.bones.indexOf(bone)]!.getTransformNode()!.rotationQuaternion!;
      const d = Quaternion.Inverse(local(ref)).multiply(local(m));
      return (2 * Math.atan2(Math.hypot(d.x, d.y, d.z), Math.abs(d.w)) * 180) / Math.PI;
    };
    const turns: { spine: number; hand: number }[] = [];
    for (const weight of [1, 0.5, 0]) {
      const m = await load("Mannequin", false, IDLE);
      const ref = await load("Mannequin", false, IDLE);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      FullBodyBipedIK.create(ref.scene, ref.skeleton).solver.ikPositionWeight = weight;
      ik.solver.ikPositionWeight = weight;
      m.scene.render();
      ref.scene.render();
      const h = height(m);
      const r = ik.references;
      const box = colliderAt(m, r.spine[0]!, 0.2 * h);
      const hits = new HitReaction(ik, {
        boneHitPoints: [new HitPointBone({ collider: box, boneLinks: [{ bone: r.spine[0]! }] })],
      });
      const recoil = new Recoil(ik, {
        twoHanded: false,
        magnitudeRandom: 0,
        handRotationOffset: { x: -20, y: 0, z: 0 },
      });
      hits.hit(box, new Vector3(0, 0, 0.2), worldPos(r.spine[0]!).add(new Vector3(0, 0.1 * h, 0)));
      recoil.fire(1);
      for (let f = 0; f < 4; f++) {
        m.scene.render();
        ref.scene.render();
      }
      turns.push({ spine: turnOf(m, ref, r.spine[0]!), hand: turnOf(m, ref, r.rightHand) });
    }
    const [full, half, none] = turns as [(typeof turns)[0], (typeof turns)[0], (typeof turns)[0]];
    report("master weight 1, 0.5, 0: spine turn (deg)", full.spine, half.spine, none.spine);
    report("master weight 1, 0.5, 0: hand turn (deg)", full.hand, half.hand, none.hand);
    expect(full.spine).toBeGreaterThan(3);
    expect(full.hand).toBeGreaterThan(5);
    // measured: 4.51°, 2.25°, 0 (spine) and 19.9°, 9.94°, 0 (hand); before, the same turns at every weight, 0
    // included (the IK's output off, the turns still on)
    expect(Math.abs(half.spine / full.spine - 0.5)).toBeLessThan(0.01);
    expect(Math.abs(half.hand / full.hand - 0.5)).toBeLessThan(0.01);
    expect(none.spine).toBe(0);
    expect(none.hand).toBe(0);
  });
});
