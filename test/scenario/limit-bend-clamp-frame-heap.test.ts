/**
 * LimitBend's clamp allocates nothing a frame once warm, though a jog takes it only now and then: UAL jogs
 * (Jog_Fwd_Loop, baked) with both hands held on fixed targets, so LimitBend runs on all four limbs every frame and
 * clamps a lower bone outside its cone in a few frames of each cycle. Run only there, the clamp's helpers
 * (clampDirectionByRef, its angle and slerp) stayed cold, V8's interpreter boxing every double they computed: 49.99 B
 * a frame in 10 runs of 10. The clamp's calls of small functions every hot caller inlines (the quaternion product, the
 * pose's getRotation) reached their own code, cold for good once V8 dropped it: the last test drops it. In a fresh
 * module graph (vitest.config.ts, HEAP).
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { setFlagsFromString } from "node:v8";
import { expect, it } from "vitest";
import { FlatPose } from "../../src/mapping/flat-pose.js";
import { multiply, rotateVector } from "../../src/math/quat.js";
import { Vec3, negate, sub } from "../../src/math/vec3.js";
import type { BendConstraint } from "../../src/solver/bend-constraint.js";
import { bakedUalWithIK } from "../helpers/baked-ual.js";
import { bytesPerFrame, whereFramesAllocate } from "../helpers/frame-heap.js";
import { worldPos } from "../helpers/scene-probes.js";

setFlagsFromString("--allow-natives-syntax");
/** V8's own switch: drops the function's optimised code (not the copies inlined into its callers). */
const deoptimize = new Function("f", "%DeoptimizeFunction(f)") as (f: unknown) => void;

/**
 * Counts, while installed, the limbs whose lower bone LimitBend finds outside its cone (FinalIK's test: at least
 * π(1 − clampF × solver weight) from the side opposite the default bend), read from the pose LimitBend is handed;
 * the returned function removes the counters.
 */
function countClamps(constraints: readonly BendConstraint[], count: { clamps: number; calls: number }): () => void {
  const n = new Vec3();
  const lower = new Vec3();
  for (const bc of constraints) {
    const limitBend = bc.limitBend;
    Object.defineProperty(bc, "limitBend", {
      configurable: true,
      value: (...args: Parameters<BendConstraint["limitBend"]>) => {
        negate(n, rotateVector(n, bc.bone1!.boneRotation, bc.defaultLocalDirection));
        sub(lower, bc.bone3!.bonePosition, bc.bone2!.bonePosition);
        const cos = (n.x * lower.x + n.y * lower.y + n.z * lower.z) / Math.hypot(lower.x, lower.y, lower.z);
        count.calls++;
        if (cos <= Math.cos(Math.PI * (1 - bc.clampF * args[1].ikPositionWeight))) count.clamps++;
        limitBend.apply(bc, args);
      },
    });
  }
  return () => {
    for (const bc of constraints) delete (bc as unknown as Record<string, unknown>).limitBend;
  };
}

/** UAL jogging with both hands held a little above and ahead of where the clip's first frame has them. */
async function joggingHandsHeld(): Promise<Awaited<ReturnType<typeof bakedUalWithIK>>> {
  const jog = await bakedUalWithIK("Jog_Fwd_Loop");
  const r = jog.ik.references;
  const s = jog.ik.solver;
  const ahead = new Vector3(0, 0.05 * jog.h, 0.1 * jog.h);
  s.leftHandEffector.position.copyFrom(worldPos(r.leftHand).add(ahead));
  s.rightHandEffector.position.copyFrom(worldPos(r.rightHand).add(ahead));
  s.leftHandEffector.positionWeight = 1;
  s.rightHandEffector.positionWeight = 1;
  return jog;
}

it("LimitBend clamping a jog's limbs now and then, both hands held: 0 B a frame", async () => {
  const { m, clip, ik, frame } = await joggingHandsHeld();
  const s = ik.solver;
  // two cycles counted: the clamp runs, in a few limb-updates of each cycle
  const count = { clamps: 0, calls: 0 };
  const uncount = countClamps(
    s.inner.chains.slice(1).map((c) => c.bendConstraint),
    count,
  );
  for (let f = 0; f < 2 * clip.frames; f++) frame(f);
  uncount();
  process.stderr.write(`limit-bend clamps: ${count.clamps} of ${count.calls} limb-updates\n`);
  expect(count.calls).toBe(4 * 2 * clip.frames);
  expect(count.clamps).toBeGreaterThan(0);
  expect(count.clamps).toBeLessThan(0.05 * count.calls);
  const least = bytesPerFrame(frame, 10_000);
  process.stderr.write(`limit-bend clamp frame heap: ${least.toFixed(2)} B a frame\n`);
  if (least >= 1) process.stderr.write(`${await whereFramesAllocate(frame)}\n`);
  expect(least).toBeLessThan(1);
  m.dispose();
});

// last in the file: V8 keeps the dropped code dropped for the rest of the process
it("LimitBend's clamp allocates nothing with the pose's getRotation and the quaternion product run cold", async () => {
  const { m, frame } = await joggingHandsHeld();
  for (let f = 0; f < 5_000; f++) frame(f);
  // hot callers inline these small functions; a clamp that called them in its few frames reached their own code,
  // which V8 left in its interpreter once dropped: 1.13-10.75 B a frame in 3 runs of 3 (the flake read 2.40)
  for (const f of [FlatPose.prototype.getRotation, FlatPose.prototype.getPosition, multiply]) deoptimize(f);
  const least = bytesPerFrame(frame, 10_000);
  process.stderr.write(`limit-bend clamp frame heap, small functions cold: ${least.toFixed(2)} B a frame\n`);
  expect(least, least < 1 ? "" : await whereFramesAllocate(frame)).toBeLessThan(1);
  m.dispose();
});
