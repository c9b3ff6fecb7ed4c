/** Each demo scenario's end-to-end check, and how long its key moments may take (ms; SwiftShader runs at a few FPS). */
import type { Capture, CheckContext } from "../harness";
import { checkAim } from "./aim";
import { checkBiped } from "./biped";
import { checkClimb } from "./climb";
import { checkCreature } from "./creature";
import { checkCrowd, crowdWithoutBudget } from "./crowd";
import { checkDeck } from "./deck";
import { checkFree } from "./free";
import { checkGrab } from "./grab";
import { checkGround } from "./ground";
import { checkHit } from "./hit";
import { checkLook } from "./look";
import { checkTail } from "./tail";
import { checkVR } from "./vr";

/** A scenario's check; one that returns a capture made it at its own moment (the hit's recoil). */
export type ScenarioCheck = (t: CheckContext) => Promise<Capture | undefined> | Promise<void>;

/**
 * A scenario's set-up for its own check, run once it is ready and before its key moments (the second model's
 * lighter pass runs without it).
 */
export type ScenarioSetup = (hook: CheckContext["hook"]) => Promise<void>;

export const SCENARIO_CHECKS: { name: string; wait: number; check: ScenarioCheck; setup?: ScenarioSetup }[] = [
  { name: "free", wait: 30_000, check: checkFree },
  { name: "grab", wait: 60_000, check: checkGrab },
  { name: "climb", wait: 90_000, check: checkClimb },
  { name: "ground", wait: 120_000, check: checkGround },
  { name: "deck", wait: 90_000, check: checkDeck },
  { name: "crowd", wait: 150_000, check: checkCrowd, setup: crowdWithoutBudget },
  { name: "hit", wait: 60_000, check: checkHit },
  { name: "aim", wait: 60_000, check: checkAim },
  { name: "look", wait: 90_000, check: checkLook },
  { name: "biped", wait: 90_000, check: checkBiped },
  { name: "tail", wait: 90_000, check: checkTail },
  { name: "creature", wait: 120_000, check: checkCreature },
  { name: "vr", wait: 90_000, check: checkVR },
];
