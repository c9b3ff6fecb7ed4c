/**
 * A collider on a node under a rig bone sits where that bone was solved, not where it was animated: a shield
 * under the left hand of a FullBodyBipedIK whose left hand is driven in front of the chest, and the right hand's
 * target at the shield's centre, ends with the right hand on the shield's surface where the solved left hand
 * holds it; on the UAL character (glTF) and on rigs built in code (linked TransformNodes, plain Bones with the
 * shield attached to the bone), left- and right-handed, ×0.01 and ×100.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { CCDIK } from "../../src/babylon/chain-ik.js";
import { detectBipedFacing } from "../../src/babylon/character-forward.js";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Vec3 } from "../../src/math/vec3.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { height } from "../helpers/scene-probes.js";
import { buildTail } from "../helpers/tail-rig.js";
import { RigSpec, buildRig } from "../robustness/rig-builder.js";

const report = (s: string): void => {
  if (process.env.FBBIK_REPORT) console.log(s);
};

/** A character to hold the shield: its scene, skeleton, height, a bone's world position, the mesh it skins. */
interface Character {
  scene: Scene;
  skeleton: Skeleton;
  height: number;
  pos(bone: Bone): Vector3;
  /** The skinned mesh of a skeleton without linked nodes (the shield is attached to the bone on it), else null. */
  mesh: Mesh | null;
}

async function gltf(scale: number, rightHanded: boolean): Promise<Character> {
  const m = await loadModel("UAL", { rightHanded });
  onTestFinished(() => m.dispose());
  m.root.scaling.scaleInPlace(scale);
  const pos = (b: Bone): Vector3 => {
    const n = b.getTransformNode()!;
    n.computeWorldMatrix(true);
    return n.getAbsolutePosition().clone();
  };
  return { scene: m.scene, skeleton: m.skeleton, height: height(m), pos, mesh: null };
}

function coded(scale: number, rightHanded: boolean, linked: boolean): Character {
  const rig = buildRig(RigSpec.biped(), {
    linked,
    withMesh: !linked,
    rightHanded,
    placement: {
      position: new Vector3(0.3, 0.1, -0.2).scale(scale),
      rotation: Quaternion.RotationYawPitchRoll(0.6, 0, 0),
      scaling: new Vector3(scale, scale, scale),
    },
  });
  onTestFinished(() => rig.dispose());
  return { scene: rig.scene, skeleton: rig.skeleton, height: rig.height, pos: rig.worldPos, mesh: rig.mesh };
}

/** The shield's world centre and radius (through the node's world matrix as Babylon shows it). */
function shieldCentre(collider: BoneCollider): { centre: Vector3; radius: number } {
  const w = collider.node!.computeWorldMatrix(true);
  const scale = new Vector3();
  w.decompose(scale);
  const s = (Math.abs(scale.x) + Math.abs(scale.y) + Math.abs(scale.z)) / 3;
  return { centre: Vector3.TransformCoordinates(collider.start, w), radius: collider.radius * s };
}

interface Held {
  /** How far the solved shield is from where the animated hand held it, in % of the height. */
  shieldMoved: number;
  /** How far the left hand ended from its target, in % of the height. */
  gripMiss: number;
  /** Per frame: the right hand's distance from the shield's centre over the shield's radius. */
  ratios: number[];
}

/**
 * The left hand holds a shield (a node under it, turned and offset) in front of the chest; the right hand's
 * target is the shield's centre, followed for 5 frames.
 */
function holdShield(c: Character): Held {
  const ik = FullBodyBipedIK.create(c.scene, c.skeleton);
  const r = ik.references;
  const h = c.height;
  const forward = detectBipedFacing(c.skeleton, c.mesh)!.forward;
  const shield = new TransformNode("shield", c.scene);
  if (c.mesh === null) shield.parent = r.leftHand.getTransformNode()!;
  else shield.attachToBone(r.leftHand, c.mesh);
  // a little before the hand, turned; offset through the parent's world matrix as Babylon composes it
  // (setAbsolutePosition leaves out the mesh of a node attached to a plain Bone)
  const parentWorld = shield.computeWorldMatrix(true).clone().invert();
  shield.position = Vector3.TransformNormal(forward.scale(0.03 * h), parentWorld);
  shield.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.4, -0.3, 0.2);
  shield.computeWorldMatrix(true);
  const radius = 0.07 * h;
  const centre = shield.getAbsolutePosition().add(new Vector3(0, 0.02 * h, 0));
  const collider = BoneCollider.fromWorld(shield, centre, centre, radius, c.mesh ?? undefined);
  FBBIKColliders.create(ik, { colliders: [collider] });
  const before = shieldCentre(collider).centre;
  // the left hand in front of the chest: far from where the animation (a T or A pose) holds it
  const shoulders = Vector3.Center(c.pos(r.leftUpperArm), c.pos(r.rightUpperArm));
  const grip = shoulders.add(forward.scale(0.3 * h)).add(new Vector3(0, -0.12 * h, 0));
  ik.solver.leftHandEffector.position.copyFrom(grip);
  ik.solver.leftHandEffector.positionWeight = 1;
  c.scene.render();
  const shieldMoved = (100 * Vector3.Distance(shieldCentre(collider).centre, before)) / h;
  // the hand is not pushed out of the shield it holds
  const gripMiss = (100 * Vector3.Distance(c.pos(r.leftHand), grip)) / h;
  ik.solver.rightHandEffector.positionWeight = 1;
  const ratios: number[] = [];
  for (let f = 0; f < 5; f++) {
    // the target inside the shield, on the right hand's side of its centre: the hand stops on the near face
    const s = shieldCentre(collider);
    const toShoulder = c.pos(r.rightUpperArm).subtract(s.centre).normalize();
    ik.solver.rightHandEffector.position.copyFrom(s.centre.add(toShoulder.scale(0.5 * s.radius)));
    c.scene.render();
    const after = shieldCentre(collider);
    ratios.push(Vector3.Distance(c.pos(r.rightHand), after.centre) / after.radius);
  }
  expect(ik.warningsRaised.filter((w) => /^(exception|collider)/.test(w.cause))).toEqual([]);
  return { shieldMoved, gripMiss, ratios };
}

describe("a shield under the left hand is where the solved hand holds it (FBBIKColliders)", () => {
  const rigs = [
    { name: "UAL (glTF)", make: gltf },
    { name: "a rig built in code (linked nodes)", make: async (s: number, rh: boolean) => coded(s, rh, true) },
    { name: "a rig built in code (plain Bones)", make: async (s: number, rh: boolean) => coded(s, rh, false) },
  ];
  for (const { name, make } of rigs) {
    for (const scale of [1, 0.01, 100]) {
      for (const rightHanded of [false, true]) {
        it(`${name} ×${scale} (${rightHanded ? "RH" : "LH"}): the right hand ends on the shield's surface`, async () => {
          const held = holdShield(await make(scale, rightHanded));
          report(
            `shield ${name} ×${scale} ${rightHanded ? "RH" : "LH"}: moved ${held.shieldMoved.toFixed(1)} % h, ` +
              `grip missed by ${held.gripMiss.toFixed(3)} % h; ` +
              `right hand at ${held.ratios.map((x) => x.toFixed(6)).join(", ")} R`,
          );
          // the solved left hand is far from the animated one: a collider left there would not be met
          expect(held.shieldMoved).toBeGreaterThan(10);
          expect(held.gripMiss).toBeLessThan(0.1);
          for (const ratio of held.ratios) {
            expect(ratio).toBeGreaterThanOrEqual(1 - 1e-5);
            expect(ratio).toBeLessThanOrEqual(1.01);
          }
        });
      }
    }
  }
});

describe("a collider node under a bone of a chain's own rig (CCDIK, sub-steps)", () => {
  it("a spike under a tail segment is placed at every sub-step as the segment's own collider is", () => {
    const tail = buildTail({ count: 24, segment: 0.1, curl: 0.02, highPrecision: true });
    onTestFinished(() => tail.dispose());
    const spike = new TransformNode("spike", tail.scene);
    spike.attachToBone(tail.bones[12]!, tail.mesh);
    spike.position.set(0.15, 0.02, -0.03);
    spike.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.5, 0.2, -0.4);
    const offset = new Vector3(0.01, 0.04, 0.02);
    const onNode = BoneCollider.sphere(spike, 0.05, offset);
    // the same sphere on the bone: the offset brought through the spike's local transform
    const local = Vector3.TransformCoordinates(offset, spike.computeWorldMatrix(true) && spike._localMatrix);
    const onBone = BoneCollider.sphere(tail.bones[12]!, 0.05, local);
    const target = new TransformNode("target", tail.scene);
    const ik = CCDIK.create(tail.scene, tail.bones, { target, colliders: [onNode, onBone] });
    ik.solver.subSteps = 4;
    const a = new Vec3();
    const b = new Vec3();
    let worst = 0;
    let travelled = 0;
    let last: Vec3 | null = null;
    for (let f = 0; f < 30; f++) {
      const t = 0.2 * f;
      target.position.set(0.9 * Math.cos(t), 1.6 + 0.3 * Math.sin(0.7 * t), 0.9 * Math.sin(t));
      // the tail's base swings (an animation): the step's start and end differ, the sub-steps interpolate them
      tail.bones[2]!.rotationQuaternion = Quaternion.RotationAxis(new Vector3(0, 0, 1), 0.5 * Math.sin(t));
      tail.scene.render();
      for (const alpha of [0.25, 0.5, 0.75, 1]) {
        ik.colliderSet.inner.getPlaced(0, alpha, a, b);
        const x = a.x;
        const y = a.y;
        const z = a.z;
        ik.colliderSet.inner.getPlaced(1, alpha, a, b);
        worst = Math.max(worst, Math.hypot(x - a.x, y - a.y, z - a.z));
      }
      if (last !== null) travelled = Math.max(travelled, Math.hypot(a.x - last.x, a.y - last.y, a.z - last.z));
      last = new Vec3(a.x, a.y, a.z);
    }
    report(`spike under tail segment: worst ${worst.toExponential(2)} (segment 0.1), moved ${travelled.toFixed(3)}`);
    // the segment did move between frames, so the sub-steps interpolate something
    expect(travelled).toBeGreaterThan(0.05);
    expect(worst).toBeLessThan(1e-9);
    expect(ik.warningsRaised).toEqual([]);
  });
});

describe("a collider node under a bone outside the component's rig", () => {
  it("reads its world matrix as before: bit for bit what a node with that world matrix reads", () => {
    const rig = buildRig(RigSpec.biped(), { linked: true });
    onTestFinished(() => rig.dispose());
    const bone = (name: string): Bone => rig.skeleton.bones.find((x) => x.name === name)!;
    const arm = [bone("UpperArm.L"), bone("Forearm.L"), bone("Hand.L")];
    const hat = new TransformNode("hat", rig.scene);
    hat.parent = bone("Head").getTransformNode()!;
    hat.position.set(0.02, 0.15, -0.01);
    hat.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.3, 0.1, 0.2);
    // a node outside every bone holding the hat's world matrix
    const twin = new TransformNode("twin", rig.scene);
    const colliders = [hat, twin].map((n) => BoneCollider.capsule(n, new Vector3(0, 0, 0.1), Vector3.Zero(), 0.1));
    const target = new TransformNode("target", rig.scene);
    const ik = CCDIK.create(rig.scene, arm, { target, colliders });
    ik.solver.subSteps = 2;
    const a = new Vec3();
    const b = new Vec3();
    const c = new Vec3();
    const d = new Vec3();
    for (let f = 0; f < 5; f++) {
      target.position.set(0.3 + 0.05 * f, 1.3, 0.3);
      hat.position.x = 0.02 + 0.01 * f;
      twin.freezeWorldMatrix(hat.computeWorldMatrix(true).clone());
      rig.scene.render();
      for (const alpha of [0.5, 1]) {
        expect(ik.colliderSet.inner.getPlaced(0, alpha, a, b)).toBe(ik.colliderSet.inner.getPlaced(1, alpha, c, d));
        expect([a.x, a.y, a.z, b.x, b.y, b.z]).toEqual([c.x, c.y, c.z, d.x, d.y, d.z]);
      }
    }
    expect(ik.colliderSet.hangsOn(0)).toBe(-1);
  });
});

describe("a collider whose node was disposed", () => {
  it("lets go of the node once the component finds it disposed", () => {
    const tail = buildTail({ count: 8 });
    onTestFinished(() => tail.dispose());
    let ball: TransformNode | null = new TransformNode("ball", tail.scene);
    ball.position.set(0.3, 0.5, 0);
    const collider = BoneCollider.sphere(ball, 0.1);
    const ik = CCDIK.create(tail.scene, tail.bones, { colliders: [collider] });
    tail.scene.render();
    expect(collider.node).toBe(ball);
    ball.dispose();
    ball = null;
    tail.scene.render();
    tail.scene.render();
    expect(collider.node).toBeNull();
    expect(Object.values(collider).some((v) => v instanceof TransformNode)).toBe(false);
    expect(ik.warningsRaised.map((w) => w.cause)).toEqual(["collider:disposed:ball"]);
  });
});
