/** Interaction weight curves shared by the interaction tests and the demo (which imports this file). */
import { Curve } from "../../src/effectors/curve.js";

/** 0 → 1 over `rise` s, held to `hold`, back to 0 at `end`; flat tangents at every key. */
export function riseHoldFall(rise: number, hold: number, end: number): Curve {
  return new Curve([
    { time: 0, value: 0, outTangent: 0 },
    { time: rise, value: 1, inTangent: 0, outTangent: 0 },
    { time: hold, value: 1, inTangent: 0, outTangent: 0 },
    { time: end, value: 0, inTangent: 0 },
  ]);
}
