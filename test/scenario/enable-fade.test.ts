/**
 * `enableFadeSeconds`: switching an IK off and on without a pop. Each case runs clones of one model playing
 * the same clip in one scene: the IK under test, a twin without IK (the animated pose, frame by frame) and,
 * where needed, a twin IK never switched. A "jump" is how far the IK moves a bone off its animated place from
 * one frame to the next (the clip's own motion taken out by the twin), in character heights.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FABRIKRoot } from "../../src/babylon/chain-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { modelAvailable } from "../helpers/babylon-scene.js";
import {
  BOUND,
  type Clone,
  DT,
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

afterEach(disposeModels);

/** The level of detail's cross-fade in frames (its default 1.2 s): two fades at once add their rates. */
const LOD_FRAMES = 1.2 / DT;

/** Both hands on targets about a fifth of the height from their animated places (the developer's case). */
function reach(ik: FullBodyBipedIK, h: number): void {
  const s = ik.solver;
  for (const [e, d] of [
    [s.leftHandEffector, new Vector3(0.12, 0.14, 0.08)],
    [s.rightHandEffector, new Vector3(-0.1, 0.12, 0.12)],
  ] as const) {
    e.position.copyFrom(worldPos(e.bone!).add(d.scale(h)));
    e.positionWeight = 1;
  }
}

/** `steady`'s hands on `ik`'s targets. */
function sameTargets(steady: FullBodyBipedIK, ik: FullBodyBipedIK): void {
  for (const i of [5, 6]) {
    steady.solver.effectors[i]!.position.copyFrom(ik.solver.effectors[i]!.position);
    steady.solver.effectors[i]!.positionWeight = 1;
  }
}

/** UAL reaching with both hands (enableFadeSeconds 0.3) beside its twin, five frames in. */
async function reaching() {
  const { m, c, h } = await clones("UAL", 2);
  const [a, twin] = c as [Clone, Clone];
  const ik = FullBodyBipedIK.create(m.scene, a.skeleton, { enableFadeSeconds: FADE });
  reach(ik, h);
  run(m, a.skeleton, twin.skeleton, h, 5);
  return { m, a, twin, ik, h };
}

describe("enableFadeSeconds on FullBodyBipedIK", () => {
  for (const name of ["UAL", "Xbot", "Soldier"] as const) {
    it.skipIf(!modelAvailable(name))(
      `${name}: off and on over 0.3 s, no frame jumps more than ${(BOUND * 100).toFixed(1)} % of the instant jump`,
      async () => {
        const { m, c, h } = await clones(name, 3);
        const [a, twin] = c;
        const ik = FullBodyBipedIK.create(m.scene, a.skeleton);
        reach(ik, h);
        sameTargets(FullBodyBipedIK.create(m.scene, c[2]!.skeleton), ik);
        run(m, a.skeleton, twin.skeleton, h, 5);
        // the instant switch, both ways
        const instantOff = run(m, a.skeleton, twin.skeleton, h, 3, (f) => {
          if (f === 1) ik.enabled = false;
        }).jump;
        const instantOn = run(m, a.skeleton, twin.skeleton, h, 3, (f) => {
          if (f === 1) ik.enabled = true;
        }).jump;
        const instant = Math.min(instantOff, instantOn);
        expect(instant).toBeGreaterThan(0.1);
        ik.enableFadeSeconds = FADE;
        const calls = { solve: 0 };
        const solve = ik.solver.inner.update.bind(ik.solver.inner);
        ik.solver.inner.update = () => {
          calls.solve++;
          solve();
        };
        const off = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
          if (f === 0) ik.enabled = false;
          // fading from the switch on, before the frame that starts it: disposing now would pop
          if (f <= 1) expect(ik.isFading).toBe(true);
          if (f === 1) expect(ik.enabled).toBe(false);
        });
        // solved while it fades (18 frames of 16 ms, the 19th ends it), then stopped: no solve, no pose left on
        expect(calls.solve).toBe(18);
        expect(ik.isFading).toBe(false);
        expect(longest(off.after[off.after.length - 1]!) / h).toBeLessThan(1e-6);
        const stopped = run(m, a.skeleton, twin.skeleton, h, 10);
        expect(calls.solve).toBe(18);
        for (const o of stopped.after) expect(longest(o) / h).toBeLessThan(1e-6);
        const on = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
          if (f === 0) ik.enabled = true;
        });
        expect(calls.solve).toBe(18 + 25);
        report(
          `${name}: instant jump off ${(instantOff * 100).toFixed(2)} % h, on ${(instantOn * 100).toFixed(2)} % h;` +
            ` faded (0.3 s) off ${(off.jump * 100).toFixed(3)} % h (1/${(instantOff / off.jump).toFixed(1)}),` +
            ` on ${(on.jump * 100).toFixed(3)} % h (1/${(instantOn / on.jump).toFixed(1)})`,
        );
        expect(off.jump).toBeLessThan(instantOff * BOUND);
        expect(on.jump).toBeLessThan(instantOn * BOUND);
        expect(off.jump).toBeGreaterThan(0);
        // faded in, it solves exactly as an IK never switched off (the third clone)
        m.scene.render();
        expect(locals(a.skeleton)).toEqual(locals(c[2]!.skeleton));
      },
    );
  }

  it("with the default 0 it switches at once, bit for bit as before: the animation alone, then the solved pose", async () => {
    const { m, c, h } = await clones("UAL", 3);
    const [a, twin, steadyClone] = c;
    const ik = FullBodyBipedIK.create(m.scene, a.skeleton);
    const steady = FullBodyBipedIK.create(m.scene, steadyClone!.skeleton);
    expect(ik.enableFadeSeconds).toBe(0);
    reach(ik, h);
    sameTargets(steady, ik);
    for (let f = 0; f < 40; f++) {
      if (f % 10 === 3) ik.enabled = !ik.enabled;
      m.scene.render();
      expect(ik.isFading).toBe(false);
      // off: the clip's pose bit for bit (UAL's clip keys every bone); on: the never-switched IK's
      const expected = ik.enabled ? steadyClone! : twin!;
      expect(locals(a.skeleton)).toEqual(locals(expected.skeleton));
    }
  });

  it("switched back mid-fade, the pose turns back from where it is: no jump above the bound", async () => {
    const { m, a, twin, ik, h } = await reaching();
    const instant = instantJump(m, ik, a.skeleton, twin.skeleton, h);
    // reversals 1, 5, 9, 14 and 1 frames into a fade, and twice within one frame (no change)
    const toggles = new Set([0, 1, 6, 11, 20, 34, 35]);
    const r = run(m, a.skeleton, twin.skeleton, h, 70, (f) => {
      if (toggles.has(f)) ik.enabled = !ik.enabled;
      if (f === 40) {
        ik.enabled = !ik.enabled;
        ik.enabled = !ik.enabled;
      }
    });
    report(`reversals: ${(r.jump * 100).toFixed(3)} % h a frame at most (instant ${(instant * 100).toFixed(2)} %)`);
    expect(r.jump).toBeLessThan(instant * BOUND);
    expect(ik.enabled).toBe(false);
    expect(longest(r.after[r.after.length - 1]!) / h).toBeLessThan(1e-6);
  });

  it("a clip stopped or paused mid-fade: the fade ends on the pose the clip left", async () => {
    const { m, a, twin, ik, h } = await reaching();
    const r = run(m, a.skeleton, twin.skeleton, h, 30, (f) => {
      if (f === 0) ik.enabled = false;
      if (f === 6) for (const k of [a!, twin!]) k.group.pause();
      if (f === 12) for (const k of [a!, twin!]) k.group.stop();
    });
    expect(longest(r.after[r.after.length - 1]!) / h).toBeLessThan(1e-6);
    // fading in over a stopped clip: the bones' pose the clip left is the animated pose
    const back = run(m, a.skeleton, twin.skeleton, h, 30, (f) => {
      if (f === 0) ik.enabled = true;
    });
    expect(ik.isFading).toBe(false);
    expect(longest(back.after[back.after.length - 1]!) / h).toBeGreaterThan(0.05);
    expect(r.jump).toBeLessThan(0.02);
    expect(back.jump).toBeLessThan(0.02);
  });

  it("isFading is true from the moment enabled changes: disposed once it is false, nothing pops", async () => {
    const { m, a, twin, ik, h } = await reaching();
    ik.enabled = false;
    // read before the next frame, as code that switches and then decides whether to wait would
    const fadingAtOnce = ik.isFading;
    let frames = 0;
    while (ik.isFading && frames < 100) {
      m.scene.render();
      frames++;
    }
    // what shows when it is disposed: dispose puts the animated pose back at once, so this much pops
    const shown = longest(offsets(a.skeleton, twin.skeleton)) / h;
    ik.dispose();
    report(`isFading right after the switch: ${fadingAtOnce}; ${frames} frames; ${shown.toExponential(2)} h popped`);
    expect(fadingAtOnce).toBe(true);
    expect(frames).toBe(Math.ceil(FADE / DT));
    expect(shown).toBeLessThan(1e-6);
    // without a time the switch is immediate: never fading
    const { m: m2, c } = await clones("UAL", 1);
    const instant = FullBodyBipedIK.create(m2.scene, c[0]!.skeleton);
    reach(instant, h);
    m2.scene.render();
    instant.enabled = false;
    expect(instant.isFading).toBe(false);
  });

  it("disposed mid-fade: the animated pose at once, nothing left running", async () => {
    const { m, a, twin, ik, h } = await reaching();
    const warnings: string[] = [];
    ik.onWarningObservable.add((w) => warnings.push(w.cause));
    let solves = 0;
    ik.solver.onPreUpdateObservable.add(() => solves++);
    run(m, a.skeleton, twin.skeleton, h, 6, (f) => {
      if (f === 0) ik.enabled = false;
    });
    expect(ik.isFading).toBe(true);
    ik.dispose();
    expect(longest(offsets(a.skeleton, twin.skeleton)) / h).toBeLessThan(1e-6);
    const counted = solves;
    const after = run(m, a.skeleton, twin.skeleton, h, 5);
    for (const o of after.after) expect(longest(o) / h).toBeLessThan(1e-6);
    expect(solves).toBe(counted);
    expect(warnings).toEqual([]);
    // a new IK on the skeleton starts clean
    const again = FullBodyBipedIK.create(m.scene, a.skeleton, { enableFadeSeconds: FADE });
    reach(again, h);
    m.scene.render();
    expect(longest(offsets(a.skeleton, twin.skeleton)) / h).toBeGreaterThan(0.05);
  });
});

describe("enableFadeSeconds with IKLevelOfDetail", () => {
  /** Two IK clones and a twin under a level of detail whose distances the test moves the camera across. */
  async function crowd() {
    const { m, c, h } = await clones("UAL", 3);
    const [a, twin, b] = c;
    const ik = FullBodyBipedIK.create(m.scene, a.skeleton, { enableFadeSeconds: FADE });
    const steady = FullBodyBipedIK.create(m.scene, b!.skeleton, { enableFadeSeconds: FADE });
    reach(ik, h);
    sameTargets(steady, ik);
    const lod = IKLevelOfDetail.for(m.scene);
    Object.assign(lod, { fullScreenSize: 0, offScreenSize: 0, offDistance: 20, budgetMs: Infinity });
    const camera = m.scene.activeCamera!;
    camera.position.set(0, 1, -5);
    run(m, a.skeleton, twin.skeleton, h, 5);
    return { m, a: a!, twin: twin!, b: b!, ik, steady, lod, camera, h };
  }

  it("switched off and on while the level of detail holds it Off: one fade when it wakes, the level's", async () => {
    const { m, a, twin, b, ik, lod, camera, h } = await crowd();
    camera.position.set(0, 1, -60);
    run(m, a.skeleton, twin.skeleton, h, 90);
    expect(lod.levelOf(ik)).toBe(IKLevel.Off);
    ik.enabled = false;
    run(m, a.skeleton, twin.skeleton, h, 3);
    ik.enabled = true;
    run(m, a.skeleton, twin.skeleton, h, 3);
    camera.position.set(0, 1, -5);
    // woken, it eases in exactly as the IK never switched (the level's fade alone, not two in a row)
    for (let f = 0; f < 90; f++) {
      m.scene.render();
      expect(ik.isFading).toBe(false);
      expect(locals(a.skeleton)).toEqual(locals(b.skeleton));
    }
  });

  it("switched off while the level of detail fades it out, and on again: no jump above the bound", async () => {
    const { m, a, twin, ik, lod, camera, h } = await crowd();
    const instant = instantJump(m, ik, a.skeleton, twin.skeleton, h);
    const r = run(m, a.skeleton, twin.skeleton, h, 150, (f) => {
      // the level fades Off over 1.2 s; the IK is switched off in it, on, and the level comes back meanwhile
      if (f === 0) camera.position.set(0, 1, -60);
      if (f === 20) ik.enabled = false;
      if (f === 30) ik.enabled = true;
      if (f === 50) camera.position.set(0, 1, -5);
      if (f === 55) ik.enabled = false;
      // faded out (f = 73) with the level's fade in under way, which has nothing to show until this
      if (f === 100) ik.enabled = true;
    });
    expect(lod.levelOf(ik)).toBe(IKLevel.Full);
    const both = Math.max(...r.jumps.slice(0, 100));
    const alone = Math.max(...r.jumps.slice(100));
    report(
      `with the level of detail: ${(both * 100).toFixed(3)} % h a frame at most while both fade, ` +
        `${(alone * 100).toFixed(3)} % h fading in over the level's interrupted fade (instant ${(instant * 100).toFixed(2)} %)`,
    );
    // a weight on the level's blend: two fades at once add their rates, no more (no lag to catch up)
    expect(both).toBeLessThan(instant * BOUND * (1 + FRAMES / LOD_FRAMES));
    // from nothing shown, the fade in is the only one: the level's blend, stopped while the IK was off, does
    // not catch up meanwhile (2.17 % h a frame when it did)
    expect(alone).toBeLessThan(instant * BOUND);
  });
});

describe("enableFadeSeconds on bones no clip keys (RobotExpressive's fingers under Dance)", () => {
  it("switched on after an instant switch-off, the fingers go back to the animated pose in the first frame", async () => {
    const { m, c, h } = await clones("RobotExpressive", 2);
    const [a, twin] = c;
    const bone = (name: string) => a.skeleton.bones.find((b) => b.name === name)!;
    // FABRIKRoot on the left hand: three fingers from the forearm, their targets carried by it 0.1 h off the tips
    const fingers = ["1.L Index.L Index2.L", "2.L Middle1.L Middle2.L", "3.L Ring1.L Ring2.L"].map((s) => {
      const [palm, ...rest] = s.split(" ");
      return [bone(`Palm${palm}`), ...rest.map(bone)];
    });
    const hand = FABRIKRoot.create(m.scene, bone("LowerArm.L"), fingers, { enableFadeSeconds: FADE });
    fingers.forEach((f, i) => {
      const target = new TransformNode(`tip${i}`, m.scene);
      target.position.copyFrom(worldPos(f.at(-1)!).add(new Vector3(0, -0.1, 0.1).scale(h)));
      target.setParent(bone("LowerArm.L").getTransformNode());
      hand.targets[i] = target;
    });
    run(m, a.skeleton, twin.skeleton, h, 2);
    // the solved fingers' own change a frame as the arm dances, the fades' floor
    const steady = run(m, a.skeleton, twin.skeleton, h, 50).jump;
    // faded off, then on: no jump above the bound
    const faded = run(m, a.skeleton, twin.skeleton, h, 50, (f) => {
      if (f === 0) hand.enabled = false;
      if (f === 25) hand.enabled = true;
    }).jump;
    // off at once (the unkeyed fingers keep the solved pose), then on with the fade
    hand.enableFadeSeconds = 0;
    run(m, a.skeleton, twin.skeleton, h, 3, (f) => {
      if (f === 0) hand.enabled = false;
    });
    hand.enableFadeSeconds = FADE;
    const on = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
      if (f === 0) hand.enabled = true;
    });
    report(
      `RobotExpressive Dance, FABRIKRoot fingers: on after an instant off ${(on.jumps[0]! * 100).toFixed(1)} % h in` +
        ` the first frame; faded off and on ${(faded * 100).toFixed(2)} % h a frame at most (on, the fingers'` +
        ` offset changes ${(steady * 100).toFixed(2)} % h a frame)`,
    );
    expect(on.jumps[0]).toBeGreaterThan(0.1);
    expect(on.jumps[0]).toBe(on.jump);
    expect(faded).toBeLessThan(on.jump / 3);
  });
});

describe("enableFadeSeconds on the family's components (LimbIK)", () => {
  it("off and on over 0.3 s: no jump above the bound, the animated pose after, no solve once faded out", async () => {
    const { m, c, h } = await clones("UAL", 2);
    const [a, twin] = c;
    const r = resolveBipedReferences(a.skeleton).references;
    const arm = LimbIK.create(m.scene, r.leftUpperArm, r.leftForearm, r.leftHand);
    arm.targetPosition.copyFrom(worldPos(r.leftHand).add(new Vector3(0.12, 0.16, 0.1).scale(h)));
    run(m, a.skeleton, twin.skeleton, h, 5);
    const instant = instantJump(m, arm, a.skeleton, twin.skeleton, h);
    expect(instant).toBeGreaterThan(0.1);
    let solves = 0;
    const solve = arm.solver.solve.bind(arm.solver);
    arm.solver.solve = () => {
      solves++;
      solve();
    };
    const off = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
      if (f === 0) arm.enabled = false;
    });
    expect(solves).toBe(18);
    expect(arm.isFading).toBe(false);
    const stopped = run(m, a.skeleton, twin.skeleton, h, 5);
    for (const o of [...off.after.slice(-1), ...stopped.after]) expect(longest(o) / h).toBeLessThan(1e-6);
    expect(solves).toBe(18);
    const on = run(m, a.skeleton, twin.skeleton, h, 25, (f) => {
      if (f === 0) arm.enabled = true;
      if (f === 4) arm.enabled = false;
      if (f === 7) arm.enabled = true;
    });
    report(
      `LimbIK: instant ${(instant * 100).toFixed(2)} % h; faded off ${(off.jump * 100).toFixed(3)} % h ` +
        `(1/${(instant / off.jump).toFixed(1)}), on with reversals ${(on.jump * 100).toFixed(3)} % h`,
    );
    expect(off.jump).toBeLessThan(instant * BOUND);
    expect(on.jump).toBeLessThan(instant * BOUND);
    expect(longest(on.after[on.after.length - 1]!) / h).toBeGreaterThan(0.05);
  });
});
