/**
 * TwistRelaxerSolver.relax allocates nothing once warm, on the arm built in memory with the hand turning across the
 * half turn (in a fresh module graph: vitest.config.ts, HEAP). Before the turn's quaternion and the dot products
 * were written out in it, V8 boxed one double a call here (15 B a frame, every run).
 */
import { expect, it } from "vitest";
import { TwistRelaxerSolver } from "../../../src/limb/twist-relaxer-solver.js";
import { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { Quat, copyQuat, fromAxisAngle } from "../../../src/math/quat.js";
import { Vec3, copy } from "../../../src/math/vec3.js";
import { bytesPerFrame, whereFramesAllocate } from "../../helpers/frame-heap.js";

it("TwistRelaxerSolver.relax: 0 B a call, the hand turning across the half turn", async () => {
  const none = new Quat();
  const pose = new HierarchyPose([
    { name: "upper", parent: -1, position: new Vec3(0, 0, 0), rotation: none },
    { name: "forearm", parent: 0, position: new Vec3(1, 0, 0), rotation: none },
    { name: "hand", parent: 1, position: new Vec3(1, 0, 0), rotation: none },
  ]);
  const relaxer = new TwistRelaxerSolver(
    0,
    1,
    2,
    {
      parentRotation: copyQuat(new Quat(), pose.rotations[0]!),
      boneRotation: copyQuat(new Quat(), pose.rotations[1]!),
      childRotation: copyQuat(new Quat(), pose.rotations[2]!),
      parentPosition: copy(new Vec3(), pose.positions[0]!),
      bonePosition: copy(new Vec3(), pose.positions[1]!),
      childPosition: copy(new Vec3(), pose.positions[2]!),
    },
    true,
  );
  // the hand's turns about the forearm made beforehand, up to ±3.3 rad: the frame itself builds nothing
  const turns = Array.from({ length: 16 }, (_, i) => fromAxisAngle(new Quat(), new Vec3(1, 0, 0), 3.3 * Math.sin(i)));
  const frame = (f: number): void => {
    pose.setRotation(1, none);
    pose.setRotation(2, turns[f % 16]!);
    relaxer.relax(pose);
  };
  const least = bytesPerFrame(frame, 10_000);
  console.log(`TwistRelaxerSolver.relax: ${least.toFixed(2)} B a call`);
  if (least >= 1) console.log(await whereFramesAllocate(frame));
  expect(least).toBeLessThan(1);
  // and it relaxed: the forearm took half of the last turn (turns[9999 % 16] = 3.3 sin 15)
  const q = pose.rotations[1]!;
  expect(Math.abs(2 * Math.atan2(q.x, q.w))).toBeGreaterThan(0.1);
});
