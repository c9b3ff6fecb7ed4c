/**
 * JacobianIK's priorities on a near-singular task: both hands on one point in front of the chest, the right hand
 * first, bones spine → upper arms → forearms → hands (no clavicles), a clip playing. The left hand moves only
 * through the spine without moving the right, and every step of it raised the right hand's error a little: the
 * steps were rejected and the solve crawled to `maxIterations` with the left hand off.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type LoadedModel, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import {
  type SharedTargetPoint,
  type SharedTargetRig,
  measureSharedTarget,
  sharedTargetPoints,
} from "../helpers/shared-target-hands.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

const FRAMES = 20;

function run(m: LoadedModel, rig: SharedTargetRig, restart: () => void, distances: number[]): SharedTargetPoint[] {
  return sharedTargetPoints(distances).map((p) => measureSharedTarget(m, rig, p, FRAMES, restart));
}

function report(name: string, points: SharedTargetPoint[]): void {
  const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
  console.log(
    `${name}: frames at maxIterations ${points.map((p) => p.stalled).join(" ")}; ` +
      `left hand off ≤ ${points.map((p) => pct(p.leftMiss)).join(" ")}; ` +
      `jump ${points.map((p) => pct(p.jump)).join(" ")} (clip ${pct(Math.max(...points.map((p) => p.clipJump)))})`,
  );
}

describe("JacobianIK: both hands on one point, the right hand first", () => {
  it.skipIf(!modelAvailable("Soldier"))("Soldier (Idle): the left hand converges where it reaches", async () => {
    const m = await loadModel("Soldier", { clips: (c) => c === "Idle" });
    open.push(m);
    const clip = m.container.animationGroups.find((g) => g.name === "Idle")!;
    const M = "mixamorig:";
    const side = (s: string) => [`${M}${s}Arm`, `${M}${s}ForeArm`, `${M}${s}Hand`] as [string, string, string];
    const rig: SharedTargetRig = {
      spine: ["Spine", "Spine1", "Spine2"].map((s) => M + s),
      left: side("Left"),
      right: side("Right"),
      toes: [`${M}LeftToeBase`, `${M}RightToeBase`],
      feet: [`${M}LeftFoot`, `${M}RightFoot`],
    };
    const points = run(m, rig, () => clip.stop() && clip.start(true) && void clip.goToFrame(0), [0.2, 0.45]);
    report("Soldier", points);
    // main: 11 of 18 points ended frames at maxIterations (0.2 h: 2, 0.45 h: 9), the left hand up to 9.8 % h off at
    // points it reaches; now only the three where it stays 7.9–8.7 % h off (beyond it with the right hand there)
    const met = points.filter((p) => p.leftMiss < 1e-4);
    expect(points.filter((p) => p.stalled > 0).length).toBeLessThanOrEqual(3);
    expect(met.length).toBeGreaterThanOrEqual(15);
    expect(met.every((p) => p.stalled === 0)).toBe(true);
    expect(Math.max(...met.map((p) => p.jump))).toBeLessThan(0.03);
  });

  it("UAL (Idle_Loop): the bones move no more than a few times the clip a frame", async () => {
    const m = await loadModel("UAL", { clips: (c) => c === "Idle_Loop" });
    open.push(m);
    const clip = m.container.animationGroups.find((g) => g.name === "Idle_Loop")!;
    const side = (s: string) => [`DEF-upper_arm.${s}`, `DEF-forearm.${s}`, `DEF-hand.${s}`] as [string, string, string];
    const rig: SharedTargetRig = {
      spine: ["DEF-spine.001", "DEF-spine.002", "DEF-spine.003"],
      left: side("L"),
      right: side("R"),
      toes: ["DEF-toe.L", "DEF-toe.R"],
      feet: ["DEF-foot.L", "DEF-foot.R"],
    };
    const points = run(m, rig, () => clip.stop() && clip.start(true) && void clip.goToFrame(0), [0.3]);
    report("UAL", points);
    expect(points.filter((p) => p.stalled > 0).length).toBe(0);
    // main: 5.77 % h at one point (a step of the left hand rejected one frame, kept the next); now ≤ 0.98 %
    expect(Math.max(...points.map((p) => p.jump))).toBeLessThan(0.02);
  });
});
