/**
 * The natural-side fold on clips whose elbows the character root's frame calls unnatural: UAL's Roll tumbles the
 * body (the root stays upright) and Sword_Attack swings an arm, so their elbows pass opposite the natural pole. With
 * both hand effectors 2 % of the height above the clip's hands, a partial fold (which folds one way or the other
 * opposite the pole) flipped Roll's elbow 0.286 h beyond the clip's in one frame and turned Sword_Attack's elbows
 * 14.2° off the clip's on average. At 5 % (a full fold) the fold swung the elbows with the natural pole, 1.8 times
 * its turn: Roll's 0.133 h and 55° a frame beyond the clip's, Sword_Attack's 78°, until the fold's memory
 * (fold-memory.ts) bounded its turn.
 */
import { expect, it } from "vitest";
import { type ClipElbows, handsAboveClips } from "../helpers/hands-above-clips.js";
import { report } from "../helpers/modifier-scene.js";

/** Roll and Sword_Attack, both hand effectors `raise` of the height above the clip's hands. */
async function rollAndSword(raise: number): Promise<Record<string, ClipElbows>> {
  const clips = await handsAboveClips(raise, (n) => n === "Roll" || n === "Sword_Attack");
  report(
    Object.entries(clips)
      .map(
        ([name, c]) =>
          `${name}, hands ${raise * 100} % h above: worst elbow jump beyond the clip's ${c.jump.toFixed(3)} h, ` +
          `swivel ${c.swivel.toFixed(1)}° a frame, side off the clip's ${c.mean.toFixed(1)}°`,
      )
      .join("; "),
  );
  return clips;
}

it("Roll and Sword_Attack, hands 2 % h above the clip's: no elbow flip, elbows near the clip's", async () => {
  const clips = await rollAndSword(0.02);
  for (const name of ["Roll", "Sword_Attack"]) {
    expect(clips[name]!.jump, name).toBeLessThan(0.07);
    expect(clips[name]!.mean, name).toBeLessThan(12);
  }
});

it("Roll and Sword_Attack, hands 5 % h above the clip's: the full fold turns the elbow at a bounded rate", async () => {
  const clips = await rollAndSword(0.05);
  for (const name of ["Roll", "Sword_Attack"]) {
    expect(clips[name]!.jump, name).toBeLessThan(0.07);
    expect(clips[name]!.swivel, name).toBeLessThan(25);
  }
});
