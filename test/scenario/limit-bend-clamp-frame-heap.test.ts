/**
 * LimitBend's clamp allocates nothing a frame once warm, though a jog takes it only now and then: UAL jogs
 * (Jog_Fwd_Loop, baked) with both hands held on fixed targets, so LimitBend runs on all four limbs every frame and
 * clamps a lower bone outside its cone in a few frames of each cycle. Run only there, the clamp's helpers
 * (clampDirectionByRef, its angle and slerp) stayed cold, V8's interpreter boxing every double they computed: 49.99 B
 * a frame in 10 runs of 10. In a fresh module graph (vitest.config.ts, HEAP).
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { expect, it } from "vitest";
import { rotateVector } from "../../src/math/quat.js";
import { Vec3, negate, sub } from "../../src/math/vec3.js";
import type { BendConstraint } from "../../src/solver/bend-constraint.js";
import { bakedUalWithIK } from "../helpers/baked-ual.js";
import { bytesPerFrame, whereFramesAllocate } from "../helpers/frame-heap.js";
import { worldPos } from "../helpers/scene-probes.js";

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

it("LimitBend clamping a jog's limbs now and then, both hands held: 0 B a frame", async () => {
  const { m, h, clip, ik, frame } = await bakedUalWithIK("Jog_Fwd_Loop");
  const r = ik.references;
  const s = ik.solver;
  // the hands held a little above and ahead of where the clip's first frame has them
  const ahead = new Vector3(0, 0.05 * h, 0.1 * h);
  s.leftHandEffector.position.copyFrom(worldPos(r.leftHand).add(ahead));
  s.rightHandEffector.position.copyFrom(worldPos(r.rightHand).add(ahead));
  s.leftHandEffector.positionWeight = 1;
  s.rightHandEffector.positionWeight = 1;
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
