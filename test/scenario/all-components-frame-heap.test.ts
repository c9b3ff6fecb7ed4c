/**
 * Every component class the package exports, on characters walking at once: what their frames allocate once
 * warm, steady frames apart from the frames of events. A field read per frame through many classes turns
 * megamorphic (V8 then boxes the doubles it loads), which no test of a few components together reaches. UAL
 * walking a circle (Walk_Loop) carries a FullBodyBipedIK with handles, a head effector, a grounder on static and
 * moving ground, an interaction started, paused, resumed and ended, all six offset modifiers (a hit and a shot
 * now and then) and colliders, under an IKLevelOfDetail switching it between Full and Cheap; its twin in the same
 * scene carries the family (LimbIK, AimIK, LookAtIK, CCDIK with joint limits and colliders, FABRIK, FABRIKRoot,
 * JacobianIK); a third UAL walking on LimbIK legs grounded by GrounderIK, one foot on a step; RiggedFigure.babylon
 * (plain Bones) an FBBIK with a grounder and modifiers, a LookAtIK and a limited CCDIK; a fourth UAL on BipedIK
 * (every part weighted, its feet grounded by GrounderIK). Components fade off and on over enableFadeSeconds, reversed mid-fade. In a fresh module graph (vitest.config.ts, HEAP).
 */
import { expect, it } from "vitest";
import { IKLevel } from "../../src/babylon/lod/lod-character.js";
import { FullBodyBipedEffector as E } from "../../src/solver/biped-bones.js";
import { Happening, PERIOD, allComponentsScene, happeningNames } from "../helpers/all-components-scene.js";
import { type KindAllocations, type RoundAllocations, allocationsByKind } from "../helpers/frame-heap.js";

/**
 * Bytes a steady frame may allocate (targets moving, fades, hit reactions and shots playing, the interaction
 * running or paused), the 1 % of steady frames that allocated most left out: V8's own objects when it finishes
 * optimising a function (5.9 KB in one or two frames, named by whatever ran) would otherwise decide it. Measured
 * (Node 20, Babylon 9.28): 0.0 B (6.1 B with the burst). With FBIKChain boxing an overshooting pull on the
 * interaction's plateau (48 B in 24 frames of each 240): 4.5 B (9.5 B with the burst); with nearestGroundRaycast
 * boxing its maximum per ray, more.
 */
const STEADY_CEILING = 1;

/**
 * Bytes an event may allocate in its frame, measured after 12,000–16,000 frames (most is code run too rarely for
 * V8 to optimise, where every double is boxed): a start 256 B (3,384 B before the hand poser kept its match to
 * the target's pose, the events' order and the curves' length were read without new arrays or iterators and only
 * the channels in use read; the rest is the curves' length and weights read through getters); the pause event
 * 128 B (1,232 B while it composed the pose relative to the target with Babylon's quaternion math); the end 160 B
 * (456 B while it iterated an array literal; the rest, for both, is the observers' event data); a hit updates
 * the collider's bounding box through Babylon (160 B; 416 B while `hit` iterated its points with for-of, whose
 * iterator and results V8's interpreter allocates) and, until V8 optimises the rarely run `onHit`, boxes its lever
 * and axis (480 B) and Babylon's getters' results (128 B): 832 B on a busy CI machine (with the for-of), where the
 * 7,000 frames after the profiler started did not bring `onHit` back to optimised code; the level switch captures
 * the pose to cross-fade from (0 B once optimised, 13.7 KB before).
 */
const EVENT_CEILING: Record<keyof typeof Happening, number> = {
  Fade: 300,
  IKSwitch: 300,
  Level: 16_000,
  Start: 600,
  Resume: 300,
  Pause: 300,
  Stop: 400,
  Hit: 1_100,
  Shot: 400,
};

it("every component on walking characters, fading, hitting, shooting, interacting, levelled: steady and event frames", {
  timeout: 300_000,
}, async () => {
  const { frame, happened, ik, head, system, lod, hit, recoil, tilt, amplifier, walkerGrounder, dispose } =
    await allComponentsScene();
  // the schedule does what it says: every state of a fade, an interaction paused and running, Cheap and Full
  const seen = new Set<string>();
  // the walker's feet: one on the step, lifted above the other by the grounder
  let stepped = 0;
  for (let f = 0; f < PERIOD; f++) {
    frame(f);
    const [left, right] = walkerGrounder.solver.legs;
    stepped = Math.max(stepped, Math.abs(left!.ikOffset - right!.ikOffset));
    const inter = system.isInInteraction(E.RightHand) ? (system.isPaused(E.RightHand) ? "paused" : "on") : "idle";
    seen.add(`${head.isFading}/${head.enabled}/${inter}/${lod.levelOf(ik)}/${hit.inProgress}/${recoil.inProgress}`);
  }
  const states = [...seen].join(" ");
  for (const s of ["true/true", "true/false", "false/true", "false/false", "paused", "/on/", "idle"])
    expect(states).toContain(s);
  expect(states).toContain(`/${IKLevel.Cheap}/`);
  expect(states).toContain(`/${IKLevel.Full}/`);
  expect(system.isInInteraction(E.RightHand)).toBe(false);
  console.log(`walker: feet ${(stepped / walkerGrounder.height).toFixed(4)} of the height apart in offset`);
  // the step is 0.08 of UAL's height: without the grounder (or the step) the legs' offsets stay apart by 0
  expect(stepped / walkerGrounder.height).toBeGreaterThan(0.03);

  // ten periods after 12,000 frames (5,000 before the profiler, 7,000 after: it costs V8 some optimised code), then
  // ten more; each round is judged whole and the better one decides. V8's own work lands in one round: when it
  // installs a function it optimised late (small per-frame functions reach its budget after ~13,000 frames), it
  // allocates 1.4–5.9 KB in that frame, which an event's ten frames cannot absorb, and the profiler misses the frame
  // marks around it (16 once, which put the hits' bytes in steady frames). An allocation of the library's is in both.
  const names = Object.keys(Happening) as (keyof typeof Happening)[];
  const ceilingOf = (k: number): number =>
    k === 0
      ? STEADY_CEILING
      : names.reduce((sum, n) => sum + ((k & Happening[n]) !== 0 ? EVENT_CEILING[n] : 0), STEADY_CEILING);
  // steady frames by their typical bytes (without V8's bursts), an event's by its mean; over the kind's ceiling: > 1
  const measureOf = (k: number, a: KindAllocations): number => (k === 0 ? a.typicalBytes : a.bytes);
  const worst = (r: RoundAllocations): number =>
    r.missedMarks >= 10 ? Infinity : Math.max(...[...r.kinds].map(([k, a]) => measureOf(k, a) / ceilingOf(k)));
  const rounds = [
    await allocationsByKind((f) => frame(PERIOD + f), happened, 10 * PERIOD, 5_000, 7_000),
    await allocationsByKind((f) => frame(PERIOD + f), happened, 10 * PERIOD, 0),
  ];
  const chosen = worst(rounds[0]!) <= worst(rounds[1]!) ? 0 : 1;
  const { kinds, missedMarks } = rounds[chosen]!;
  const report = [...kinds]
    .sort((a, b) => a[0] - b[0])
    .map(
      ([k, a]) =>
        `${happeningNames(k)}: ${a.bytes.toFixed(1)} B a frame over ${a.frames} (${a.typicalBytes.toFixed(1)} without ` +
        `the top 1 %)\n  ${a.where.join("\n  ")}`,
    )
    .join("\n");
  // each round's worst kind by name: the round not chosen is not reported below, and a CI failure names both
  const worstKind = (r: RoundAllocations): string => {
    let most: [number, KindAllocations] | undefined;
    for (const e of r.kinds)
      if (!most || measureOf(e[0], e[1]) / ceilingOf(e[0]) > measureOf(...most) / ceilingOf(most[0])) most = e;
    return most ? `${happeningNames(most[0]) || "steady"} ${measureOf(...most).toFixed(1)} B` : "none";
  };
  const scores = rounds.map((r) => `${worst(r).toFixed(2)} (${worstKind(r)})`).join(" and ");
  console.log(
    `all components frame heap, round ${chosen + 1} of 2 (worst share of a ceiling ${scores}; ${missedMarks} frame ` +
      `marks missed):\n${report}`,
  );
  // they act
  expect(Math.abs(tilt.tiltAngle)).toBeGreaterThan(0.05);
  expect(
    Math.hypot(amplifier.bodies[0]!.offset.x, amplifier.bodies[0]!.offset.y, amplifier.bodies[0]!.offset.z),
  ).toBeGreaterThan(0);
  expect(ik.warningsRaised).toEqual([]);
  // every kind of event came round, and each kept under its ceiling (several in a frame: their sum)
  for (const name of names)
    expect(
      [...kinds.keys()].some((k) => (k & Happening[name]) !== 0),
      name,
    ).toBe(true);
  expect(missedMarks).toBeLessThan(10);
  const steady = kinds.get(0)!;
  expect(steady.frames).toBeGreaterThan(5 * PERIOD);
  expect(steady.typicalBytes, report).toBeLessThan(STEADY_CEILING);
  for (const [k, a] of kinds) {
    if (k === 0) continue;
    expect(a.bytes, `${happeningNames(k)}\n${report}`).toBeLessThan(ceilingOf(k));
  }
  dispose();
});
