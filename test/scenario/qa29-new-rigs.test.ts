/**
 * Rigs not tried before QA round 29, built in Babylon from their tools' real names (test/unit/detect/conventions.ts
 * cites the sources) as glTF loads them, each with a hand and a foot sent to targets. Before: Tripo v2's numbered
 * head chain gave the head as `tripo::Head_0`, the neck (a head effector or a look turned the neck); SMPL-X's eyes
 * (`left_eye_smplhf`) were not found, so `references.eyes` was empty for LookAtIK. Babylon's SkeletonViewer on an IK'd
 * character draws the pose the IK wrote, not the animation's. A character whose meshes all play baked vertex animation
 * (VAT: Babylon's shader skins from the baked texture, never from the bones) had the IK solve unseen, unwarned; it
 * is now warned at create.
 */
import { BakedVertexAnimationManager } from "@babylonjs/core/BakedVertexAnimation/bakedVertexAnimationManager.js";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import { SkeletonViewer } from "@babylonjs/core/Debug/skeletonViewer.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { type HumanoidNames, type HumanoidOptions, RigBuilder, humanoid } from "../helpers/synthetic-rigs.js";
import { report } from "../helpers/modifier-scene.js";
import { type BuiltRig, RigSpec, buildRig } from "../robustness/rig-builder.js";
import { characterCreator, daz9, rigifyDeform, smpl, tripoV2, unreal } from "../unit/detect/conventions.js";

const open: BuiltRig[] = [];
afterEach(() => {
  for (const r of open.splice(0)) r.dispose();
});

/** `names` (with `extra` bones after) built as a glTF-like linked rig, 1.78 m tall. */
function build(
  names: HumanoidNames,
  extra: (b: RigBuilder) => void = () => {},
  options: HumanoidOptions = {},
): BuiltRig {
  const b = new RigBuilder();
  b.bones.push(...humanoid(names, options));
  extra(b);
  const spec = new RigSpec(
    b.bones.map((x) => ({
      name: x.name,
      parent: x.parent,
      position: new Vector3(x.position.x, x.position.y, x.position.z),
      rotation: Quaternion.Identity(),
    })),
    1.78,
  );
  const rig = buildRig(spec, { linked: true });
  open.push(rig);
  return rig;
}

/** The left hand and the right foot sent to targets off their rest; their misses on the skinned bones, ÷ height. */
function reach(rig: BuiltRig, ik: FullBodyBipedIK): { hand: number; foot: number } {
  const r = ik.references;
  const hand = new TransformNode("handTarget", rig.scene);
  hand.position.copyFrom(rig.worldPos(r.leftHand).add(new Vector3(-0.1, 0.15, 0.2)));
  const foot = new TransformNode("footTarget", rig.scene);
  foot.position.copyFrom(rig.worldPos(r.rightFoot).add(new Vector3(0, 0.2, 0.15)));
  ik.solver.leftHandEffector.target = hand;
  ik.solver.leftHandEffector.positionWeight = 1;
  ik.solver.rightFootEffector.target = foot;
  ik.solver.rightFootEffector.positionWeight = 1;
  for (let f = 0; f < 3; f++) rig.scene.render();
  return {
    hand: Vector3.Distance(rig.worldPos(r.leftHand), hand.position) / rig.height,
    foot: Vector3.Distance(rig.worldPos(r.rightFoot), foot.position) / rig.height,
  };
}

describe("QA round 29: rigs built from their tools' names", () => {
  it.each([0, 1] as const)("Tripo v2 (legs in limb row %s): the head is Head_1, hand and foot reach", (row) => {
    const rig = build(tripoV2(row));
    const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
    const r = ik.references;
    expect(r.head?.name).toBe("tripo::Head_1");
    expect(r.leftHand.name).toBe(`tripo::${1 - row}_Left_Limb_2`);
    expect(r.rightFoot.name).toBe(`tripo::${row}_Right_Limb_2`);
    const miss = reach(rig, ik);
    report(`Tripo v2, legs in row ${row}: left hand, right foot from their targets (÷ height)`, miss.hand, miss.foot);
    expect(miss.hand).toBeLessThan(1e-4);
    expect(miss.foot).toBeLessThan(1e-4);
    expect(ik.warningsRaised).toEqual([]);
  });

  it.each([
    ["UE5 Manny (twist bones as leaves)", unreal(), {}],
    ["DAZ Genesis 9 (l_upperarm, twist bones beside)", daz9(), {}],
    ["Character Creator 4 (CC_Base_ prefix)", characterCreator(), {}],
    ["Rigify deform bones (DEF-upper_arm.L.001 in line)", rigifyDeform(), { inlineTwist: true }],
  ] as const)("%s: hand and foot reach their targets on the skinned bones", (what, names, options) => {
    const rig = build(names, () => {}, options);
    const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
    expect(ik.references.leftHand.name).toBe(names.side("L").hand);
    expect(ik.references.rightFoot.name).toBe(names.side("R").foot);
    const miss = reach(rig, ik);
    report(`${what}: left hand, right foot from their targets (÷ height)`, miss.hand, miss.foot);
    expect(miss.hand).toBeLessThan(1e-4);
    expect(miss.foot).toBeLessThan(1e-4);
  });

  it("SMPL-X with its jaw: the head is head, the eyes left_eye_smplhf / right_eye_smplhf follow a LookAtIK", () => {
    const rig = build(smpl(true), (b) => b.add("jaw", "head", [0, 1.58, 0.06]));
    const ik = FullBodyBipedIK.create(rig.scene, rig.skeleton);
    const r = ik.references;
    expect(r.head?.name).toBe("head");
    expect(r.eyes.map((e) => e.name)).toEqual(["left_eye_smplhf", "right_eye_smplhf"]);
    const miss = reach(rig, ik);
    report("SMPL-X: left hand, right foot from their targets (÷ height)", miss.hand, miss.foot);
    expect(miss.hand).toBeLessThan(1e-4);
    expect(miss.foot).toBeLessThan(1e-4);
    // the eyes the IK found, given to a LookAtIK: each looks at the target (the eyes' weight 1, no clamp)
    const target = new TransformNode("look", rig.scene);
    target.position.set(0.6, 1.9, 1.5);
    const look = LookAtIK.create(rig.scene, { head: r.head, eyes: r.eyes }, { target });
    look.solver.eyesWeight = 1;
    look.solver.clampWeightEyes = 0;
    rig.scene.render();
    for (const eye of r.eyes) {
      const node = eye.getTransformNode()!;
      node.computeWorldMatrix(true);
      // the template's eyes look along +Z at rest: that axis now points at the target
      const forward = Vector3.TransformNormal(Vector3.Forward(), node.getWorldMatrix()).normalize();
      const toTarget = target.position.subtract(rig.worldPos(eye)).normalize();
      const angle = Math.acos(Math.min(1, Vector3.Dot(forward, toTarget)));
      report(`SMPL-X ${eye.name}: angle from the look target (rad)`, angle);
      expect(angle).toBeLessThan(1e-3);
    }
  });

  it("Babylon's SkeletonViewer on an IK'd character draws the IK's pose (the hand where the IK put it)", async () => {
    const m = await loadModel("Mannequin");
    try {
      const mesh = m.scene.meshes.find((x) => x.skeleton === m.skeleton)!;
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const viewer = new SkeletonViewer(m.skeleton, mesh, m.scene, false, 1, {
        displayMode: SkeletonViewer.DISPLAY_LINES,
      });
      const node = ik.references.leftHand.getTransformNode()!;
      m.scene.render();
      const animated = node.getAbsolutePosition().clone();
      ik.solver.leftHandEffector.position.copyFrom(animated.add(new Vector3(0.1, 0.3, 0.2)));
      ik.solver.leftHandEffector.positionWeight = 1;
      for (let f = 0; f < 3; f++) m.scene.render();
      node.computeWorldMatrix(true);
      const solved = node.getAbsolutePosition();
      const lines = viewer.debugMesh!;
      const data = lines.getVerticesData(VertexBuffer.PositionKind)!;
      const world = lines.computeWorldMatrix(true);
      const nearest = (p: Vector3): number => {
        let best = Number.POSITIVE_INFINITY;
        for (let i = 0; i < data.length; i += 3) {
          const v = Vector3.TransformCoordinates(new Vector3(data[i]!, data[i + 1]!, data[i + 2]!), world);
          best = Math.min(best, Vector3.Distance(v, p));
        }
        return best;
      };
      const moved = Vector3.Distance(solved, animated);
      report(
        "SkeletonViewer: nearest line point to the solved hand, to the animated one (m)",
        nearest(solved),
        nearest(animated),
      );
      expect(moved).toBeGreaterThan(0.2);
      expect(nearest(solved)).toBeLessThan(1e-4);
      expect(nearest(animated)).toBeGreaterThan(0.1);
      viewer.dispose();
    } finally {
      m.dispose();
    }
  });

  it("a character whose every mesh plays baked vertex animation is warned of at create: the IK cannot show", async () => {
    const m = await loadModel("Mannequin");
    try {
      const meshes = m.scene.meshes.filter((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0);
      expect(meshes.length).toBeGreaterThan(0);
      const managers = meshes.map((x) => {
        x.bakedVertexAnimationManager = new BakedVertexAnimationManager(m.scene);
        return x.bakedVertexAnimationManager;
      });
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const causes = (): string[] => ik.warningsRaised.map((w) => w.cause);
      expect(causes()).toContain("baked-vertex-animation");
      ik.dispose();
      // one mesh skinned by the bones again: what the IK writes shows there
      managers[0]!.isEnabled = false;
      const again = FullBodyBipedIK.create(m.scene, m.skeleton);
      expect(again.warningsRaised.map((w) => w.cause)).not.toContain("baked-vertex-animation");
      again.dispose();
    } finally {
      m.dispose();
    }
  });
});
