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
import { detectBipedFacing } from "../../src/babylon/character-forward.js";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { height } from "../helpers/scene-probes.js";
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
