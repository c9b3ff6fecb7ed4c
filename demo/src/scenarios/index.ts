/** The demo's scenarios, in the panel's order; `?scenario=<name>` picks one. */
import type { Scenario } from "../kit";
import { aim } from "./aim";
import { biped } from "./biped";
import { climb } from "./climb";
import { creature } from "./creature";
import { crowd } from "./crowd";
import { deck } from "./deck";
import { free } from "./free";
import { grab } from "./grab";
import { ground } from "./ground";
import { hit } from "./hit";
import { look } from "./look";
import { tail } from "./tail";
import { vr } from "./vr";
export const SCENARIO_LIST: readonly Scenario[] = [
  free,
  grab,
  climb,
  ground,
  deck,
  hit,
  aim,
  look,
  biped,
  tail,
  creature,
  vr,
  crowd,
];

export const SCENARIOS = SCENARIO_LIST.map((s) => s.name);
export type ScenarioName = string;

/** The scenario called `name`, or undefined. */
export function scenarioNamed(name: string): Scenario | undefined {
  return SCENARIO_LIST.find((s) => s.name === name);
}
