/**
 * JacobianIK on a real model (Xbot, else the UAL character): an arm reaches reachable targets within 0.01 % of
 * its length, weight 0 leaves the animated pose bit-exact, and left- and right-handed scenes agree.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { JacobianIK } from "../../src/babylon/jacobian-ik.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type LoadedModel, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { Random } from "../helpers/random.js";
import { worldPos } from "../helpers/scene-probes.js";

const MODEL = modelAvailable("Xbot") ? ("Xbot" as const) : ("UAL" as const);
const ARM =
  MODEL === "Xbot"
    ? { bones: ["mixamorig:LeftArm", "mixamorig:LeftForeArm", "mixamorig:LeftHand"], clip: "idle" }
    : { bones: ["DEF-upper_arm.L", "DEF-forearm.L", "DEF-hand.L"], clip: null };

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

async function load(rightHanded = false): Promise<LoadedModel> {
  const m = await loadModel(MODEL, { rightHanded, clips: (clip) => clip === ARM.clip });
  open.push(m);
  return m;
}

function bone(m: LoadedModel, name: string): Bone {
  const b = m.skeleton.bones.find((x) => x.name === name);
  if (b === undefined) throw new Error(`no bone ${name} in ${MODEL}: ${m.skeleton.bones.map((x) => x.name)}`);
  return b;
}

function arm(m: LoadedModel): Bone[] {
  return ARM.bones.map((n) => bone(m, n));
}

/** A point at `fraction` of the arm's reach from the shoulder, along a seeded random direction. */
function reachable(shoulder: Vector3, reach: number, rnd: Random, fraction: number): Vector3 {
  const d = new Vector3(rnd.range(-1, 1), rnd.range(-1, 1), rnd.range(-1, 1)).normalize();
  return shoulder.add(d.scale(reach * fraction));
}

function playClip(m: LoadedModel): void {
  if (ARM.clip === null) return;
  m.container.animationGroups.find((g) => g.name === ARM.clip)?.start(true);
}

describe(`JacobianIK on ${MODEL}`, () => {
  it("an arm reaches reachable targets within 0.01 % of its length", async () => {
    const m = await load();
    const [upper, fore, hand] = arm(m);
    const target = new TransformNode("target", m.scene);
    const ik = JacobianIK.create(m.scene, [upper!, fore!, hand!], { effectors: [{ bone: hand!, target }] });
    m.scene.render();
    const shoulder = worldPos(upper!);
    const length = Vector3.Distance(shoulder, worldPos(fore!)) + Vector3.Distance(worldPos(fore!), worldPos(hand!));
    const rnd = new Random(18);
    let worst = 0;
    for (let i = 0; i < 40; i++) {
      target.position.copyFrom(reachable(shoulder, length, rnd, rnd.range(0.3, 0.95)));
      m.scene.render();
      worst = Math.max(worst, Vector3.Distance(worldPos(hand!), target.position) / length);
    }
    expect(ik.warningsRaised).toEqual([]);
    expect(worst).toBeLessThan(1e-4);
  });

  it.skipIf(MODEL !== "Xbot")("a tree (chest, both arms) brings both hands to their targets", async () => {
    const m = await load();
    const names = ["Spine2", "LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand"];
    const bones = [...names, ...names.slice(1).map((n) => n.replace("Left", "Right"))].map((n) =>
      bone(m, `mixamorig:${n}`),
    );
    const hands = [bones[4]!, bones[8]!];
    // the hands' animated places, before the IK pulls them anywhere: targets near them are reachable
    m.scene.render();
    const start = hands.map((h) => worldPos(h));
    const shoulders = [bones[2]!, bones[6]!].map((b) => worldPos(b));
    const targets = hands.map((_, i) => new TransformNode(`target${i}`, m.scene));
    const ik = JacobianIK.create(m.scene, bones, {
      effectors: hands.map((b, i) => ({ bone: b, target: targets[i]! })),
    });
    const length = Vector3.Distance(worldPos(bones[2]!), worldPos(bones[3]!)) * 2;
    const rnd = new Random(3);
    for (let k = 0; k < 10; k++) {
      targets.forEach((t, i) => {
        // toward the shoulder and a little aside: within the arm's reach
        const toward = Vector3.Lerp(start[i]!, shoulders[i]!, rnd.range(0.1, 0.5));
        t.position.copyFrom(toward.add(new Vector3(rnd.range(-1, 1), rnd.range(-1, 1), rnd.range(-1, 1)).scale(0.03)));
      });
      m.scene.render();
      hands.forEach((h, i) => {
        expect(Vector3.Distance(worldPos(h), targets[i]!.position) / length).toBeLessThan(1e-4);
      });
    }
    expect(ik.warningsRaised).toEqual([]);
  });

  it("with a rotation weight the hand also takes the target's rotation", async () => {
    const m = await load();
    const [upper, fore, hand] = arm(m);
    m.scene.render();
    const shoulder = worldPos(upper!);
    const target = new TransformNode("target", m.scene);
    target.position.copyFrom(Vector3.Lerp(worldPos(hand!), shoulder, 0.3));
    hand!.getTransformNode()!.computeWorldMatrix(true);
    // the hand's own world rotation, turned 30° about world y
    const handRotation = hand!.getTransformNode()!.absoluteRotationQuaternion.clone();
    const handTarget = Quaternion.RotationAxis(Vector3.Up(), Math.PI / 6).multiply(handRotation);
    target.rotationQuaternion = handTarget.clone();
    const ik = JacobianIK.create(m.scene, [upper!, fore!, hand!], {
      effectors: [{ bone: hand!, target, rotationWeight: 1 }],
    });
    m.scene.render();
    const node = hand!.getTransformNode()!;
    node.computeWorldMatrix(true);
    const q = node.absoluteRotationQuaternion;
    const angle = 2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(q, target.rotationQuaternion))));
    expect(angle).toBeLessThan(1e-3);
    expect(Vector3.Distance(worldPos(hand!), target.position)).toBeLessThan(1e-5);
    expect(ik.warningsRaised).toEqual([]);
    // scaled to 0 (a pickup hidden by scaling): no rotation can be read; the last one is kept, as the position is
    target.scaling.setAll(0);
    m.scene.render();
    node.computeWorldMatrix(true);
    const dot = Math.abs(Quaternion.Dot(node.absoluteRotationQuaternion, handTarget));
    const held = 2 * Math.acos(Math.min(1, dot));
    // dropped for the frame, the hand went back to the arm's own rotation: measured 54° off
    console.log(
      `JacobianIK target scaled to 0: hand ${((held * 180) / Math.PI).toExponential(2)}° off its last rotation`,
    );
    expect(held).toBeLessThan(1e-3);
    expect(ik.warningsRaised.map((w) => w.cause)).toEqual([`effector 0 (${hand!.name}) target:rotation`]);
  });

  it("weight 0 leaves the animated pose bit-exact, frame after frame", async () => {
    const withIk = await load();
    const reference = await load();
    const [upper, fore, hand] = arm(withIk);
    const target = new TransformNode("target", withIk.scene);
    target.position.set(0.3, 1.2, 0.2);
    const ik = JacobianIK.create(withIk.scene, [upper!, fore!, hand!], { effectors: [{ bone: hand!, target }] });
    ik.solver.ikPositionWeight = 0;
    playClip(withIk);
    playClip(reference);
    for (let f = 0; f < 10; f++) {
      withIk.scene.render();
      reference.scene.render();
      withIk.skeleton.bones.forEach((b, i) => {
        const a = b.getTransformNode()!;
        const r = reference.skeleton.bones[i]!.getTransformNode()!;
        expect(a.position.asArray()).toEqual(r.position.asArray());
        expect(a.rotationQuaternion!.asArray()).toEqual(r.rotationQuaternion!.asArray());
      });
    }
  });

  it("an effector weight 0 or no target at all writes nothing", async () => {
    const m = await load();
    const [upper, fore, hand] = arm(m);
    m.scene.render();
    const before = m.skeleton.bones.map((b) => b.getTransformNode()!.rotationQuaternion!.asArray());
    const ik = JacobianIK.create(m.scene, [upper!, fore!, hand!], { effectors: [{ bone: hand! }] });
    m.scene.render();
    const target = new TransformNode("target", m.scene);
    ik.effectors[0]!.target = target;
    ik.effectors[0]!.weight = 0;
    m.scene.render();
    expect(m.skeleton.bones.map((b) => b.getTransformNode()!.rotationQuaternion!.asArray())).toEqual(before);
  });

  it("left- and right-handed scenes agree (mirrored)", async () => {
    const lh = await load(false);
    const rh = await load(true);
    const rnd = new Random(7);
    const setups = [lh, rh].map((m) => {
      const [upper, fore, hand] = arm(m);
      const target = new TransformNode("target", m.scene);
      JacobianIK.create(m.scene, [upper!, fore!, hand!], { effectors: [{ bone: hand!, target }] });
      m.scene.render();
      return { m, upper: upper!, fore: fore!, hand: hand!, target };
    });
    const shoulder = worldPos(setups[1]!.upper);
    const mirrored = worldPos(setups[0]!.upper);
    // glTF's __root__ in a left-handed scene turns 180° about y and flips z: x mirrors
    expect(mirrored.x).toBeCloseTo(-shoulder.x, 9);
    expect(mirrored.z).toBeCloseTo(shoulder.z, 9);
    for (let i = 0; i < 10; i++) {
      // targets at 1.2 × the reach too: the straightened arm must mirror as well
      const p = reachable(shoulder, 0.5, rnd, rnd.range(0.4, 1.2));
      setups[1]!.target.position.copyFrom(p);
      setups[0]!.target.position.set(-p.x, p.y, p.z);
      for (const s of setups) s.m.scene.render();
      for (const k of ["fore", "hand"] as const) {
        const a = worldPos(setups[0]![k]);
        const b = worldPos(setups[1]![k]);
        expect(Math.abs(a.x + b.x) + Math.abs(a.y - b.y) + Math.abs(a.z - b.z)).toBeLessThan(1e-6);
      }
    }
  });

  it("throws naming the bone for an effector outside the bones", async () => {
    const m = await load();
    const [upper, fore, hand] = arm(m);
    const head = m.skeleton.bones.find((b) => /head/i.test(b.name))!;
    expect(() => JacobianIK.create(m.scene, [upper!, fore!, hand!], { effectors: [{ bone: head }] })).toThrow(
      FBBIKError,
    );
    expect(() => JacobianIK.create(m.scene, [hand!, fore!], {})).toThrow(/listed before its ancestor/);
  });
});
