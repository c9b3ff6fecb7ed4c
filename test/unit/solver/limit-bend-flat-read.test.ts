/**
 * LimitBend reads the limb back from a FlatPose's arrays, written out (a call made only in its few clamping frames
 * reached small functions' own code, which V8 may leave in its interpreter: test/scenario/limit-bend-clamp-frame-heap),
 * and from any other IKPose by its methods: both reads leave the nodes the same bits.
 */
import { expect, it } from "vitest";
import { FlatPose } from "../../../src/mapping/flat-pose.js";
import { NumberRef } from "../../../src/math/number-ref.js";
import { Quat } from "../../../src/math/quat.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { BendConstraint } from "../../../src/solver/bend-constraint.js";
import { IKNode } from "../../../src/solver/node.js";
import type { IKPose } from "../../../src/solver/pose.js";

/**
 * An arm (root, upper, lower, hand) whose setup bends toward +z, then posed with the lower bone `deg` from straight
 * toward `side` (or, under 10°, the hand moved to a nearly straight arm); returns the node numbers after LimitBend, read through `wrap`'s pose.
 */
function limitBent(
  deg: number,
  side: Vec3,
  endWeight: number,
  wrap: boolean,
): { numbers: number[]; moved: number; writes: number } {
  const flat = new FlatPose([-1, 0, 1, 2]);
  let writes = 0;
  const pose: IKPose = wrap
    ? {
        getPosition: (b, o) => flat.getPosition(b, o),
        getRotation: (b, o) => flat.getRotation(b, o),
        setRotation: (b, q) => {
          writes++;
          flat.setRotation(b, q);
        },
        setPosition: (b, v) => flat.setPosition(b, v),
      }
    : flat;
  flat.setPosition(1, new Vec3(0.2, 1.4, 0.05));
  flat.setPosition(2, new Vec3(0.2, 1.1, 0.1));
  flat.setPosition(3, new Vec3(0.2, 0.8, 0));
  const nodes = [1, 2, 3].map((b) => new IKNode(b));
  const read = (): void => {
    for (const n of nodes) {
      pose.getPosition(n.bone, n.bonePosition);
      pose.getRotation(n.bone, n.boneRotation);
    }
  };
  read();
  const bend = new BendConstraint();
  bend.setBones(nodes[0]!, nodes[1]!, nodes[2]!);
  bend.initiate();
  if (deg > 10) {
    // the lower bone turned about the elbow by `deg` toward `side`
    const s = Math.sin((deg * Math.PI) / 360);
    const c = Math.cos((deg * Math.PI) / 360);
    const turn = new Quat(side.z * s, 0, -side.x * s, c);
    const r = flat.getRotation(2, new Quat());
    const q = new Quat(
      turn.w * r.x + turn.x * r.w + turn.y * r.z - turn.z * r.y,
      turn.w * r.y - turn.x * r.z + turn.y * r.w + turn.z * r.x,
      turn.w * r.z + turn.x * r.y - turn.y * r.x + turn.z * r.w,
      turn.w * r.w - turn.x * r.x - turn.y * r.y - turn.z * r.z,
    );
    flat.setRotation(2, q);
  } else {
    // the hand moved onto the upper bone's line, then `deg` (small) off it toward `side`: a nearly straight arm
    const t = (deg * Math.PI) / 180;
    const u = new Vec3(0, -0.3, 0.05);
    const k = Math.tan(t) * Math.hypot(u.x, u.y, u.z);
    flat.setPosition(3, new Vec3(0.2 + u.x + side.x * k, 1.1 + u.y + side.y * k, 0.1 + u.z + side.z * k));
  }
  read();
  const { x, y, z } = nodes[2]!.bonePosition;
  writes = 0;
  bend.limitBend(pose, { ikPositionWeight: 1 }, new NumberRef(endWeight));
  const numbers = nodes.flatMap(({ bonePosition: v, boneRotation: o }) => [v.x, v.y, v.z, o.x, o.y, o.z, o.w]);
  const p = nodes[2]!.bonePosition;
  return { numbers, moved: Math.hypot(p.x - x, p.y - y, p.z - z), writes };
}

it("LimitBend leaves the nodes the same bits read from a FlatPose's arrays as through an IKPose's methods", () => {
  const h = Math.SQRT1_2;
  for (const [what, deg, side, endWeight, writes] of [
    ["clamp", 150, new Vec3(0, 0, -1), 0, 2], // folded far to the side opposite the default
    ["clamp, then plane turn", 2, new Vec3(1, 0, 0), 1, 4], // nearly straight, just outside the cone, off the plane
    ["plane turn", 2, new Vec3(h, 0, -h), 1, 2], // nearly straight inside the cone, off the default plane
  ] as const) {
    const flat = limitBent(deg, side, endWeight, false);
    const wrapped = limitBent(deg, side, endWeight, true);
    expect(wrapped.writes, `${what}: bone writes`).toBe(writes);
    expect(flat.moved, `${what}: the hand moved`).toBeGreaterThan(1e-3);
    expect(flat.numbers, what).toEqual(wrapped.numbers);
  }
});
