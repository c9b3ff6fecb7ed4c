/**
 * free: all nine effectors and the four bend goals as draggable handles over the character's idle clip.
 * Hands and feet are pinned (position and rotation); the body, shoulders and thighs ride on their bones until
 * dragged, which gives them full weight; the bend goals pull elbows and knees by half.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import type { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import type { BabylonBendConstraint, BabylonChain } from "../../../src/babylon/babylon-chain";
import type { BabylonEffector } from "../../../src/babylon/babylon-effector";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import {
  armLength,
  arr,
  bonePos,
  boneRotation,
  type Ctx,
  playClip,
  type Scenario,
  type ScenarioRun,
  worldPos,
} from "../kit";
import { frameWhole } from "../framing";
import { keepInSight } from "../props/clear-sight";
import { type LegendItem, handleGizmos, handleMaterial, keepOnTop, legend, onTop } from "../props/handles";
import { SIGNAL_GLOW } from "../props/signal";

/** The handles' kinds: colour, shape and size (fraction of the height) in the scene and the legend. */
const KINDS = {
  hand: { label: "hands", color: new Color3(1, 0.55, 0.1), size: 0.075 },
  foot: { label: "feet", color: new Color3(1, 0.2, 0.45), size: 0.075 },
  body: { label: "body", color: new Color3(0.15, 0.3, 1), size: 0.1 },
  shoulder: { label: "shoulders", color: new Color3(0, 0.85, 0.8), size: 0.07 },
  thigh: { label: "thighs", color: new Color3(0.7, 0.4, 1), size: 0.07 },
  bend: { label: "bend goals", color: new Color3(0.35, 1, 0.3), size: 0.06 },
} as const;
type Kind = keyof typeof KINDS;

interface Handle {
  mesh: Mesh;
  label: string;
  kind: Kind;
  bone: Bone;
  effector: BabylonEffector | null;
  chain: BabylonChain | null;
  bend: BabylonBendConstraint | null;
  material: StandardMaterial;
}

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  playClip(c, "Idle_Loop");
  const { ik, h } = c;
  const s = ik.solver;
  const r = ik.references;
  const scene = ctx.scene;
  const E = FullBodyBipedEffector;
  const handles: Handle[] = [];
  const add = (label: string, kind: Kind, bone: Bone, mesh: Mesh, x: Partial<Handle>): Handle => {
    mesh.position.copyFrom(bonePos(bone));
    const material = handleMaterial(scene, `handle ${label}`, KINDS[kind].color);
    mesh.material = material;
    onTop(mesh);
    const handle = { mesh, label, kind, bone, effector: null, chain: null, bend: null, material, ...x };
    handles.push(handle);
    return handle;
  };
  const effectors: [string, Kind, FullBodyBipedEffector, Bone, BabylonChain | null][] = [
    // the body effector moves the solver's root node (a spine bone on many rigs), not the pelvis: its handle
    // sits there, or the body dropped by their distance on the first drag (26 cm on the UAL character)
    ["body", "body", E.Body, ik.rootNode, null],
    ["left shoulder", "shoulder", E.LeftShoulder, r.leftUpperArm, null],
    ["right shoulder", "shoulder", E.RightShoulder, r.rightUpperArm, null],
    ["left thigh", "thigh", E.LeftThigh, r.leftThigh, null],
    ["right thigh", "thigh", E.RightThigh, r.rightThigh, null],
    ["left hand", "hand", E.LeftHand, r.leftHand, s.leftArmChain],
    ["right hand", "hand", E.RightHand, r.rightHand, s.rightArmChain],
    ["left foot", "foot", E.LeftFoot, r.leftFoot, s.leftLegChain],
    ["right foot", "foot", E.RightFoot, r.rightFoot, s.rightLegChain],
  ];
  for (const [label, kind, type, bone, chain] of effectors) {
    const mesh = CreateSphere(`handle ${label}`, { diameter: KINDS[kind].size * h, segments: 16 }, scene);
    const effector = s.getEffector(type);
    const end = chain !== null;
    mesh.rotationQuaternion = end ? boneRotation(bone) : Quaternion.Identity();
    add(label, kind, bone, mesh, { effector, chain });
    effector.target = mesh;
    // hands and feet pinned where they are (with rotation); the body effectors free until dragged
    effector.positionWeight = end ? 1 : 0;
    effector.rotationWeight = end ? 1 : 0;
  }
  // bend goals: behind and outside the elbows, in front of the knees and above them (at the knee's height,
  // seen from the front and above, a knee goal's box hid the raised left foot's handle)
  const { forward: f, right: rt } = c;
  const above = new Vector3(0, 0.1 * h, 0);
  const bends: [string, BabylonChain, Bone, Vector3][] = [
    ["left elbow goal", s.leftArmChain, r.leftForearm, f.scale(-0.25 * h).add(rt.scale(-0.1 * h))],
    ["right elbow goal", s.rightArmChain, r.rightForearm, f.scale(-0.25 * h).add(rt.scale(0.1 * h))],
    ["left knee goal", s.leftLegChain, r.leftCalf, f.scale(0.3 * h).add(above)],
    ["right knee goal", s.rightLegChain, r.rightCalf, f.scale(0.3 * h).add(above)],
  ];
  for (const [label, chain, bone, offset] of bends) {
    const mesh = CreateBox(`handle ${label}`, { size: KINDS.bend.size * h }, scene);
    add(label, "bend", bone, mesh, { chain, bend: chain.bendConstraint }).mesh.position.addInPlace(offset);
    chain.bendConstraint.bendGoal = mesh;
    chain.bendConstraint.weight = 0.5;
  }
  const byLabel = (label: string) => handles.find((x) => x.label === label)!.mesh;
  // a pose to start with: the left hand up in front, the right hand out to the side, the left foot raised, out
  const L = armLength(c, true);
  const lh = byLabel("left hand");
  lh.position.copyFrom(
    bonePos(r.leftUpperArm)
      .add(f.scale(0.55 * L))
      .add(new Vector3(0, 0.3 * L, 0)),
  );
  byLabel("right hand")
    .position.addInPlace(rt.scale(0.25 * L))
    .addInPlace(f.scale(0.2 * L));
  byLabel("left foot")
    .position.addInPlace(f.scale(0.12 * h))
    .addInPlace(new Vector3(0, 0.1 * h, 0))
    .addInPlace(rt.scale(-0.05 * h));
  // the whole body and the raised hand in view, a little from the character's right; no bend goal in front
  // of a handle there (a knee goal's box hid much of the raised left foot's handle on RiggedFigure)
  frameWhole(ctx, c, 1.35, 0.45);
  const goals = handles.filter((x) => x.kind === "bend").map((x) => x.mesh);
  const dragged = handles.filter((x) => x.kind !== "bend").map((x) => x.mesh);
  keepInSight(ctx.camera, goals, dragged, new Vector3(0, 0.04 * h, 0));
  // in any other view the effectors' handles stay in sight and under the pointer over the bend goals
  const unTop = keepOnTop(scene, dragged);

  // where every handle starts (the panel's reset puts them back)
  const home = handles.map((x) => ({ p: x.mesh.position.clone(), q: x.mesh.rotationQuaternion?.clone() ?? null }));
  const chainIndex = (ch: BabylonChain | null) => (ch === null ? null : s.limbChains.indexOf(ch));
  const effectorIndex = (x: Handle) => (x.effector === null ? null : s.effectors.indexOf(x.effector));
  let selected: Handle | null = null;
  const gizmos = handleGizmos(
    scene,
    handles.map((x) => x.mesh),
    (m) => handles.some((x) => x.mesh === m && x.chain !== null && x.effector !== null),
    (m) => {
      // a body, shoulder or thigh handle dragged for the first time takes full weight (the panel follows)
      const x = handles.find((y) => y.mesh === m);
      if (x === undefined || x.effector === null || x.effector.positionWeight > 0) return;
      x.effector.positionWeight = 1;
      run.onSelect?.({ effector: effectorIndex(x), chain: chainIndex(x.chain) });
    },
  );
  gizmos.manager.onAttachedToMeshObservable.add((mesh) => {
    selected = handles.find((x) => x.mesh === mesh) ?? null;
    if (selected !== null) run.onSelect?.({ effector: effectorIndex(selected), chain: chainIndex(selected.chain) });
  });

  const white = new Color3(1, 1, 1);
  let frames = 0;
  const run: ScenarioRun = {
    checks: {},
    done: false,
    onSelect: null,
    world: () => ({
      handles: Object.fromEntries(handles.map((x) => [x.label, arr(worldPos(x.mesh))])),
      // the colour each handle is meant to show (its legend swatch's); the e2e test reads the pixels against it
      colors: Object.fromEntries(handles.map((x) => [x.label, KINDS[x.kind].color.toHexString()])),
      leftHand: arr(bonePos(r.leftHand)),
      rightHand: arr(bonePos(r.rightHand)),
      body: arr(bonePos(r.pelvis)),
      rootNode: arr(bonePos(ik.rootNode)),
      gizmoWorld: gizmos.manager.gizmos.positionGizmo?.xGizmo.updateGizmoRotationToMatchAttachedMesh === false,
      height: h,
    }),
    select: (sel) => {
      // the panel chose an effector or a chain: attach the gizmo to its handle (the chain's end effector)
      const x =
        sel.effector !== null
          ? handles.find((y) => y.effector !== null && effectorIndex(y) === sel.effector)
          : sel.chain !== null
            ? handles.find((y) => y.effector !== null && y.chain === s.limbChains[sel.chain!])
            : undefined;
      if (x === undefined || x === selected) return;
      selected = x;
      gizmos.manager.attachToMesh(x.mesh);
    },
    update: () => {
      // a handle's look shows its weight: fainter and smaller when it pulls less, white-hot when selected
      for (const x of handles) {
        const w = x.effector !== null ? x.effector.positionWeight : (x.bend?.weight ?? 0);
        const color = KINDS[x.kind].color;
        // nearly opaque: the character behind would tint the legend's colour
        x.material.alpha = 0.9 + 0.1 * w;
        color.scaleToRef((0.8 + 0.2 * w) * SIGNAL_GLOW, x.material.emissiveColor);
        if (x === selected) Color3.LerpToRef(x.material.emissiveColor, white, 0.5, x.material.emissiveColor);
        x.mesh.scaling.setAll(0.8 + 0.2 * w);
      }
    },
    after: () => {
      // a body, shoulder or thigh handle without weight rides on its bone (ready to be grabbed there)
      for (const x of handles) {
        if (x.effector === null || x.effector.positionWeight > 0 || gizmos.manager.isDragging) continue;
        x.mesh.position.copyFrom(bonePos(x.bone));
      }
      if (++frames === 40) {
        run.checks.leftHand = { bone: arr(bonePos(r.leftHand)), handle: arr(worldPos(lh)), height: h };
        run.done = true;
      }
    },
    panel: (el) => {
      const items: LegendItem[] = (Object.keys(KINDS) as Kind[]).map((k) => ({
        label: KINDS[k].label,
        color: KINDS[k].color,
        shape: k === "bend" ? "square" : "round",
      }));
      const hint = document.createElement("div");
      hint.className = "hint";
      hint.textContent =
        "Click a handle, drag its gizmo. Hands and feet also turn; a body, shoulder or thigh handle " +
        "pulls once dragged. Fainter = less weight.";
      el.append(legend(items), gizmos.axesControl(), hint);
    },
    reset: () => {
      handles.forEach((x, i) => {
        x.mesh.position.copyFrom(home[i]!.p);
        if (home[i]!.q !== null) x.mesh.rotationQuaternion = home[i]!.q!.clone();
      });
      selected = null;
      gizmos.manager.attachToMesh(null);
    },
    dispose: () => {
      unTop();
      gizmos.manager.dispose();
    },
  };
  return run;
}

export const free: Scenario = {
  name: "free",
  title: "Free: all nine effectors",
  help:
    "Click a handle and drag its gizmo: hands and feet move and turn, the body, shoulders and thighs pull " +
    "the torso, green boxes bend elbows and knees; the rest of the body follows.",
  build,
};
