/**
 * Bone scales and hierarchy changes after create(), on the synthetic biped built as linked TransformNodes
 * (as glTF loads) and as plain Bones skinning a mesh: a bone scaled to 0 (hidden by scale) skips the IK
 * for those frames; non-uniform scales are composed as Babylon composes them (scale · rotation ·
 * translation, row vectors) and warned where they shear bones the IK turns; a bone moved under another
 * parent is composed with that parent, or skipped when moved under another bone of the skeleton.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Random } from "../helpers/random.js";
import { bonesFinite, characterSize, reachHandTargets } from "../robustness/common.js";
import { type BuiltRig, RigSpec, buildRig } from "../robustness/rig-builder.js";

const open: BuiltRig[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

type Build = "linked" | "plain";
const BUILDS: Build[] = ["linked", "plain"];

function build(kind: Build): { rig: BuiltRig; ik: FullBodyBipedIK; causes: string[]; size: number } {
  const rig = buildRig(RigSpec.biped(), { linked: kind === "linked", withMesh: true });
  open.push(rig);
  const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
  const causes: string[] = [];
  ik.onWarningObservable.add((w) => causes.push(w.cause));
  return { rig, ik, causes, size: characterSize(rig.skeleton, rig.worldPos) };
}

const boneNamed = (rig: BuiltRig, name: string): Bone => rig.skeleton.bones.find((b) => b.name === name)!;

function setScale(bone: Bone, x: number, y: number, z: number): void {
  const node = bone.getTransformNode();
  if (node !== null) node.scaling.set(x, y, z);
  else bone.scaling = new Vector3(x, y, z);
}

/** Every bone's local position and rotation, as Babylon holds them (linked node or bone). */
function localPose(rig: BuiltRig): number[] {
  const out: number[] = [];
  for (const b of rig.skeleton.bones) {
    const node = b.getTransformNode();
    const p = node !== null ? node.position : b.position;
    const q = node !== null ? node.rotationQuaternion! : b.rotationQuaternion;
    out.push(p.x, p.y, p.z, q.x, q.y, q.z, q.w);
  }
  return out;
}

/** A target the left hand reaches: 0.6 of the way from the shoulder to the hand, moved forward and up. */
function reachable(rig: BuiltRig, ik: FullBodyBipedIK, size: number): Vector3 {
  const shoulder = rig.worldPos(ik.references.leftUpperArm);
  const hand = rig.worldPos(ik.references.leftHand);
  return shoulder.add(hand.subtract(shoulder).scale(0.6)).add(new Vector3(0, 0.04, 0.08).scale(size));
}

describe("a bone scaled to 0 while an effector is weighted", () => {
  for (const kind of BUILDS) {
    for (const name of ["Hips", "Spine", "Chest", "Clavicle.L"]) {
      it(`${name} (${kind}): skipped with one warning, no NaN, the bones keep the animated pose, solved again when the scale is back`, () => {
        const { rig, ik, causes, size } = build(kind);
        const animated = localPose(rig);
        const e = ik.solver.leftHandEffector;
        const target = reachable(rig, ik, size);
        e.position.copyFrom(target);
        e.positionWeight = 1;
        ik.solver.rightFootEffector.pinToBone(1, 1);
        rig.scene.render();
        expect(Vector3.Distance(rig.worldPos(ik.references.leftHand), target) / size).toBeLessThan(1e-6);
        const solved = localPose(rig);
        const bone = boneNamed(rig, name);
        setScale(bone, 0, 0, 0);
        for (let frame = 0; frame < 3; frame++) {
          rig.scene.render();
          expect(bonesFinite(rig.skeleton)).toBe(true);
          // the frame is skipped: FixTransforms' pose (here, without a clip, the animated one) bit for bit
          expect(localPose(rig)).toEqual(animated);
        }
        expect(causes).toEqual([`scale-collapsed:${name}`]);
        setScale(bone, 1, 1, 1);
        rig.scene.render();
        expect(bonesFinite(rig.skeleton)).toBe(true);
        expect(Vector3.Distance(rig.worldPos(ik.references.leftHand), target) / size).toBeLessThan(1e-6);
        // the skipped frames left nothing behind: the pose before them (to the float32 rounding of plain Bones)
        localPose(rig).forEach((v, k) => expect(Math.abs(v - solved[k]!)).toBeLessThan(1e-6));
        expect(causes).toEqual([`scale-collapsed:${name}`]);
      });
    }
  }
});

describe("non-uniform bone scales", () => {
  const CASES: [string, [number, number, number]][] = [
    ["Spine", [1, 1.6, 1]],
    ["Clavicle.L", [1.5, 0.6, 1]],
    ["Chest", [1.3, 1, 0.8]],
  ];
  for (const kind of BUILDS) {
    for (const [name, s] of CASES) {
      it(`${name} scaled (${s.join(", ")}) after create (${kind}): the rig's pose is where Babylon puts the bones, read and solved; warned once`, () => {
        const { rig, ik, causes, size } = build(kind);
        setScale(boneNamed(rig, name), ...s);
        const e = ik.solver.leftHandEffector;
        e.position.copyFrom(reachable(rig, ik, size));
        e.positionWeight = 1;
        ik.solver.bodyEffector.positionOffset.set(0.02 * size, -0.05 * size, 0);
        // the solved pose as the rig composes it, just before it is written
        const solved: Vector3[] = [];
        ik.solver.onPostUpdateObservable.add(() => {
          solved.length = 0;
          for (let id = 1; id < ik.rig.count; id++) solved.push(ik.rig.getWorldPosition(id, new Vector3()));
        });
        rig.scene.render();
        expect(bonesFinite(rig.skeleton)).toBe(true);
        let worst = 0;
        for (let id = 1; id < ik.rig.count; id++)
          worst = Math.max(worst, Vector3.Distance(solved[id - 1]!, rig.worldPos(ik.rig.bones[id]!)));
        // what the rig wrote (rotations and the pelvis's, upper arms' and thighs' positions) lands where it composed it
        expect(worst / size).toBeLessThan(1e-6);
        // and reads back where Babylon puts every bone
        ik.rig.read();
        worst = 0;
        for (let id = 1; id < ik.rig.count; id++)
          worst = Math.max(
            worst,
            Vector3.Distance(ik.rig.getWorldPosition(id, new Vector3()), rig.worldPos(ik.rig.bones[id]!)),
          );
        expect(worst / size).toBeLessThan(1e-6);
        rig.scene.render();
        expect(causes).toEqual([`scale-non-uniform:${name}`]);
      });
    }

    it(`uniform bone scales (${kind}): no warning, hands reach within 1e-6 of the size`, () => {
      const { rig, ik, causes, size } = build(kind);
      setScale(boneNamed(rig, "Spine"), 1.3, 1.3, 1.3);
      setScale(boneNamed(rig, "Clavicle.L"), 0.8, 0.8, 0.8);
      const r = reachHandTargets(ik, () => rig.scene.render(), rig.worldPos, new Random(5), 8);
      expect(r.finite).toBe(true);
      expect(r.worst / characterSize(rig.skeleton, rig.worldPos)).toBeLessThan(1e-6);
      expect(causes).toEqual([]);
      void size;
    });
  }
});

describe("mirror bone scales (a side mirrored by a negative scale)", () => {
  const CASES: [string, [number, number, number]][] = [
    ["Clavicle.L", [-1, 1, 1]],
    ["UpperArm.R", [1.2, -1.2, 1.2]],
    ["Spine", [0.9, -0.9, -0.9]],
  ];
  for (const kind of BUILDS) {
    for (const [name, s] of CASES) {
      it(`${name} scaled (${s.join(", ")}) (${kind}): rigid below it, no warning, hands reach within 1e-6 of the size`, () => {
        const { rig, ik, causes } = build(kind);
        setScale(boneNamed(rig, name), ...s);
        const r = reachHandTargets(ik, () => rig.scene.render(), rig.worldPos, new Random(11), 8);
        expect(r.finite).toBe(true);
        expect(r.worst / characterSize(rig.skeleton, rig.worldPos)).toBeLessThan(1e-6);
        expect(causes).toEqual([]);
      });
    }
  }
});

describe("a bone moved under another parent after create()", () => {
  for (const how of ["setParent", "parent ="] as const) {
    it(`the hips under a moved, turned, scaled node (${how}): composed with it, hands reach within 1e-6 of the size`, () => {
      const { rig, ik, causes } = build("linked");
      const hips = ik.references.pelvis.getTransformNode()!;
      const wrapper = new TransformNode("wrapper", rig.scene);
      wrapper.parent = rig.holder;
      wrapper.position.set(0.3, 0.5, -0.2);
      wrapper.rotationQuaternion = Quaternion.RotationAxis(new Vector3(0.3, 1, 0.2).normalize(), 0.8);
      wrapper.scaling.setAll(1.3);
      if (how === "setParent") hips.setParent(wrapper);
      else hips.parent = wrapper;
      const size = characterSize(rig.skeleton, rig.worldPos);
      const r = reachHandTargets(ik, () => rig.scene.render(), rig.worldPos, new Random(7), 8);
      expect(r.finite).toBe(true);
      expect(r.worst / size).toBeLessThan(1e-6);
      // back under its own parent
      hips.parent = rig.holder;
      const back = reachHandTargets(ik, () => rig.scene.render(), rig.worldPos, new Random(8), 4);
      expect(back.worst / characterSize(rig.skeleton, rig.worldPos)).toBeLessThan(1e-6);
      expect(causes).toEqual([]);
    });
  }

  for (const [kind, under] of [
    ["linked", "head"],
    ["linked", "a node under the head"],
    ["plain", "head"],
  ] as const) {
    it(`a hand moved under the ${under} (${kind}): skipped with one warning, the bones keep the animated pose`, () => {
      const { rig, ik, causes, size } = build(kind);
      const hand = ik.references.leftHand;
      const head = ik.references.head!;
      const e = ik.solver.leftHandEffector;
      e.position.copyFrom(reachable(rig, ik, size));
      const node = hand.getTransformNode();
      if (node === null) {
        hand.setParent(head);
      } else if (under === "head") {
        node.setParent(head.getTransformNode()!);
      } else {
        const prop = new TransformNode("hat", rig.scene);
        prop.parent = head.getTransformNode();
        prop.position.set(0, 0.1, 0);
        node.setParent(prop);
      }
      // the pose FixTransforms gives this hierarchy, the IK idle
      rig.scene.render();
      const animated = localPose(rig);
      e.positionWeight = 1;
      for (let frame = 0; frame < 2; frame++) {
        rig.scene.render();
        expect(bonesFinite(rig.skeleton)).toBe(true);
        expect(localPose(rig)).toEqual(animated);
      }
      expect(causes).toEqual(["reparented:Hand.L"]);
    });
  }
});
