/**
 * `enableFadeSeconds` on the hooks of a FullBodyBipedIK's solve (FBBIKHeadEffector, GrounderFBBIK, the offset
 * modifiers, FBBIKColliders): switching one off and on without a pop, alone or with its IK (the demo's IK switch). Three UAL
 * clones play the same clip: the IK with the hook, a twin without IK (the animated pose) and an IK without the
 * hook (the pose the hook's fade ends on). A "jump" is the per-frame change of a bone's displacement from the
 * animated twin, in character heights (test/helpers/enable-fade-runs.ts).
 */
import { Color3 } from "@babylonjs/core/Maths/math.color.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { FBBIKHeadEffector } from "../../src/effectors/head/fbbik-head-effector.js";
import { EffectorOffset } from "../../src/effectors/modifiers/effector-offset.js";
import {
  BOUND,
  type Clone,
  FADE,
  FRAMES,
  clones,
  disposeModels,
  instantJump,
  locals,
  longest,
  offsets,
  report,
  run,
} from "../helpers/enable-fade-runs.js";
import { worldPos } from "../helpers/scene-probes.js";
import type { LoadedModel } from "../helpers/babylon-scene.js";

afterEach(disposeModels);

/**
 * The IK's own fade, bounded here a little wider than BOUND: the body moved a tenth of the height down turns
 * the legs far, and a bone's arc about its parents is longer than the straight jump (1/15.0 measured).
 */
const IK_FADE = 1.5 / FRAMES;

/** What a case switches: a hook's `enabled`, `enableFadeSeconds` and `isFading`. */
interface Hook {
  enabled: boolean;
  enableFadeSeconds: number;
  readonly isFading: boolean;
}

interface Case {
  name: string;
  /**
   * The largest per-frame jump of its fade alone, × the instant jump (the FBBIK's {@link BOUND} where what it
   * adds moves the pose in proportion).
   */
  bound: number;
  /** Attaches the hook under test to `ik` (and what the IK without it needs to match); returns it. */
  attach(m: LoadedModel, ik: FullBodyBipedIK, c: Clone, h: number, bare: FullBodyBipedIK): Hook;
}

/**
 * The head 15 % of the height down and 8 % forward of the animated head (a crouch under a headset), turned
 * `far` (the world's axes: UAL's head bone is rolled 177° from them, as a headset node not aligned to the
 * head's bone is) or near (the head's own rotation pitched down 0.2 rad).
 */
const headCase = (far: boolean): Case => ({
  name: far ? "FBBIKHeadEffector (headset far from the head's rotation)" : "FBBIKHeadEffector",
  // a release's path (weights and the target's pull fall together: twice the pace at the start)
  bound: (2 * 1.25) / FRAMES,
  attach: (m, ik, _c, h) => {
    const bone = ik.references.head!;
    const headset = new TransformNode("headset", m.scene);
    const forward = worldPos(ik.references.leftFoot.children[0]!).subtract(worldPos(ik.references.leftFoot));
    forward.y = 0;
    headset.position.copyFrom(
      worldPos(bone)
        .add(new Vector3(0, -0.15 * h, 0))
        .add(forward.normalize().scale(0.08 * h)),
    );
    headset.rotationQuaternion = far
      ? Quaternion.Identity()
      : Quaternion.RotationAxis(Vector3.Right(), 0.2).multiply(bone.getTransformNode()!.absoluteRotationQuaternion);
    return FBBIKHeadEffector.create(ik, { target: headset, enableFadeSeconds: FADE });
  },
});
const head = headCase(false);

/** The left foot on a block 8 % of the height high, the right one on the floor. */
const grounder: Case = {
  name: "GrounderFBBIK",
  // a foot lifted by a share of its lift bends a near-straight knee by more than that share
  bound: 2 / FRAMES,
  attach: (m, ik, c, h, bare) => {
    const material = new StandardMaterial("ground", m.scene);
    material.diffuseColor = Color3.Gray();
    const floor = CreateGround(`floor_${c.root.name}`, { width: 4 * h, height: 4 * h }, m.scene);
    const foot = worldPos(ik.references.leftFoot);
    const block = CreateBox(`block_${c.root.name}`, { width: 0.2 * h, depth: 0.4 * h, height: 0.08 * h }, m.scene);
    block.position.set(foot.x, 0.04 * h, foot.z);
    for (const mesh of [floor, block]) mesh.material = material;
    // the grounder keeps the feet's rotation through the solve: so does the IK it is compared with
    bare.solver.leftLegMapping.maintainRotationWeight = bare.solver.rightLegMapping.maintainRotationWeight = 1;
    return GrounderFBBIK.create(ik, {
      raycast: StaticGroundRaycast.fromMeshes([floor, block]).raycast,
      enableFadeSeconds: FADE,
    });
  },
};

/** EffectorOffset (the base class's fade, as Recoil's and every modifier's): the body down and a hand out. */
const modifier: Case = {
  name: "an offset modifier (EffectorOffset)",
  // offsets in proportion to the weight
  bound: BOUND,
  attach: (_m, ik, _c, h) => {
    const o = new EffectorOffset(ik, { enableFadeSeconds: FADE });
    o.bodyOffset.set(0, -0.1 * h, 0.03 * h);
    o.leftHandOffset.set(-0.1 * h, 0.15 * h, 0.1 * h);
    return o;
  },
};

/** FBBIKColliders: the left hand's target 0.06 h inside a sphere (a pillar's node) of 0.1 h, kept out of it. */
const colliders: Case = {
  name: "FBBIKColliders",
  // a push in proportion to the weight, the arm turned to reach it
  bound: BOUND,
  attach: (m, ik, _c, h, bare) => {
    const hand = worldPos(ik.references.leftHand);
    const target = hand.add(new Vector3(0, 0.04 * h, 0.06 * h));
    for (const k of [ik, bare]) {
      const e = k.solver.leftHandEffector;
      e.position.copyFrom(target);
      e.positionWeight = 1;
    }
    const pillar = new TransformNode("pillar", m.scene);
    pillar.position.copyFrom(target.add(new Vector3(0, 0, 0.04 * h)));
    return FBBIKColliders.create(ik, {
      colliders: [BoneCollider.sphere(pillar, 0.1 * h)],
      enableFadeSeconds: FADE,
    });
  },
};

/** UAL's three clones: the IK with the hook (`a`), the animated twin, the IK without the hook (`bare`). */
async function setUp(k: Case) {
  const { m, c, h } = await clones("UAL", 3);
  const [a, twin, b] = c as [Clone, Clone, Clone];
  const ik = FullBodyBipedIK.create(m.scene, a.skeleton);
  const bare = FullBodyBipedIK.create(m.scene, b.skeleton);
  const hook = k.attach(m, ik, a, h, bare);
  // past the head effector's own ease in (its fadeSeconds)
  run(m, a.skeleton, twin.skeleton, h, 30);
  /** The largest distance of `a`'s bones from `bare`'s, in h (each clone's displacement from the twin). */
  const fromBare = (): number => {
    const x = offsets(a.skeleton, twin.skeleton);
    const y = offsets(b.skeleton, twin.skeleton);
    return Math.max(...x.map((v, i) => v.subtract(y[i]!).length())) / h;
  };
  return { m, a, twin, b, ik, bare, hook, h, fromBare };
}

describe("enableFadeSeconds on the hooks of FullBodyBipedIK's solve", () => {
  for (const k of [head, grounder, modifier, colliders]) {
    it(`${k.name}: off and on alone over 0.3 s, no frame jumps more than ${(k.bound * 100).toFixed(1)} % of the instant jump; the IK's pose without it after`, async () => {
      const { m, a, twin, hook, h, fromBare } = await setUp(k);
      expect(fromBare()).toBeGreaterThan(0.03);
      const instant = instantJump(m, hook, a.skeleton, twin.skeleton, h);
      // switched at once, the head effector eases back in by its own fadeSeconds: past it, the hook holds still
      run(m, a.skeleton, twin.skeleton, h, 30);
      const still = run(m, a.skeleton, twin.skeleton, h, 10).jump;
      const seen: boolean[] = [];
      const off = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
        if (f === 0) hook.enabled = false;
        seen.push(hook.isFading);
      });
      // fading from the switch (before the update that starts it) until the weight reaches 0 (19 frames of 16 ms)
      expect(seen.slice(0, 3)).toEqual([true, true, true]);
      expect(hook.isFading).toBe(false);
      expect(fromBare(), "faded out: the IK's pose without the hook").toBeLessThan(1e-6);
      const on = run(m, a.skeleton, twin.skeleton, h, 30, (f) => {
        if (f === 0) hook.enabled = true;
        // reversed mid-fade, and back
        if (f === 6) hook.enabled = false;
        if (f === 9) hook.enabled = true;
      });
      expect(hook.isFading).toBe(false);
      report(
        `${k.name}: instant ${(instant * 100).toFixed(2)} % h, still ${(still * 100).toFixed(3)} % h; faded off ${(off.jump * 100).toFixed(3)} % h ` +
          `(1/${(instant / off.jump).toFixed(1)}), on with reversals ${(on.jump * 100).toFixed(3)} % h ` +
          `(1/${(instant / on.jump).toFixed(1)})`,
      );
      expect(instant).toBeGreaterThan(0.03);
      expect(still).toBeLessThan(0.001);
      expect(off.jump).toBeLessThan(instant * k.bound);
      expect(on.jump).toBeLessThan(instant * k.bound);
      expect(fromBare()).toBeGreaterThan(0.03);
    });

    it(`${k.name}: switched off with its IK (both 0.3 s), the animated pose after, no frame jumps more than two fades'`, async () => {
      const { m, a, twin, ik, hook, h } = await setUp(k);
      // the instant jump of both switched at once
      hook.enableFadeSeconds = ik.enableFadeSeconds = 0;
      const both = run(m, a.skeleton, twin.skeleton, h, 2, (f) => {
        if (f === 1) hook.enabled = ik.enabled = false;
      }).jump;
      hook.enabled = ik.enabled = true;
      run(m, a.skeleton, twin.skeleton, h, 20);
      hook.enableFadeSeconds = ik.enableFadeSeconds = FADE;
      const off = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
        if (f === 0) hook.enabled = ik.enabled = false;
      });
      // the hook's fade stopped one step short when the IK's ended: nothing of it shows, it is not fading
      expect([ik.isFading, hook.isFading]).toEqual([false, false]);
      expect(longest(off.after.at(-1)!) / h).toBeLessThan(1e-6);
      const on = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
        if (f === 0) hook.enabled = ik.enabled = true;
      });
      expect([ik.isFading, hook.isFading]).toEqual([false, false]);
      report(
        `${k.name} with its IK: instant ${(both * 100).toFixed(2)} % h; faded off ${(off.jump * 100).toFixed(3)} % h ` +
          `(1/${(both / off.jump).toFixed(1)}), on ${(on.jump * 100).toFixed(3)} % h (1/${(both / on.jump).toFixed(1)})`,
      );
      // two fades at once add their paces; fading in from nothing shown, the IK's fade is the only one
      expect(off.jump).toBeLessThan(both * (k.bound + IK_FADE));
      expect(on.jump).toBeLessThan(both * IK_FADE);
    });

    it(`${k.name}: with the default 0, off at once, bit for bit the IK's pose without it; never fading`, async () => {
      const { m, a, b, hook, fromBare } = await setUp(k);
      hook.enableFadeSeconds = 0;
      hook.enabled = false;
      m.scene.render();
      expect(hook.isFading).toBe(false);
      expect(locals(a.skeleton)).toEqual(locals(b.skeleton));
      hook.enabled = true;
      for (let f = 0; f < 5; f++) {
        m.scene.render();
        expect(hook.isFading).toBe(false);
      }
      expect(fromBare()).toBeGreaterThan(0.01);
    });
  }

  it("FBBIKHeadEffector with a headset far from the head's rotation: released and back by its weight over fadeSeconds, off and on by enableFadeSeconds, no frame jumps more than a fade's", async () => {
    const k = headCase(true);
    const { m, a, twin, hook, h } = await setUp(k);
    const effector = hook as FBBIKHeadEffector;
    const instant = instantJump(m, hook, a.skeleton, twin.skeleton, h);
    run(m, a.skeleton, twin.skeleton, h, 30);
    // the weight's own ease (fadeSeconds, 0.3 s): a headset's tracking lost and found
    const released = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
      if (f === 0) effector.weight = 0;
    }).jump;
    const back = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
      if (f === 0) effector.weight = 1;
    }).jump;
    const off = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
      if (f === 0) hook.enabled = false;
    }).jump;
    const on = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
      if (f === 0) hook.enabled = true;
    }).jump;
    report(
      `${k.name}: instant ${(instant * 100).toFixed(2)} % h; weight released ${(released * 100).toFixed(3)} % h, ` +
        `back ${(back * 100).toFixed(3)}; enabled off ${(off * 100).toFixed(3)}, on ${(on * 100).toFixed(3)}`,
    );
    // a target rotation carried from the head's passed through the clamps: most of the turn in one frame
    expect(instant).toBeGreaterThan(0.03);
    for (const jump of [released, back, off, on]) expect(jump).toBeLessThan(instant * k.bound);
  });
});
