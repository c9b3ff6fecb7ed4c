import { describe, expect, it } from "vitest";
import { Vec3 } from "../../../src/math/vec3.js";
import { FBIKChain } from "../../../src/solver/chain.js";
import { IKNode } from "../../../src/solver/node.js";

describe("IKNode offset", () => {
  it("addOffset adds v × ikPositionWeight and marks the offset active; resetOffset zeroes it and clears the mark", () => {
    const n = new IKNode(0);
    expect(n.offsetActive).toBe(false);
    n.addOffset(new Vec3(1, -2, 4), { ikPositionWeight: 0.5 });
    n.addOffset(new Vec3(2, 0, 0), { ikPositionWeight: 0.5 });
    expect(n.offsetActive).toBe(true);
    expect([n.offset.x, n.offset.y, n.offset.z]).toEqual([1.5, -1, 2]);
    n.resetOffset();
    expect(n.offsetActive).toBe(false);
    expect([n.offset.x, n.offset.y, n.offset.z]).toEqual([0, 0, 0]);
  });

  it("a chain's ReadPose adds an active offset to the bone position and gives exactly bone + 0 without one (−0 becomes +0 as before)", () => {
    const nodes = [new IKNode(0), new IKNode(1), new IKNode(2)];
    nodes.forEach((n, i) => {
      n.bonePosition.x = i;
    });
    nodes[0]!.bonePosition.z = -0;
    const chain = new FBIKChain(nodes);
    const solver = { chains: [chain], iterations: 4, ikPositionWeight: 1, warn: () => {} };
    expect(chain.initiate(solver)).toBe(true);
    nodes[1]!.addOffset(new Vec3(0, 0.25, 0), solver);
    chain.readPose(solver, false);
    expect([nodes[1]!.solverPosition.x, nodes[1]!.solverPosition.y, nodes[1]!.solverPosition.z]).toEqual([1, 0.25, 0]);
    expect(Object.is(nodes[0]!.solverPosition.z, 0)).toBe(true);
    // an inactive offset is not read: the effectors are the offset's writers (through addOffset)
    nodes[2]!.offset.y = 7;
    chain.readPose(solver, false);
    expect(nodes[2]!.solverPosition.y).toBe(0);
  });
});
