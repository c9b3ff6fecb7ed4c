/**
 * The process that `npm run bench:touch` (bench/touch.ts) runs under valgrind: the frame benchmark's
 * crowd (Mannequins, both hands and feet at weight 1 on moving targets, 4 iterations), warmed up, then
 * a number of measured frames bracketed by a handshake over files, so that the driver switches the cache
 * simulation on for exactly those frames.
 *
 * Arguments: characters, warm-up frames, measured frames, and the stage the frames run up to (default
 * `frame`, the whole IK frame): `fix` = FixTransforms of every character; `read` = that, then every
 * character's `rig.read()`; `solve` = that plus the solver and mapping (nothing written to Babylon); each in
 * the order `scene.render()` runs them (FixTransforms for all, then each character's update). Environment:
 * FBBIK_TOUCH_SYNC, the path
 * prefix of the handshake files (`.ready` → driver switches on and writes `.go` → frames → `.done` →
 * driver switches off and writes `.exit`). Without it the frames simply run (a dry run, for checking).
 */
import { existsSync, writeFileSync } from "node:fs";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { loadModel } from "../test/helpers/babylon-scene.js";
import { Crowd, MODEL, growCrowd, jointHeight } from "./frame.js";

const [count, warmFrames, measuredFrames] = process.argv.slice(2, 5).map(Number) as [number, number, number];
const stage = process.argv[5] ?? "frame";
const sync = process.env["FBBIK_TOUCH_SYNC"];

/** Blocks until `file` exists, sleeping between looks (a sleeping process adds nothing to the counts). */
function waitFor(file: string): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!existsSync(file)) Atomics.wait(cell, 0, 0, 20);
}

Logger.LogLevels = Logger.ErrorLogLevel;
const model = await loadModel(MODEL);
const crowd = new Crowd(model, jointHeight(model));
growCrowd(crowd, count, Math.ceil(Math.sqrt(count)));
/** One frame up to `stage`. */
function run(f: number): void {
  if (stage === "frame") {
    crowd.frame(f);
    return;
  }
  crowd.targetsOnly(f);
  const iks = crowd.iks;
  for (let i = 0; i < iks.length; i++) iks[i]!._beforeAnimations();
  if (stage === "fix") return;
  for (let i = 0; i < iks.length; i++) {
    iks[i]!.rig.read();
    if (stage === "solve") iks[i]!.solver.inner.update();
  }
}
if (!["frame", "fix", "read", "solve"].includes(stage)) throw new Error(`touch-crowd: unknown stage ${stage}`);
let frame = 0;
for (; frame < warmFrames; frame++) run(frame);
globalThis.gc?.();
if (sync !== undefined) {
  writeFileSync(`${sync}.ready`, "");
  waitFor(`${sync}.go`);
}
for (let i = 0; i < measuredFrames; i++) run(frame++);
if (sync !== undefined) {
  writeFileSync(`${sync}.done`, "");
  waitFor(`${sync}.exit`);
}
// (the stages before the solver leave nothing to check)
if ((stage === "frame" || stage === "solve") && !crowd.healthy())
  throw new Error("touch-crowd: a character did not solve");
