/** The crowd scenario's panel section: the count (log slider), the levels' legend, the LOD's settings. */
import type { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail";
import { IKLevel } from "../../src/babylon/lod/lod-character";
import { checkbox, section, slider } from "./controls";
import { LEVEL_COLOURS } from "./props/crowd-markers";

/** The budget slider's top value, which stands for no budget. */
const NO_BUDGET = 20;

/** Sets the LOD's budget from the slider's value (its top: none). */
export function setBudget(lod: IKLevelOfDetail, ms: number): void {
  lod.budgetMs = ms >= NO_BUDGET ? Number.POSITIVE_INFINITY : ms;
}

/**
 * Appends the section to `el`; returns the legend's update (characters per IKLevel), called by the scenario
 * a few times a second.
 */
export function crowdPanel(
  el: HTMLElement,
  lod: IKLevelOfDetail,
  count: () => number,
  setCount: (n: number) => void,
): (counts: readonly number[]) => void {
  const s = section("Crowd");
  // 1 to 1,000 on a log scale, the output showing the count rather than the slider's exponent
  const countSlider = slider(
    "characters",
    0,
    3,
    0.01,
    () => Math.log10(count()),
    (v) => setCount(10 ** v),
    "crowd-count",
    () => String(count()),
  );
  const legend = document.createElement("div");
  legend.className = "hint";
  const lodOn = checkbox(
    "IK level of detail",
    "crowd-lod",
    () => lod.enabled,
    (v) => (lod.enabled = v),
  );
  const full = slider(
    "full above (screen)",
    0.02,
    0.5,
    0.01,
    () => lod.fullScreenSize,
    (v) => (lod.fullScreenSize = v),
    "crowd-full",
  );
  // the slider's top is "none": its output says so, the label stays short enough to fit
  const budget = slider(
    "budget (ms)",
    0.5,
    NO_BUDGET,
    0.5,
    () => Math.min(NO_BUDGET, lod.budgetMs),
    (v) => setBudget(lod, v),
    "crowd-budget",
    (v) => (v >= NO_BUDGET ? "none" : v.toFixed(1)),
  );
  s.append(countSlider, legend, lodOn, full, budget);
  el.append(s);
  const dot = (k: number) => `<span style="color:rgb(${LEVEL_COLOURS[k]!.map((c) => c * 255).join(",")})">●</span>`;
  return (counts) => {
    legend.innerHTML =
      `${dot(IKLevel.Full)} full ${counts[IKLevel.Full]} · ${dot(IKLevel.Cheap)} cheap ${counts[IKLevel.Cheap]}` +
      ` · ${dot(IKLevel.Off)} off ${counts[IKLevel.Off]}`;
  };
}
