/**
 * BipedIK on the characters its own tests never used (QA round 23): Soldier, Superhero, RiggedFigure as glTF and as
 * `.babylon` (plain Bones), a VRM 0.x avatar, and Xbot scaled ×0.01 and ×100, in left-handed (glTF's mirrored root)
 * and right-handed scenes. Hands and feet reach targets reachable by construction within 1e-4 h; the aim reaches a
 * target 30° off and stays within its clamp; the head looks within its clamp; targets on the bones and a million
 * units away give finite bones and each warning once; dispose leaves the pose bit for bit; weight 0 leaves the
 * animation bit for bit (the `.babylon` file's own clip for plain Bones). RobotExpressive, no biped, throws.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { describe, expect, it } from "vitest";
import { BipedIK } from "../../src/babylon/biped-ik.js";
import { detectBipedFacing } from "../../src/babylon/character-forward.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type ModelName, modelAvailable, proceduralIdle } from "../helpers/babylon-scene.js";
import {
  type CharacterCase,
  bipedReach,
  characterCase,
  loadCase,
  loadCaseModel,
  targetEveryPart,
  vrmAndScaledXbot,
} from "../helpers/character-cases.js";
import { allFinite, boneMatrix, bonePos, lockstep, poseSnapshot } from "../helpers/model-limbs.js";
import { report } from "../helpers/modifier-scene.js";
import { Random } from "../helpers/random.js";

const CASES: CharacterCase[] = [false, true].flatMap((rightHanded) => [
  ...(["Soldier", "Superhero", "RiggedFigure", "RiggedFigureBabylon"] as ModelName[]).map((name) =>
    characterCase(name, rightHanded),
  ),
  ...vrmAndScaledXbot(rightHanded),
]);
const LIMBS = ["leftFoot", "rightFoot", "leftHand", "rightHand"] as const;
const DEG = Math.PI / 180;

const angleDeg = (a: Vector3, b: Vector3): number =>
  Math.acos(Math.min(1, Math.max(-1, Vector3.Dot(a.normalizeToNew(), b.normalizeToNew())))) / DEG;

describe.each(CASES)("BipedIK on $label", (c) => {
  it.skipIf(!modelAvailable(c.name))(
    "reaches, aims and looks within the clamps, stays finite, warns once, and dispose restores the pose",
    async () => {
      const { m, h } = await loadCase(c);
      // off the origin, at the case's scale
      m.root.position.set(3 * (c.scale ?? 1), 0, -2 * (c.scale ?? 1));
      m.scene.render();
      const before = poseSnapshot(m);
      const ik = BipedIK.create(m.scene, m.skeleton);
      // each part's warnings, by part
      const causes: string[] = [];
      ik.parts.forEach((part, i) => part.onWarningObservable.add((w) => causes.push(`${i} ${w.cause}`)));
      ik.onWarningObservable.add((w) => causes.push(`BipedIK ${w.cause}`));

      const reach = bipedReach(m, ik, new Random(23), h);
      for (const key of LIMBS) ik.solvers[key].solver.ikPositionWeight = 0;
      m.scene.render();

      // the aim (the top spine bone's +z): 30° off is reached; 80°…170° off turn it at most 90° (clamp 0.5)
      const r = ik.references;
      const top = r.spine[r.spine.length - 1]!;
      const facing = detectBipedFacing(m.skeleton, null)!;
      const aim = ik.solvers.aim;
      const animated = Vector3.TransformNormal(Vector3.Forward(), boneMatrix(m, top)).normalize();
      const across = Vector3.Cross(animated, facing.up).normalize();
      aim.solver.ikPositionWeight = 1;
      aim.solver.clampWeight = 0.5;
      aim.solver.maxIterations = 20;
      let aimMiss = 0;
      let aimTurn = 0;
      for (const deg of [30, 80, 120, 170]) {
        const dir = animated.scale(Math.cos(deg * DEG)).add(across.scale(Math.sin(deg * DEG)));
        aim.targetPosition.copyFrom(bonePos(m, top).add(dir.scale(2 * h)));
        m.scene.render();
        const axis = Vector3.TransformNormal(Vector3.Forward(), boneMatrix(m, top));
        aimTurn = Math.max(aimTurn, angleDeg(axis, animated));
        if (deg === 30) aimMiss = angleDeg(axis, aim.targetPosition.subtract(bonePos(m, top)));
      }
      aim.solver.ikPositionWeight = 0;
      m.scene.render();

      // the head alone (bodyWeight 0): 20° to the side is reached; up to straight behind, at most 90° (clamp 0.5)
      const look = ik.solvers.lookAt;
      const headLocal = Vector3.TransformNormal(facing.forward, boneMatrix(m, r.head!).invert());
      const head0 = Vector3.TransformNormal(headLocal, boneMatrix(m, r.head!));
      const side = Vector3.Cross(facing.up, facing.forward);
      look.solver.ikPositionWeight = 1;
      look.solver.headWeight = 1;
      look.solver.bodyWeight = 0;
      look.solver.clampWeightHead = 0.5;
      let lookMiss = 0;
      let lookTurn = 0;
      for (const deg of [20, 90, 150, 180]) {
        const dir = facing.forward.scale(Math.cos(deg * DEG)).add(side.scale(Math.sin(deg * DEG)));
        look.targetPosition.copyFrom(bonePos(m, r.head!).add(dir.scale(2 * h)));
        m.scene.render();
        const face = Vector3.TransformNormal(headLocal, boneMatrix(m, r.head!));
        lookTurn = Math.max(lookTurn, angleDeg(face, head0));
        if (deg === 20) lookMiss = angleDeg(face, look.targetPosition.subtract(bonePos(m, r.head!)));
      }

      // degenerate targets: on the limbs' roots, the spine's, the aim point and the head; then a million units away
      for (const key of LIMBS) {
        const limb = ik.solvers[key];
        limb.targetPosition.copyFrom(bonePos(m, limb.bones[0]));
        limb.solver.ikPositionWeight = 1;
      }
      ik.solvers.spine.targetPosition.copyFrom(bonePos(m, r.spine[0]!));
      ik.solvers.spine.solver.ikPositionWeight = 1;
      aim.targetPosition.copyFrom(bonePos(m, top));
      aim.solver.ikPositionWeight = 1;
      look.targetPosition.copyFrom(bonePos(m, r.head!));
      for (let f = 0; f < 5; f++) m.scene.render();
      const finiteNear = allFinite(poseSnapshot(m));
      for (const key of LIMBS) ik.solvers[key].targetPosition.set(1e6, 1e6, 1e6);
      ik.solvers.spine.targetPosition.set(1e6, -1e6, 0);
      aim.targetPosition.set(-1e6, 0, 1e6);
      look.targetPosition.set(0, 1e6, -1e6);
      for (let f = 0; f < 30; f++) m.scene.render();
      const finiteFar = allFinite(poseSnapshot(m));

      ik.dispose();
      const after = poseSnapshot(m);
      const moved = before.filter((row, i) => row.some((v, j) => v !== after[i]![j])).length;
      report(
        `${c.label}: reach (× h), aim miss at 30°, aim's most turn, look miss at 20°, head's most turn (°)`,
        reach,
        aimMiss,
        aimTurn,
        lookMiss,
        lookTurn,
      );
      // measured: reach ≤ 6.1e-7 h (glTF), 2.2e-5 h (.babylon, float32 bones); misses ≤ 0.0031°; turns 87.6–88.3°, 90.0°
      expect(reach).toBeLessThan(1e-4);
      expect(aimMiss).toBeLessThan(0.01);
      expect(aimTurn).toBeLessThan(90 + 0.01);
      expect(aimTurn).toBeGreaterThan(80);
      expect(lookMiss).toBeLessThan(0.01);
      expect(lookTurn).toBeLessThan(90 + 0.01);
      expect(lookTurn).toBeGreaterThan(80);
      expect(finiteNear && finiteFar).toBe(true);
      // a target on a limb's root or on the aim point is warned, once by each part; nothing else
      expect(new Set(causes).size).toBe(causes.length);
      expect(causes.every((cause) => /^\d (target:on-root|target:on-aim-point)$/.test(cause))).toBe(true);
      expect(moved).toBe(0);
    },
  );

  it.skipIf(!modelAvailable(c.name))("weight 0 everywhere leaves the animation bit for bit", async () => {
    const a = await loadCaseModel(c);
    const b = await loadCaseModel(c);
    for (const x of [a, b]) {
      // plain Bones play the file's own clip (it moves the neck, the head and an upper arm)
      const nodes = x.skeleton.bones.map((bone) => bone.getTransformNode());
      if (nodes.every((n) => n !== null)) proceduralIdle(x.scene, nodes).start(true);
    }
    const ik = BipedIK.create(a.scene, a.skeleton);
    targetEveryPart(ik, new Vector3(5, 5, 5));
    const { differing, animated } = lockstep(a, b, 30);
    expect(animated).toBeGreaterThan(0);
    expect(differing).toBe(0);
    ik.dispose();
  });
});

describe("BipedIK on RobotExpressive (its feet hang from the root bone, three palms a hand)", () => {
  it("throws an FBBIKError naming the feet and the hands, in both scenes", async () => {
    for (const rightHanded of [false, true]) {
      const m = await loadCaseModel(characterCase("RobotExpressive", rightHanded));
      const items = m.scene.onBeforeAnimationsObservable.observers.length;
      let error: unknown;
      try {
        BipedIK.create(m.scene, m.skeleton);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FBBIKError);
      const message = String(error);
      for (const bone of ["Foot.L", "Foot.R", "Palm2.L", "Palm2.R"]) expect(message).toContain(bone);
      // nothing half-built is left hooked on the scene
      expect(m.scene.onBeforeAnimationsObservable.observers.length).toBe(items);
    }
  });
});
