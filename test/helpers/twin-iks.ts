/**
 * The IK set-ups the animation-feature scenarios put on copies of a character (test/helpers/animation-twins.ts),
 * the scenarios' building blocks (clips by name, cross-fades, an arms-only group) and the check that each IK sits
 * on Babylon's pose.
 */
import { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { AnimationPropertiesOverride } from "@babylonjs/core/Animations/animationPropertiesOverride.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { expect } from "vitest";
import { AimIK } from "../../src/babylon/aim-ik.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { type Twin, type TwinIK, type TwinScenario, runTwins } from "./animation-twins.js";
/**
 * FullBodyBipedIK with its left hand on the target; `grounded`: with a GrounderFBBIK on flat ground at the root's
 * height (the feet's), probing and offsetting every frame.
 */
export function fbbik(t: Twin, grounded = false): TwinIK {
  const ik = FullBodyBipedIK.create(t.m.scene, t.m.skeleton);
  const ground = grounded ? CreateGround("ground", { width: 20, height: 20 }, t.m.scene) : null;
  const grounder =
    ground === null ? null : GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast });
  const hand = ik.solver.leftHandEffector;
  hand.positionWeight = 1;
  const writes = new Set<Bone>();
  for (const v of Object.values(ik.references)) {
    if (Array.isArray(v)) for (const b of v) writes.add(b as Bone);
    else if (v !== null && "getTransformNode" in (v as object)) writes.add(v as Bone);
  }
  return {
    end: ik.references.leftHand,
    anchor: ik.references.leftUpperArm,
    writes,
    setWeight: (w) => {
      ik.solver.ikPositionWeight = w;
    },
    setTarget: (p: Vector3) => {
      hand.position.copyFrom(p);
    },
    dispose: () => {
      grounder?.dispose();
      ik.dispose();
      ground?.dispose();
    },
  };
}

/**
 * The family on one character, each on bones another also writes: LookAtIK turns the spine and head toward a
 * point ahead, AimIK points the right arm at a point to the side, LimbIK puts the left hand on the target.
 */
export function family(t: Twin): TwinIK {
  const r = resolveBipedReferences(t.m.skeleton).references;
  const look = LookAtIK.create(t.m.scene, { spine: r.spine, head: r.head });
  look.solver.bodyWeight = 0.5;
  const aim = AimIK.create(t.m.scene, [r.rightUpperArm, r.rightForearm, r.rightHand]);
  const limb = LimbIK.create(t.m.scene, r.leftUpperArm, r.leftForearm, r.leftHand);
  // the hand's position only (its rotation weight is separate, as in FinalIK)
  limb.solver.ikRotationWeight = 0;
  const writes = new Set<Bone>([...r.spine, r.head!, r.rightUpperArm, r.rightForearm, r.rightHand]);
  for (const b of [r.leftUpperArm, r.leftForearm, r.leftHand]) writes.add(b);
  const ahead = new Vector3(0.3, 1.6, 2);
  const side = new Vector3(-2, 1.2, 0.5);
  return {
    end: r.leftHand,
    anchor: r.leftUpperArm,
    writes,
    setWeight: (w) => {
      look.solver.ikPositionWeight = w;
      aim.solver.ikPositionWeight = w;
      limb.solver.ikPositionWeight = w;
    },
    setTarget: (p) => {
      limb.targetPosition.copyFrom(p);
      look.targetPosition.copyFrom(ahead);
      aim.targetPosition.copyFrom(side);
    },
    dispose: () => {
      look.dispose();
      aim.dispose();
      limb.dispose();
    },
  };
}

/** The scenario's group of that name. */
export const group = (t: Twin, name: string): AnimationGroup => t.groups.get(name)!;

/** Cross-fades for whatever takes these overrides (a scene, a skeleton, a node). */
export function blending(speed: number): AnimationPropertiesOverride {
  const o = new AnimationPropertiesOverride();
  o.enableBlending = true;
  o.blendingSpeed = speed;
  return o;
}

/** A scenario's start: the scene cross-fades at `speed`, Idle plays. */
export function idleBlending(speed: number): (t: Twin) => void {
  return (t) => {
    t.m.scene.animationPropertiesOverride = blending(speed);
    group(t, "Idle_Loop").start(true);
  };
}

/** A group playing `clip`'s animations of the arms and hands only (UAL's Rigify names). */
export function onlyArms(t: Twin, clip: AnimationGroup): AnimationGroup {
  const arms = new AnimationGroup(`${clip.name}_arms`, t.m.scene);
  for (const ta of clip.targetedAnimations) {
    if (/arm|hand|shoulder|f_|thumb/.test(ta.target.name)) arms.addTargetedAnimation(ta.animation, ta.target);
  }
  t.groups.set(arms.name, arms);
  return arms;
}

/**
 * UAL's walk on the arms alone, a punch made additive started between frames at 120: on the bones only it animates,
 * Babylon mixes it over its start snapshot (what the bones held when it started).
 */
export const ADDITIVE_STARTED_BETWEEN_FRAMES: TwinScenario = {
  clips: ["Walk_Loop", "Punch_Jab"],
  prepare: (t) => {
    const arms = onlyArms(t, group(t, "Walk_Loop"));
    arms.weight = 1;
    arms.start(true);
    AnimationGroup.MakeAnimationAdditive(group(t, "Punch_Jab"), { referenceFrame: 0 });
  },
  between: (t, f) => {
    if (f === 120) {
      const punch = group(t, "Punch_Jab");
      punch.weight = 1;
      punch.isAdditive = true;
      punch.start(true);
    }
  },
};

/** The IK set-ups each scenario runs, on copies of their own beside one shared copy without IK. */
export const IKS = [
  ["FullBodyBipedIK", fbbik],
  ["LookAtIK + AimIK + LimbIK", family],
] as const;

/**
 * Each IK sits on Babylon's pose: weight 0 is Babylon's, it reads Babylon's, reaches, and nothing builds up.
 * Soft: one IK's failure does not hide the other's.
 */
export async function expectOnTop(
  label: string,
  scenario: TwinScenario,
  iks: readonly (readonly [string, (t: Twin) => TwinIK])[] = IKS,
): Promise<void> {
  const figures = await runTwins(
    scenario,
    iks.map(([, makeIK]) => makeIK),
  );
  iks.forEach(([ik], k) => {
    const f = figures[k]!;
    const name = `${label}, ${ik}`;
    console.log(
      `${name}: weight 0 ${f.weightZero.toExponential(2)}, read ${f.read.toExponential(2)} (frame ${f.readFrame}), ` +
        `reach ${f.reach.toExponential(2)}, others ${f.others.toExponential(2)}, drift ${f.drift.toExponential(2)}`,
    );
    expect.soft(f.weightZero, `${name}: weight 0`).toBeLessThan(1e-6);
    expect.soft(f.read, `${name}: read`).toBeLessThan(1e-6);
    expect.soft(f.reach, `${name}: reach`).toBeLessThan(1e-4);
    expect.soft(f.others, `${name}: others`).toBeLessThan(1e-9);
    expect.soft(f.drift, `${name}: drift`).toBeLessThan(1e-6);
  });
}
