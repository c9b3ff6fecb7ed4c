/**
 * TwistRelaxerSolver on an arm built in memory (upper arm, forearm, hand, and a twist bone beside the hand, as
 * Unreal's lowerarm_twist_01): the bone's twist about its axis lands at parentChildCrossfade of the way from the
 * parent's twist to the child's, the child keeps its rotation, weight 0 writes nothing, a half turn and a
 * zero-length bone give no NaN, a twist carried past the half turn keeps its side up to 45° beyond it.
 */
import { describe, expect, it } from "vitest";
import { HierarchyPose } from "../../../src/mapping/hierarchy-pose.js";
import { Quat, copyQuat, fromAxisAngle, multiply, rotateVector } from "../../../src/math/quat.js";
import { Vec3, copy, cross, dot } from "../../../src/math/vec3.js";
import { TwistRelaxerSolver } from "../../../src/limb/twist-relaxer-solver.js";
import { FBBIKError } from "../../../src/solver/errors.js";

const X = new Vec3(1, 0, 0);
const Y = new Vec3(0, 1, 0);
const DEG = Math.PI / 180;

/** Upper arm (0), forearm (1) and hand (2) along +X, a twist bone (3) half way down the forearm, at rest. */
function arm(): HierarchyPose {
  const none = new Quat();
  return new HierarchyPose([
    { name: "upper", parent: -1, position: new Vec3(0, 0, 0), rotation: none },
    { name: "forearm", parent: 0, position: new Vec3(1, 0, 0), rotation: none },
    { name: "hand", parent: 1, position: new Vec3(1, 0, 0), rotation: none },
    { name: "twist", parent: 1, position: new Vec3(0.5, 0, 0), rotation: none },
  ]);
}

/** The rest pose of bones `p`, `b`, `c` as the pose holds them now. */
function restOf(pose: HierarchyPose, p: number, b: number, c: number) {
  return {
    parentRotation: copyQuat(new Quat(), pose.rotations[p]!),
    boneRotation: copyQuat(new Quat(), pose.rotations[b]!),
    childRotation: copyQuat(new Quat(), pose.rotations[c]!),
    parentPosition: copy(new Vec3(), pose.positions[p]!),
    bonePosition: copy(new Vec3(), pose.positions[b]!),
    childPosition: copy(new Vec3(), pose.positions[c]!),
  };
}

/** Twist of bone `b` about +X (the arm's axis) since rest, radians: where its +Y went. */
function twistOf(pose: HierarchyPose, b: number): number {
  const y = rotateVector(new Vec3(), pose.rotations[b]!, Y);
  return Math.atan2(dot(cross(new Vec3(), Y, y), X), dot(Y, y));
}

/** Turns `bone` by `angle` about the world axis `axis` (its children follow). */
function turn(pose: HierarchyPose, bone: number, axis: Vec3, angle: number): void {
  const q = fromAxisAngle(new Quat(), axis, angle);
  pose.setRotation(bone, multiply(new Quat(), q, pose.rotations[bone]!));
}

describe("TwistRelaxerSolver", () => {
  for (const crossfade of [0, 0.25, 0.5, 1]) {
    it(`crossfade ${crossfade}: the forearm takes ${crossfade} of the hand's 90° twist; the hand keeps its rotation`, () => {
      const pose = arm();
      const relax = new TwistRelaxerSolver(0, 1, 2, restOf(pose, 0, 1, 2), true);
      relax.parentChildCrossfade = crossfade;
      turn(pose, 2, X, 90 * DEG);
      const hand = copyQuat(new Quat(), pose.rotations[2]!);
      relax.relax(pose);
      expect(twistOf(pose, 1)).toBeCloseTo(crossfade * 90 * DEG, 12);
      const r = pose.rotations[2]!;
      expect(Math.abs(r.x * hand.x + r.y * hand.y + r.z * hand.z + r.w * hand.w)).toBeCloseTo(1, 14);
      expect(pose.positions[2]!.x).toBeCloseTo(2, 14);
    });
  }

  it("a bent elbow is not twist: the upper arm's swing leaves the forearm alone", () => {
    const pose = arm();
    const relax = new TwistRelaxerSolver(0, 1, 2, restOf(pose, 0, 1, 2), true);
    // the elbow bends 90° about +Z: the forearm swings, no twist anywhere
    turn(pose, 1, new Vec3(0, 0, 1), 90 * DEG);
    const before = copyQuat(new Quat(), pose.rotations[1]!);
    relax.relax(pose);
    const after = pose.rotations[1]!;
    expect(Math.abs(before.x * after.x + before.y * after.y + before.z * after.z + before.w * after.w)).toBeCloseTo(
      1,
      14,
    );
  });

  it("a twist bone beside the hand (not its parent) takes half the hand's twist; nothing else moves", () => {
    const pose = arm();
    const relax = new TwistRelaxerSolver(1, 3, 2, restOf(pose, 1, 3, 2), false);
    turn(pose, 2, X, 80 * DEG);
    const hand = copyQuat(new Quat(), pose.rotations[2]!);
    relax.relax(pose);
    expect(twistOf(pose, 3)).toBeCloseTo(40 * DEG, 12);
    expect(pose.rotations[2]).toEqual(hand);
    expect(twistOf(pose, 1)).toBe(0);
  });

  it("weight 0 writes nothing; twistAngleOffset adds its turn", () => {
    const pose = arm();
    const relax = new TwistRelaxerSolver(0, 1, 2, restOf(pose, 0, 1, 2), true);
    turn(pose, 2, X, 90 * DEG);
    const locals = pose.localRotations.map((q) => copyQuat(new Quat(), q));
    relax.weight = 0;
    relax.relax(pose);
    expect(pose.localRotations).toEqual(locals);
    relax.weight = 1;
    relax.twistAngleOffset = 10 * DEG;
    relax.relax(pose);
    expect(twistOf(pose, 1)).toBeCloseTo(55 * DEG, 12);
  });

  it("a half turn of the hand: a finite half of it, never NaN", () => {
    const pose = arm();
    const relax = new TwistRelaxerSolver(0, 1, 2, restOf(pose, 0, 1, 2), true);
    turn(pose, 2, X, Math.PI);
    relax.relax(pose);
    expect(Math.abs(twistOf(pose, 1))).toBeCloseTo(90 * DEG, 9);
    for (const q of pose.rotations) expect([q.x, q.y, q.z, q.w].every(Number.isFinite)).toBe(true);
  });

  it("a twist carried past the half turn keeps its side up to 45° beyond it, then flips once", () => {
    const relax = new TwistRelaxerSolver(0, 1, 2, restOf(arm(), 0, 1, 2), true);
    const forearm = (degrees: number, solver = relax) => {
      const pose = arm();
      turn(pose, 2, X, degrees * DEG);
      solver.relax(pose);
      return twistOf(pose, 1) / DEG;
    };
    // the hand's 190° is its −170°: a relaxer that saw 170° before gives the forearm 95°, a fresh one −85°
    const path = [170, 190, 220, 226, 220, 190, 170, 134].map((d) => forearm(d));
    const fresh = forearm(190, new TwistRelaxerSolver(0, 1, 2, restOf(arm(), 0, 1, 2), true));
    // past 225° it flips to the other side, and keeps that one back down to 135°
    const want = [85, 95, 110, -67, -70, -85, -95, 67];
    path.forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 6));
    expect(fresh).toBeCloseTo(-85, 6);
  });

  it("a bone of zero length toward its child has no axis: FBBIKError at create", () => {
    const pose = arm();
    const rest = restOf(pose, 0, 1, 2);
    expect(() => new TwistRelaxerSolver(0, 1, 2, { ...rest, childPosition: rest.bonePosition }, true)).toThrow(
      FBBIKError,
    );
  });
});
