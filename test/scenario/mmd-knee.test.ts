/**
 * MMD-style legs on a real model: CCDIK on Xbot's leg (thigh, shin, foot) with an X-only Euler limit on the
 * knee (MikuMikuDance's knee: X in a range on one side of straight, Y and Z fixed at 0). Over 200 random foot
 * targets, the knee turns only about its X axis and only within its range: it never bends sideways or the
 * other way. On UAL (in the repository): which sign bends the knee forward is the bone's, the same in left-
 * and right-handed scenes (docs/API.md, "Rotation limits"); `kneeEulerLimit` reads it from the leg, on UAL and on
 * legs built in code (shin X either way, root mirrored or not, either handedness, bones with linked nodes or
 * plain ones skinned by a moved mesh).
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Axis } from "@babylonjs/core/Maths/math.axis.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { describe, expect, it } from "vitest";
import { CCDIK } from "../../src/babylon/chain-ik.js";
import { kneeEulerLimit } from "../../src/babylon/knee-limit.js";
import type { RotationLimit } from "../../src/joints/limits/rotation-limit.js";
import { RotationLimitEuler } from "../../src/joints/limits/rotation-limit-euler.js";
import { Quat, conjugateMultiply } from "../../src/math/quat.js";
import { Vec3 } from "../../src/math/vec3.js";
import { loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { type CharacterFrame, bendSide, boneBendSide, characterFrame } from "../helpers/limb-bends.js";
import { worldPos } from "../helpers/scene-probes.js";
import { eulerXYZ } from "../helpers/limit-reference.js";
import { Random } from "../helpers/random.js";

// Xbot is a Mixamo model that cannot be redistributed: skipped without ../shared (test/assets/models/README.md)
describe.skipIf(!modelAvailable("Xbot"))("MMD-style knee on Xbot (CCDIK, Euler X-only limit)", () => {
  for (const rightHanded of [false, true]) {
    it(`the knee turns only about X, within its range (${rightHanded ? "right" : "left"}-handed scene)`, async () => {
      const model = await loadModel("Xbot", { rightHanded });
      const { scene, skeleton } = model;
      const bone = (n: string) => skeleton.bones.find((b) => b.name === `mixamorig:${n}`)!;
      const leg = [bone("LeftUpLeg"), bone("LeftLeg"), bone("LeftFoot")];
      scene.render();
      const ik = CCDIK.create(scene, leg, { maxIterations: 30 });
      const lo = 0.01;
      const hi = 2.6;
      // X from 0.01 rad to 2.6 rad relative to the rest pose, Y and Z fixed (MMD's knee): Xbot's shins have their
      // X axis to the character's left, so positive angles bend the knees forward

      const knee = new RotationLimitEuler(new Vec3(lo, 0, 0), new Vec3(hi, 0, 0));
      ik.solver.setLimit(1, knee);
      const rest = ik.solver.getRestLocalRotation(1, new Quat());
      const hip = leg[0]!.getTransformNode()!.absolutePosition.clone();
      const random = new Random(5);
      const local = new Quat();
      const delta = new Quat();
      let bentMost = 0;
      for (let k = 0; k < 200; k++) {
        ik.targetPosition.copyFrom(
          hip.add(new Vector3(random.range(-0.4, 0.4), random.range(-0.9, -0.2), random.range(-0.4, 0.4))),
        );
        scene.render();
        // the shin's node is the thigh's child: its local rotation is the knee's (read from Babylon, not the rig)
        const r = leg[1]!.getTransformNode()!.rotationQuaternion!;
        local.x = r.x;
        local.y = r.y;
        local.z = r.z;
        local.w = r.w;
        conjugateMultiply(delta, rest, local);
        const e = eulerXYZ(delta);
        expect(Math.abs(e.y)).toBeLessThan(1e-6);
        expect(Math.abs(e.z)).toBeLessThan(1e-6);
        expect(e.x).toBeGreaterThanOrEqual(lo - 1e-6);
        expect(e.x).toBeLessThanOrEqual(hi + 1e-6);
        bentMost = Math.max(bentMost, e.x);
      }
      // the knee did bend (the test is not satisfied by a knee that never moves)
      expect(bentMost).toBeGreaterThan(0.5);
      ik.dispose();
      model.dispose();
    });
  }
});

describe("which sign bends a glTF knee forward (UAL, CCDIK, Euler X-only limit)", () => {
  for (const rightHanded of [false, true]) {
    it(`positive X with the shin's X axis to the character's left (${rightHanded ? "right" : "left"}-handed)`, async () => {
      const model = await loadModel("UAL", { rightHanded });
      const { scene, skeleton } = model;
      const bone = (n: string) => skeleton.bones.find((b) => b.name === `DEF-${n}`)!;
      const leg = [bone("thigh.L"), bone("shin.L"), bone("foot.L")] as const;
      scene.render();
      const frame = characterFrame(bone("foot.L"), bone("foot.R"));
      const at = (b: (typeof leg)[number]) => b.getTransformNode()!.absolutePosition.clone();
      const toLeft = at(leg[0]).subtract(bone("thigh.R").getTransformNode()!.absolutePosition);
      // the glTF loader mirrors the root of a left-handed scene, not the bones: the axis is to the left in both
      expect(leg[1].getTransformNode()!.getDirection(Axis.X).dot(toLeft.normalize())).toBeGreaterThan(0.99);
      const length = Vector3.Distance(at(leg[0]), at(leg[1])) + Vector3.Distance(at(leg[1]), at(leg[2]));
      const crouch = at(leg[0])
        .add(new Vector3(0, -0.6 * length, 0))
        .add(frame.forward.scale(0.1 * length));
      const knees: number[] = [];
      for (const sign of [1, -1]) {
        const ik = CCDIK.create(scene, leg, { maxIterations: 30 });
        const [a, b] = [sign * 0.01, sign * Math.PI];
        ik.solver.setLimit(1, new RotationLimitEuler(new Vec3(Math.min(a, b), 0, 0), new Vec3(Math.max(a, b), 0, 0)));
        ik.targetPosition.copyFrom(crouch);
        for (let f = 0; f < 3; f++) scene.render();
        expect(Vector3.Distance(at(leg[2]), crouch)).toBeLessThan(0.01 * length);
        knees.push(boneBendSide("leg", leg, frame).offset);
        ik.dispose();
      }
      // % of the leg's length ahead of the hip–ankle line: forward with positive angles, backward with negative
      expect(knees[0]).toBeGreaterThan(20);
      expect(knees[1]).toBeLessThan(-20);
      model.dispose();
    });
  }
});

/** A crouch (the foot 40 % of the leg up toward the hip, a little forward) solved by CCD with `knee` on the shin. */
function crouchKnee(scene: Scene, leg: readonly [Bone, Bone, Bone], frame: CharacterFrame, knee: RotationLimit) {
  const length =
    Vector3.Distance(bonePos(leg[0]), bonePos(leg[1])) + Vector3.Distance(bonePos(leg[1]), bonePos(leg[2]));
  const crouch = bonePos(leg[0])
    .add(new Vector3(0, -0.6 * length, 0))
    .add(frame.forward.scale(0.1 * length));
  const ik = CCDIK.create(scene, leg, { maxIterations: 30 });
  ik.solver.setLimit(1, knee);
  ik.targetPosition.copyFrom(crouch);
  for (let f = 0; f < 3; f++) scene.render();
  const reached = Vector3.Distance(bonePos(leg[2]), crouch) / length;
  // % of the leg's length ahead of the hip–ankle line
  const offset = bendSide("leg", bonePos(leg[0]), bonePos(leg[1]), bonePos(leg[2]), frame).offset;
  ik.dispose();
  return { reached, offset };
}

/** A bone's world position: its linked node's, or the skinned mesh's world matrix on the bone's absolute one. */
function bonePos(bone: Bone): Vector3 {
  const node = bone.getTransformNode();
  if (node !== null) return worldPos(bone);
  const skeleton = bone.getSkeleton();
  skeleton.computeAbsoluteMatrices(true);
  const mesh = skeleton.getScene().meshes.find((m) => m.skeleton === skeleton)!;
  return bone.getAbsolutePosition(mesh.computeWorldMatrix(true) && mesh);
}

/** The character's frame from a foot's toe (its first child), on bones with or without linked nodes. */
function toeFrame(foot: Bone): CharacterFrame {
  const forward = bonePos(foot.getChildren()[0]!).subtract(bonePos(foot));
  forward.y = 0;
  return { forward: forward.normalize(), up: Vector3.Up() };
}

/**
 * A leg built in code under a root (mirrored as the glTF loader's in a left-handed scene, or not): a thigh,
 * a shin whose X axis points along the root's +X or −X (turned 180° about Y), a foot and a toe ahead (+Z).
 * The knee sits 2 cm ahead of the hip–ankle line, or on it (`straight`). Its bones have linked nodes, or
 * (`linked: false`) none, as a .babylon file's: a mesh under the root skins them.
 */
function codeLeg(scene: Scene, o: { flipX: boolean; mirrored: boolean; straight?: boolean; linked?: boolean }) {
  const root = new TransformNode("root", scene);
  if (o.mirrored) root.scaling.z = -1;
  const skeleton = new Skeleton("leg", "leg", scene);
  const linked = o.linked ?? true;
  if (!linked) {
    const skin = new Mesh("skin", scene);
    skin.parent = root;
    skin.skeleton = skeleton;
  }
  const joint = (name: string, parent: Bone | null, position: Vector3, rotation = Quaternion.Identity()) => {
    const bone = new Bone(name, skeleton, parent, Matrix.Compose(Vector3.One(), rotation, position));
    if (!linked) return bone;
    const node = new TransformNode(name, scene);
    node.parent = parent?.getTransformNode() ?? root;
    node.position.copyFrom(position);
    node.rotationQuaternion = rotation;
    bone.linkTransformNode(node);
    return bone;
  };
  const turn = Quaternion.RotationAxis(Vector3.Up(), Math.PI);
  const thigh = joint("thigh", null, new Vector3(0.1, 1, 0));
  const shin = joint("shin", thigh, new Vector3(0, -0.45, o.straight ? 0 : 0.02), o.flipX ? turn : undefined);
  // the foot turned back into the root's frame, its toe ahead
  const foot = joint("foot", shin, new Vector3(0, -0.45, 0), o.flipX ? turn.clone() : undefined);
  joint("toe", foot, new Vector3(0, -0.05, 0.12));
  scene.render();
  const frame = linked ? characterFrame(foot, foot) : toeFrame(foot);
  return { leg: [thigh, shin, foot] as const, frame, root };
}

describe("kneeEulerLimit: the knee's Euler range, its sign read from the leg", () => {
  for (const rightHanded of [false, true]) {
    it(`UAL's knees bend forward, both legs (${rightHanded ? "right" : "left"}-handed)`, async () => {
      const model = await loadModel("UAL", { rightHanded });
      const { scene, skeleton } = model;
      const bone = (n: string) => skeleton.bones.find((b) => b.name === `DEF-${n}`)!;
      scene.render();
      const frame = characterFrame(bone("foot.L"), bone("foot.R"));
      for (const side of ["L", "R"]) {
        const leg = [bone(`thigh.${side}`), bone(`shin.${side}`), bone(`foot.${side}`)] as const;
        const knee = kneeEulerLimit(...leg);
        expect(knee.min.y === 0 && knee.max.y === 0 && knee.min.z === 0 && knee.max.z === 0, "X only").toBe(true);
        const { reached, offset } = crouchKnee(scene, leg, frame, knee);
        expect(reached, `${side}: the foot on its target (share of the leg)`).toBeLessThan(0.01);
        expect(offset, `${side}: the knee ahead of the hip–ankle line, % of the leg`).toBeGreaterThan(20);
      }
      model.dispose();
    });
  }

  for (const rightHanded of [false, true])
    for (const mirrored of [false, true])
      for (const flipX of [false, true]) {
        const name = `${rightHanded ? "RH" : "LH"}, ${mirrored ? "mirrored root" : "plain root"}, shin X ${flipX ? "−" : "+"}`;
        it(`a leg built in code bends forward (${name})`, async () => {
          const m = await loadModel("UAL", { rightHanded });
          const { leg, frame } = codeLeg(m.scene, { flipX, mirrored });
          const { reached, offset } = crouchKnee(m.scene, leg, frame, kneeEulerLimit(...leg));
          expect(reached, "the foot on its target").toBeLessThan(0.01);
          expect(offset, "the knee ahead of the hip–ankle line, % of the leg").toBeGreaterThan(20);
          m.dispose();
        });
      }

  for (const rightHanded of [false, true])
    for (const mirrored of [false, true]) {
      const name = `${rightHanded ? "RH" : "LH"}, ${mirrored ? "mirrored root" : "plain root"}`;
      it(`a leg of plain Bones (no linked nodes) under a skinned mesh bends forward (${name})`, async () => {
        const m = await loadModel("UAL", { rightHanded });
        for (const flipX of [false, true])
          for (const straight of [false, true]) {
            const { leg, root } = codeLeg(m.scene, { flipX, mirrored, straight, linked: false });
            // turned and moved: the world forward a straight leg is given reaches the shin through the mesh
            root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 2.1);
            root.position.set(1.5, 0.2, -0.7);
            m.scene.render();
            const frame = toeFrame(leg[2]);
            const knee = kneeEulerLimit(...leg, straight ? { forward: frame.forward } : {});
            const { reached, offset } = crouchKnee(m.scene, leg, frame, knee);
            const what = `shin X ${flipX ? "−" : "+"}${straight ? ", straight" : ""}`;
            expect(reached, `${what}: the foot on its target`).toBeLessThan(0.01);
            expect(offset, `${what}: the knee ahead of the hip–ankle line, % of the leg`).toBeGreaterThan(20);
            root.dispose();
          }
        m.dispose();
      });
    }

  it("a straight leg takes its side from forward; without it, or with a shin's X along the leg, it throws", async () => {
    const m = await loadModel("UAL");
    const { leg, frame, root } = codeLeg(m.scene, { flipX: true, mirrored: true, straight: true });
    expect(() => kneeEulerLimit(...leg)).toThrow(/straight/);
    const { offset } = crouchKnee(m.scene, leg, frame, kneeEulerLimit(...leg, { forward: frame.forward }));
    expect(offset, "the knee ahead of the hip–ankle line, % of the leg").toBeGreaterThan(20);
    // the same leg with its shin's X axis turned along the leg: an X-only range cannot bend it
    leg[1].getTransformNode()!.rotationQuaternion = Quaternion.RotationAxis(Vector3.Forward(), Math.PI / 2);
    root.computeWorldMatrix(true);
    for (const b of leg) b.getTransformNode()!.computeWorldMatrix(true);
    expect(() => kneeEulerLimit(...leg, { forward: frame.forward })).toThrow(/RotationLimitHinge/);
    m.dispose();
  });
});
