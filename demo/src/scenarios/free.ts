import type { Bone } from "@babylonjs/core/Bones/bone";
import { GizmoManager } from "@babylonjs/core/Gizmos/gizmoManager";
import type { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import type { BabylonChain, BabylonBendConstraint } from "../../../src/babylon/babylon-chain";
import type { BabylonEffector } from "../../../src/babylon/babylon-effector";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import {
  armLength,
  arr,
  bonePos,
  boneRotation,
  type Ctx,
  frameCamera,
  mat,
  type ScenarioRun,
  worldPos,
  type Scenario,
} from "../kit";

interface Handle {
  mesh: Mesh;
  label: string;
  effector: BabylonEffector | null;
  chain: BabylonChain | null;
  bend: BabylonBendConstraint | null;
  rotation: boolean;
  material: StandardMaterial;
  baseColor: Color3;
}

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h } = c;
  const s = ik.solver;
  const r = ik.references;
  const scene = ctx.scene;
  const handles: Handle[] = [];
  const E = FullBodyBipedEffector;
  const specs: [string, FullBodyBipedEffector, Bone, number][] = [
    ["body", E.Body, r.pelvis, 0.09],
    ["left shoulder", E.LeftShoulder, r.leftUpperArm, 0.065],
    ["right shoulder", E.RightShoulder, r.rightUpperArm, 0.065],
    ["left thigh", E.LeftThigh, r.leftThigh, 0.065],
    ["right thigh", E.RightThigh, r.rightThigh, 0.065],
    ["left hand", E.LeftHand, r.leftHand, 0.075],
    ["right hand", E.RightHand, r.rightHand, 0.075],
    ["left foot", E.LeftFoot, r.leftFoot, 0.075],
    ["right foot", E.RightFoot, r.rightFoot, 0.075],
  ];
  const chainOf: Partial<Record<FullBodyBipedEffector, BabylonChain>> = {
    [E.LeftHand]: s.leftArmChain,
    [E.RightHand]: s.rightArmChain,
    [E.LeftFoot]: s.leftLegChain,
    [E.RightFoot]: s.rightLegChain,
  };
  for (const [label, type, bone, size] of specs) {
    const mesh = CreateSphere(`handle ${label}`, { diameter: size * h, segments: 12 }, scene);
    mesh.position.copyFrom(bonePos(bone));
    const end = type >= E.LeftHand;
    mesh.rotationQuaternion = end ? boneRotation(bone) : Quaternion.Identity();
    const baseColor = end ? new Color3(1, 0.55, 0.1) : new Color3(0.2, 0.7, 1);
    const material = mat(scene, `handle ${label}`, baseColor);
    mesh.material = material;
    mesh.renderingGroupId = 1;
    const effector = s.getEffector(type);
    effector.target = mesh;
    // hands and feet pinned where they are (with rotation); the body effectors free until given weight
    effector.positionWeight = end ? 1 : 0;
    effector.rotationWeight = end ? 1 : 0;
    handles.push({
      mesh,
      label,
      effector,
      chain: chainOf[type] ?? null,
      bend: null,
      rotation: end,
      material,
      baseColor,
    });
  }
  // bend goals: in front of the knees, behind and outside the elbows
  const bends: [string, BabylonChain, Bone, Vector3][] = [
    ["left elbow goal", s.leftArmChain, r.leftForearm, c.forward.scale(-0.25 * h).add(c.right.scale(-0.1 * h))],
    ["right elbow goal", s.rightArmChain, r.rightForearm, c.forward.scale(-0.25 * h).add(c.right.scale(0.1 * h))],
    ["left knee goal", s.leftLegChain, r.leftCalf, c.forward.scale(0.3 * h)],
    ["right knee goal", s.rightLegChain, r.rightCalf, c.forward.scale(0.3 * h)],
  ];
  for (const [label, chain, bone, offset] of bends) {
    const mesh = CreateBox(`handle ${label}`, { size: 0.055 * h }, scene);
    mesh.position.copyFrom(bonePos(bone).add(offset));
    const baseColor = new Color3(0.55, 1, 0.35);
    const material = mat(scene, `handle ${label}`, baseColor);
    mesh.material = material;
    mesh.renderingGroupId = 1;
    chain.bendConstraint.bendGoal = mesh;
    chain.bendConstraint.weight = 0.5;
    handles.push({
      mesh,
      label,
      effector: null,
      chain,
      bend: chain.bendConstraint,
      rotation: false,
      material,
      baseColor,
    });
  }
  // a pose to start with: the left hand up in front, the right hand out to the side, a knee forward
  const L = armLength(c, true);
  const lh = handles[5]!.mesh;
  const leftShoulder = bonePos(r.leftUpperArm);
  lh.position.copyFrom(leftShoulder.add(c.forward.scale(0.55 * L)).add(new Vector3(0, 0.3 * L, 0)));
  const rh = handles[6]!.mesh;
  rh.position.addInPlace(c.right.scale(0.25 * L)).addInPlace(c.forward.scale(0.2 * L));
  const lf = handles[7]!.mesh;
  lf.position.addInPlace(c.forward.scale(0.12 * h)).addInPlace(new Vector3(0, 0.1 * h, 0));

  const gizmos = new GizmoManager(scene);
  gizmos.positionGizmoEnabled = true;
  gizmos.rotationGizmoEnabled = false;
  gizmos.usePointerToAttachGizmos = true;
  gizmos.attachableMeshes = handles.map((x) => x.mesh);
  gizmos.scaleRatio = 0.8;
  let selected: Handle | null = null;
  // where every handle starts (the panel's reset puts them back)
  const home = handles.map((x) => ({ p: x.mesh.position.clone(), q: x.mesh.rotationQuaternion?.clone() ?? null }));
  const chainIndex = (ch: BabylonChain | null) => (ch === null ? null : s.limbChains.indexOf(ch));
  gizmos.onAttachedToMeshObservable.add((mesh) => {
    selected = handles.find((x) => x.mesh === mesh) ?? null;
    gizmos.rotationGizmoEnabled = selected?.rotation ?? false;
    if (selected !== null)
      run.onSelect?.({
        effector: selected.effector === null ? null : s.effectors.indexOf(selected.effector),
        chain: chainIndex(selected.chain),
      });
  });

  let frames = 0;
  const run: ScenarioRun = {
    checks: {},
    done: false,
    onSelect: null,
    world: () => ({
      handles: Object.fromEntries(handles.map((x) => [x.label, arr(worldPos(x.mesh))])),
      leftHand: arr(bonePos(r.leftHand)),
      rightHand: arr(bonePos(r.rightHand)),
      height: h,
    }),
    select: (sel) => {
      // the panel chose an effector or a chain: attach the gizmo to its handle (the chain's end effector)
      const x =
        sel.effector !== null
          ? handles.find((y) => y.effector !== null && s.effectors.indexOf(y.effector) === sel.effector)
          : sel.chain !== null
            ? handles.find((y) => y.effector !== null && y.chain === s.limbChains[sel.chain!])
            : undefined;
      if (x === undefined || x === selected) return;
      selected = x;
      gizmos.attachToMesh(x.mesh);
      gizmos.rotationGizmoEnabled = x.rotation;
    },
    update: () => {
      // a handle's look shows its weight
      for (const x of handles) {
        const w = x.effector !== null ? x.effector.positionWeight : (x.bend?.weight ?? 0);
        x.material.alpha = 0.5 + 0.5 * w;
        x.material.diffuseColor = Color3.Lerp(new Color3(0.45, 0.45, 0.45), x.baseColor, w);
        x.material.emissiveColor = x === selected ? new Color3(0.5, 0.5, 0.5) : x.baseColor.scale(0.25 * w);
        const sc = 0.7 + 0.3 * w;
        x.mesh.scaling.setAll(sc);
      }
    },
    after: () => {
      if (++frames === 40) {
        run.checks.leftHand = { bone: arr(bonePos(r.leftHand)), handle: arr(worldPos(lh)), height: h };
        run.done = true;
      }
    },
    panel: (el) => {
      el.innerHTML =
        `<div class="hint">Click a handle to select it (the effector and chain sections follow); drag its gizmo. ` +
        "Orange: hands/feet (position + rotation), blue: body/shoulders/thighs, green: bend goals. " +
        "Brighter and bigger = more weight.</div>";
    },
    reset: () => {
      handles.forEach((x, i) => {
        x.mesh.position.copyFrom(home[i]!.p);
        if (home[i]!.q !== null) x.mesh.rotationQuaternion = home[i]!.q!.clone();
      });
      selected = null;
      gizmos.attachToMesh(null);
    },
    dispose: () => gizmos.dispose(),
  };
  frameCamera(ctx, c, new Vector3(0, 0.7 * h, 0), 3.6 * h);
  return run;
}

export const free: Scenario = {
  name: "free",
  title: "Free",
  help:
    "Drag the handles: hands and feet (orange) move and turn, body, shoulders and thighs (blue) pull " +
    "the body; the rest follows.",
  build,
};
