import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HandPoser } from "../../../src/effectors/interaction/hand-poser.js";

let engine: NullEngine;
let scene: Scene;
beforeEach(() => {
  engine = new NullEngine();
  scene = new Scene(engine);
});
afterEach(() => {
  scene.dispose();
  engine.dispose();
});

/** A hand with two fingers of two joints each, named with a namespace. */
function hand(prefix = "rig:") {
  const h = new TransformNode(`${prefix}Hand`, scene);
  h.rotationQuaternion = Quaternion.Identity();
  const joints: TransformNode[] = [];
  for (const f of ["Index", "Thumb"]) {
    let parent = h;
    for (let i = 1; i <= 2; i++) {
      const j = new TransformNode(`${prefix}${f}${i}`, scene);
      j.parent = parent;
      j.position.set(0, 0.03, 0);
      j.rotationQuaternion = Quaternion.RotationAxis(Vector3.Forward(), 0.1 * i);
      joints.push(j);
      parent = j;
    }
  }
  return { h, joints };
}

describe("HandPoser", () => {
  it("blends every finger's local rotation toward the matching pose node by weight; weight 0 restores", () => {
    const { h, joints } = hand();
    const rest = joints.map((j) => j.rotationQuaternion!.clone());
    // a pose from another rig without the namespace, curled
    const { h: other } = hand("");
    const pose = HandPoser.capturePose(other);
    const poseNodes = pose.getDescendants(false) as TransformNode[];
    for (const n of poseNodes) n.rotationQuaternion = Quaternion.RotationAxis(Vector3.Right(), 1.2);
    const poser = new HandPoser(h);
    expect(poser.bones.length).toBe(4);
    expect(poser.setPoseRoot(pose)).toBe(4);
    poser.weight = 0.25;
    poser.update();
    joints.forEach((j, i) => {
      const expected = Quaternion.Slerp(rest[i]!, Quaternion.RotationAxis(Vector3.Right(), 1.2), 0.25);
      expect(Math.abs(Quaternion.Dot(j.rotationQuaternion!, expected))).toBeCloseTo(1, 12);
    });
    // updating again does not accumulate: the animated base is remembered
    poser.update();
    joints.forEach((j, i) => {
      const expected = Quaternion.Slerp(rest[i]!, Quaternion.RotationAxis(Vector3.Right(), 1.2), 0.25);
      expect(Math.abs(Quaternion.Dot(j.rotationQuaternion!, expected))).toBeCloseTo(1, 12);
    });
    poser.weight = 0;
    poser.update();
    joints.forEach((j, i) => expect(j.rotationQuaternion!.equals(rest[i]!)).toBe(true));
  });

  it("takes an animated value as the new base, and restore undoes only its own write", () => {
    const { h, joints } = hand();
    const pose = HandPoser.capturePose(h);
    for (const n of pose.getDescendants(false) as TransformNode[]) n.rotationQuaternion = Quaternion.Identity();
    const poser = new HandPoser(h);
    poser.poseRoot = pose;
    poser.weight = 0.5;
    poser.update();
    // "the animation" writes the first joint
    const animated = Quaternion.RotationAxis(Vector3.Up(), 0.6);
    joints[0]!.rotationQuaternion!.copyFrom(animated);
    poser.update();
    expect(
      Math.abs(Quaternion.Dot(joints[0]!.rotationQuaternion!, Quaternion.Slerp(animated, Quaternion.Identity(), 0.5))),
    ).toBeCloseTo(1, 12);
    poser.restore();
    expect(joints[0]!.rotationQuaternion!.equals(animated)).toBe(true);
    // local positions follow only with localPositionWeight
    const p0 = joints[1]!.position.clone();
    (pose.getDescendants(false) as TransformNode[]).forEach((n) => n.position.set(0, 0.05, 0));
    poser.localPositionWeight = 1;
    poser.weight = 1;
    poser.update();
    expect(joints[1]!.position.y).toBeCloseTo(0.05, 12);
    poser.restore();
    expect(joints[1]!.position.equals(p0)).toBe(true);
  });

  it("does nothing without fingers or without a pose", () => {
    const bare = new TransformNode("bare hand", scene);
    const poser = new HandPoser(bare);
    expect(poser.hasFingers).toBe(false);
    poser.weight = 1;
    poser.update();
    const { h, joints } = hand();
    const p2 = new HandPoser(h);
    p2.weight = 1;
    const before = joints.map((j) => j.rotationQuaternion!.clone());
    p2.update();
    joints.forEach((j, i) => expect(j.rotationQuaternion!.equals(before[i]!)).toBe(true));
    expect(p2.matchedCount).toBe(0);
  });

  it("matches a pose root again after its nodes or the fingers change (the kept match is not stale)", () => {
    const { h, joints } = hand();
    const pose = HandPoser.capturePose(h);
    const other = HandPoser.capturePose(h, "other pose");
    const poser = new HandPoser(h);
    poser.weight = 1;
    /** The pose node whose rotation the finger `i` takes (by its rotation after an update at weight 1). */
    const posedBy = (i: number, candidates: TransformNode[]) => {
      candidates.forEach((n, k) => {
        n.rotationQuaternion = Quaternion.RotationAxis(Vector3.Right(), 0.1 + 0.05 * k);
      });
      poser.update();
      const q = joints[i]!.rotationQuaternion!;
      return candidates.find((n) => Math.abs(Quaternion.Dot(n.rotationQuaternion!, q)) > 1 - 1e-12) ?? null;
    };
    expect(poser.setPoseRoot(pose)).toBe(4);
    const index2 = (pose.getDescendants(false) as TransformNode[]).find((n) => n.name === "rig:Index2")!;
    // a pose node renamed away, then back without namespace and case
    index2.name = "Other";
    expect(poser.setPoseRoot(pose)).toBe(3);
    index2.name = "INDEX2";
    expect(poser.setPoseRoot(pose)).toBe(4);
    expect(posedBy(1, pose.getDescendants(false) as TransformNode[])).toBe(index2);
    // removed, then another added in its place
    index2.parent = null;
    expect(poser.setPoseRoot(pose)).toBe(3);
    const added = new TransformNode("rig:Index2", scene);
    added.parent = pose;
    expect(poser.setPoseRoot(pose)).toBe(4);
    expect(posedBy(1, pose.getDescendants(false) as TransformNode[])).toBe(added);
    // another root and back: each its own nodes
    expect(poser.setPoseRoot(other)).toBe(4);
    expect(posedBy(1, other.getDescendants(false) as TransformNode[])?.parent?.name).toBe("rig:Index1");
    expect(poser.setPoseRoot(pose)).toBe(4);
    expect(posedBy(1, pose.getDescendants(false) as TransformNode[])).toBe(added);
    // a finger renamed: matched by its new name
    joints[1]!.name = "rig:Pinky2";
    expect(poser.setPoseRoot(pose)).toBe(3);
    added.name = "Pinky2";
    expect(poser.setPoseRoot(pose)).toBe(4);
    expect(posedBy(1, pose.getDescendants(false) as TransformNode[])).toBe(added);
  });
});
