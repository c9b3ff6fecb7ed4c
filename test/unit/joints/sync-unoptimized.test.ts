/**
 * The chain solvers' rotation pass (`IKSolverJoints.syncFromPositions`, run after every FABRIK iteration) allocates
 * nothing even when V8 runs it unoptimised (not yet, no longer, or until its optimised loop takes over mid-call).
 * Computing in its own loop, it allocated 123.9 KB a solve round a ball so; a flake under load read 7.7 KB at the
 * same call sites, one of the 16 joints a call. Telling V8 never to optimise it is the worst case.
 */
import { setFlagsFromString } from "node:v8";
import { describe, expect, it } from "vitest";
import { IKSolverFABRIK } from "../../../src/fabrik/ik-solver-fabrik.js";
import { IKSolverJoints } from "../../../src/joints/ik-solver-joints.js";
import { orbitSolve } from "../../helpers/ball-orbit.js";
import { bytesPerFrame, whereFramesAllocate } from "../../helpers/frame-heap.js";

setFlagsFromString("--allow-natives-syntax");
/** V8's own switch: the function stays in the interpreter (and baseline code) for the rest of the process. */
const neverOptimize = new Function("f", "%NeverOptimizeFunction(f)") as (f: unknown) => void;

describe("IKSolverJoints.syncFromPositions unoptimised", () => {
  it("FABRIK round a ball, the rotation pass never optimised, allocates nothing", async () => {
    neverOptimize((IKSolverJoints.prototype as unknown as { syncFromPositions: unknown }).syncFromPositions);
    const solve = orbitSolve(
      (chain) => {
        const f = new IKSolverFABRIK(chain.pose, chain.ids, { rootParent: 0 });
        f.maxIterations = 40;
        return f;
      },
      { limits: true },
    );
    const bytes = bytesPerFrame(solve, 2_000);
    if (process.env.FBBIK_REPORT) console.log(`[figures] FABRIK round a ball, rotation pass unoptimised: ${bytes} B`);
    expect(bytes, bytes < 8 ? "" : await whereFramesAllocate(solve, 2_000)).toBeLessThan(8);
  });
});
