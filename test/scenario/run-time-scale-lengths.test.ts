/**
 * The head effector's stretch and the offset modifiers on a character scaled at run time (a power-up, a height
 * slider; ARCHITECTURE.md, deviation 24): UAL scaled after create beside a twin created at the new size,
 * each given the same component with its lengths in proportion to its height at create (or the defaults,
 * measured). Once the scale has changed, every bone of the one scaled is where its twin's is.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { EffectorOffset } from "../../src/effectors/modifiers/effector-offset.js";
import { HitPointEffector, HitReaction } from "../../src/effectors/modifiers/hit-reaction.js";
import { Inertia } from "../../src/effectors/modifiers/inertia.js";
import { OffsetLimits } from "../../src/effectors/modifiers/offset-modifier.js";
import { Recoil, RecoilHandedness } from "../../src/effectors/modifiers/recoil.js";
import { Curve } from "../../src/math/curve.js";
import { FullBodyBipedEffector as E } from "../../src/solver/biped-bones.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";
import { disposeOpen, height, load, report, worldPos } from "../helpers/modifier-scene.js";

afterEach(disposeOpen);

/** One copy: the model, its IK, its height at create and what its component does each frame. */
interface Copy {
  m: LoadedModel;
  ik: FullBodyBipedIK;
  /** Height at create (world units). */
  h: number;
}

/** A component added to a copy (lengths × `c.h`); returns what it does on frame `f` (none: nothing). */
type Setup = (c: Copy) => ((f: number) => void) | undefined;

/** The frame the copy created at ×1 is scaled on. */
const CHANGE = 3;

async function copy(scale: number): Promise<Copy> {
  const m = await load("UAL", false, () => false);
  m.root.scaling.scaleInPlace(scale);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  return { m, ik, h: height(m) };
}

/**
 * The worst distance of any bone from its twin's (× the height now) over 30 frames from `settle` frames after
 * the change on: `a` is created at ×1 and scaled by `scale` at frame {@link CHANGE}, `b` created at that scale.
 */
async function worstOffTwin(scale: number, setup: Setup, settle: number): Promise<number> {
  const a = await copy(1);
  const b = await copy(scale);
  const steps = [setup(a), setup(b)];
  let worst = 0;
  for (let f = 0; f <= CHANGE + settle + 30; f++) {
    if (f === CHANGE) a.m.root.scaling.scaleInPlace(scale);
    for (const s of steps) s?.(f);
    a.m.scene.render();
    b.m.scene.render();
    if (f <= CHANGE + settle) continue;
    const h = height(b.m);
    const bonesA = a.m.skeleton.bones;
    const bonesB = b.m.skeleton.bones;
    for (let i = 0; i < bonesA.length; i++) {
      const d = Vector3.Distance(worldPos(bonesA[i]!), worldPos(bonesB[i]!)) / h;
      if (d > worst) worst = d;
    }
  }
  return worst;
}

/**
 * A node kept where the head stood at create, in proportion to the root's scale since (the root stands at the
 * origin). Not a child of the root: the head effector moves the character, and a target moving with it would
 * never be reached.
 */
function headTarget(c: Copy, steps: ((f: number) => void)[]): TransformNode {
  const t = new TransformNode("target", c.m.scene);
  const p0 = worldPos(c.ik.references.head!);
  const s0 = c.m.root.scaling.x;
  steps.push(() => t.position.copyFrom(p0).scaleInPlace(c.m.root.scaling.x / s0));
  return t;
}

/**
 * The head effector on the head where it stands, the neck and chest stretching; the left hand's target 0.5 h
 * out from the shoulder, out of reach, pulls the head off its target (in proportion, as {@link headTarget}).
 */
function stretchedHead(c: Copy, maxStretch?: number): (f: number) => void {
  const r = c.ik.references;
  const steps: ((f: number) => void)[] = [];
  const hand = c.ik.solver.leftHandEffector;
  const shoulder = worldPos(r.leftUpperArm);
  const p0 = shoulder.add(
    worldPos(r.leftHand)
      .subtract(shoulder)
      .normalize()
      .scale(0.5 * c.h),
  );
  const s0 = c.m.root.scaling.x;
  hand.positionWeight = 1;
  steps.push(() => hand.position.copyFrom(p0).scaleInPlace(c.m.root.scaling.x / s0));
  new FBBIKHeadEffector(c.ik, {
    target: headTarget(c, steps),
    stretchBones: [r.spine.at(-1)!, r.head!.getParent()!],
    maxStretch,
  });
  return (f) => {
    for (const s of steps) s(f);
  };
}

/** Each component: what it is, its setup, the frames to settle after the change (0: none). */
const cases: [string, Setup, number][] = [
  ["head effector, maxStretch by default (5 % of the height at create)", (c) => stretchedHead(c), 0],
  ["head effector, maxStretch set (2 % of the height at create)", (c) => stretchedHead(c, 0.02 * c.h), 0],
  [
    "EffectorOffset",
    (c) => {
      const o = new EffectorOffset(c.ik);
      o.bodyOffset.set(0, -0.08 * c.h, 0.05 * c.h);
      o.leftHandOffset.set(0.1 * c.h, 0.1 * c.h, 0);
      return undefined;
    },
    0,
  ],
  [
    "HitReaction (an effector hit point)",
    (c) => {
      const box = CreateBox("collider", { size: 0.2 * c.h }, c.m.scene);
      box.parent = c.m.root;
      // offsets per unit force: 0.5 h at the peak, authored at the size of create
      const point = new HitPointEffector({
        collider: box,
        offsetInForceDirection: new Curve([
          { time: 0, value: 0 },
          { time: 0.1, value: 0.5 * c.h, inTangent: 0, outTangent: 0 },
          { time: 0.5, value: 0, inTangent: 0, outTangent: 0 },
        ]),
        offsetInUpDirection: Curve.linear(0, 0.2 * c.h, 0.5, 0),
        effectorLinks: [{ effector: E.Body }, { effector: E.LeftHand, weight: 0.5 }],
      });
      const hr = new HitReaction(c.ik, { effectorHitPoints: [point] });
      const chest = c.ik.references.spine.at(-1)!;
      return (f) => {
        if (f === CHANGE + 1) hr.hit(box, new Vector3(0.05, 0, 0.2), worldPos(chest));
      };
    },
    0,
  ],
  [
    "Recoil, rapid fire (maxAdditiveOffsetMag by default: 0.2 × characterScale)",
    (c) => {
      const recoil = new Recoil(c.ik, {
        magnitudeRandom: 0,
        handedness: RecoilHandedness.Right,
        offsets: [
          {
            offset: new Vector3(0, 0.05, -0.12).scale(c.h),
            additivity: 1,
            effectorLinks: [{ effector: E.RightHand }, { effector: E.Body, weight: 0.3 }],
          },
        ],
      });
      return (f) => {
        if (f > CHANGE && f % 2 === 0) recoil.fire(1);
      };
    },
    0,
  ],
  [
    "Inertia with gravity and limits",
    (c) => {
      const r = c.ik.references;
      new Inertia(c.ik, {
        // acceleration 30: damped within the frames measured (3, the default, rings for seconds)
        bodies: [{ transform: r.pelvis, effectorLinks: [{ effector: E.Body }], gravity: -0.4 * c.h, acceleration: 30 }],
        limits: [new OffsetLimits({ effector: E.Body, y: true, min: new Vector3(0, -0.06 * c.h, 0) })],
      });
      return undefined;
    },
    // the scale moves the pelvis in the world (×0.1: 0.5 h down), which the lazy point lags as any motion
    60,
  ],
];

describe("lengths in world units at create follow a scale since", () => {
  for (const [name, setup, settle] of cases) {
    for (const scale of [0.1, 3]) {
      it(`${name}, ×${scale} after create: on its twin created at that size`, async () => {
        const worst = await worstOffTwin(scale, setup, settle);
        report(`${name} ×${scale}: worst bone off the twin (× h)`, worst);
        expect(worst).toBeLessThan(1e-5);
      });
    }
  }
});
