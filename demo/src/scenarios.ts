/** The demo's scenarios: each builds its scene content around one or more characters. */
import { Animation } from "@babylonjs/core/Animations/animation";
import { AnimationGroup } from "@babylonjs/core/Animations/animationGroup";
import type { Bone } from "@babylonjs/core/Bones/bone";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton";
import type { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import { Ray } from "@babylonjs/core/Culling/ray";
import type { AbstractEngine } from "@babylonjs/core/Engines/abstractEngine";
import { GizmoManager } from "@babylonjs/core/Gizmos/gizmoManager";
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Scene } from "@babylonjs/core/scene";
import type { AssetContainer } from "@babylonjs/core/assetContainer";
import { FullBodyBipedIK } from "../../src/component/full-body-biped-ik";
import type { FBBIKChain, FBBIKBendConstraint } from "../../src/effectors/babylon-chain";
import type { FBBIKEffector } from "../../src/effectors/babylon-effector";
import { Curve } from "../../src/effectors/curve";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik";
import { ClimbSequencer, type ClimbStep } from "../../src/effectors/interaction/climb-sequencer";
import { InteractionCurveType } from "../../src/effectors/interaction/interaction-curves";
import { InteractionObject } from "../../src/effectors/interaction/interaction-object";
import { InteractionSystem } from "../../src/effectors/interaction/interaction-system";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones";

export const SCENARIOS = ["free", "grab", "climb", "ground", "hit", "crowd"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** What the e2e test reads: a hand/foot bone, its target, the character's height. */
export interface Probe {
  label: string;
  bone: [number, number, number];
  target: [number, number, number];
  height: number;
}

/** A scenario's measurement at its key moment (distance relative to the height; tolerance too). */
export interface Result {
  label: string;
  distance: number;
  height: number;
  ratio: number;
  tolerance: number;
}

export interface Character {
  root: TransformNode;
  skeleton: Skeleton;
  ik: FullBodyBipedIK;
  idle: AnimationGroup | null;
  /** Joint extent in y. */
  h: number;
  /** Horizontal forward (feet to toes). */
  forward: Vector3;
  /** Horizontal left-to-right... the direction from the left shoulder to the right one, horizontal. */
  right: Vector3;
  meshes: AbstractMesh[];
}

export interface Ctx {
  scene: Scene;
  engine: AbstractEngine;
  camera: ArcRotateCamera;
  shadows: ShadowGenerator;
  ground: Mesh;
  container: AssetContainer;
  iks: FullBodyBipedIK[];
  characters: Character[];
  paused(): boolean;
  spawn(position: Vector3): Character;
}

/** A running scenario. */
export interface ScenarioRun {
  probe(): Probe;
  /** Set once the scenario's measurement is taken. */
  result: Result | null;
  update?(dt: number): void;
  /** Extra panel content. */
  panel?(el: HTMLElement): void;
  dispose?(): void;
}

export function bonePos(bone: Bone): Vector3 {
  const n = bone.getTransformNode()!;
  return n.computeWorldMatrix(true).getTranslation();
}

export function nodePos(n: TransformNode): Vector3 {
  return n.computeWorldMatrix(true).getTranslation();
}

const arr = (v: Vector3): [number, number, number] => [v.x, v.y, v.z];

function makeProbe(label: string, bone: Bone, target: () => Vector3, h: number): Probe {
  return { label, bone: arr(bonePos(bone)), target: arr(target()), height: h };
}

function makeResult(label: string, distance: number, h: number, tolerance: number): Result {
  return { label, distance, height: h, ratio: distance / h, tolerance };
}

/** A gentle procedural idle: the spine sways, both arms swing (keys on the bones' linked nodes). */
function proceduralIdle(scene: Scene, nodes: TransformNode[], name: string): AnimationGroup {
  const group = new AnimationGroup(name, scene);
  nodes.forEach((node, i) => {
    const base = node.rotationQuaternion?.clone() ?? Quaternion.FromEulerVector(node.rotation);
    const anim = new Animation(`${name}-${node.name}`, "rotationQuaternion", 30, Animation.ANIMATIONTYPE_QUATERNION, Animation.ANIMATIONLOOPMODE_CYCLE);
    const keys = [];
    for (let f = 0; f <= 90; f += 10) {
      const a = 0.12 * Math.sin((f / 90) * Math.PI * 2 + i);
      const axis = new Vector3(i % 3 === 0 ? 1 : 0, i % 3 === 1 ? 1 : 0, i % 3 === 2 ? 1 : 0);
      keys.push({ frame: f, value: Quaternion.RotationAxis(axis, a).multiply(base) });
    }
    anim.setKeys(keys);
    group.addTargetedAnimation(anim, node);
  });
  return group;
}

let spawned = 0;

/** Instantiates the loaded model at `position`, attaches the IK and starts a procedural idle. */
export function spawnCharacter(ctx: Ctx, position: Vector3, ikTimes: { acc: number }): Character {
  const k = spawned++;
  const entries = ctx.container.instantiateModelsToScene((n) => `${n}#${k}`, false, { doNotInstantiate: true });
  for (const g of entries.animationGroups) g.stop();
  const root = entries.rootNodes[0] as TransformNode;
  root.position.addInPlace(position);
  const skeleton = entries.skeletons[0];
  if (skeleton === undefined) throw new Error("The model has no skeleton.");
  const meshes = root.getChildMeshes(false);
  for (const m of meshes) {
    ctx.shadows.addShadowCaster(m, false);
    m.receiveShadows = true;
    m.isPickable = false;
  }
  const update = (n: TransformNode) => {
    n.computeWorldMatrix(true);
    for (const ch of n.getChildTransformNodes(true)) update(ch);
  };
  update(root);
  {
    // the IK stores the bones' default pose when it is created: lower the arms first (references from a
    // throwaway IK)
    const first = FullBodyBipedIK.create(ctx.scene, skeleton);
    const r = first.references;
    first.dispose();
    // arms down from the T-pose (a relaxed stance), checked numerically: a mirrored glTF root can flip the turn
    for (const [upper, lower] of [[r.leftUpperArm, r.leftForearm], [r.rightUpperArm, r.rightForearm]] as const) {
      const n = upper.getTransformNode();
      if (n === null) continue;
      const dirNow = () => bonePos(lower).subtract(bonePos(upper)).normalize();
      const d0 = dirNow();
      const down = new Vector3(0, -1, 0);
      const axis = Vector3.Cross(d0, down);
      if (axis.lengthSquared() < 1e-6) continue;
      axis.normalize();
      const angle = Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(d0, down)))) - 0.35;
      if (angle <= 0) continue;
      const before = n.rotationQuaternion?.clone() ?? Quaternion.FromEulerVector(n.rotation);
      // the turn in the parent's coordinates (a mirrored parent is just other coordinates there)
      const parentInv = n.parent !== null ? (n.parent as TransformNode).computeWorldMatrix(true).clone().invert() : Matrix.Identity();
      const dp = Vector3.TransformNormal(d0, parentInv).normalize();
      const target = Vector3.TransformNormal(d0.scale(Math.cos(angle)).add(Vector3.Cross(axis, d0).scale(Math.sin(angle))), parentInv).normalize();
      const ax = Vector3.Cross(dp, target);
      if (ax.lengthSquared() < 1e-9) continue;
      const turn = Quaternion.RotationAxis(ax.normalize(), Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(dp, target)))));
      let best = before;
      let bestDot = Vector3.Dot(d0, down);
      for (const q of [turn.multiply(before), before.multiply(turn)]) {
        n.rotationQuaternion = q;
        update(root);
        const dot = Vector3.Dot(dirNow(), down);
        if (dot > bestDot + 1e-3) {
          best = q;
          bestDot = dot;
        }
      }
      n.rotationQuaternion = best;
      update(root);
    }
  }
  const ik = FullBodyBipedIK.create(ctx.scene, skeleton);
  let t0 = 0;
  ik.solver.onPreUpdate.add(() => (t0 = performance.now()));
  ik.solver.onPostUpdate.add(() => (ikTimes.acc += performance.now() - t0));
  // world matrices, parents first (no render: a crowd spawns a hundred of these)
  update(root);
  const r = ik.references;
  let lo = Infinity;
  let hi = -Infinity;
  for (const b of skeleton.bones) {
    if (b.getTransformNode() === null) continue;
    const y = bonePos(b).y;
    lo = Math.min(lo, y);
    hi = Math.max(hi, y);
  }
  const foot = bonePos(r.leftFoot);
  const toe = r.leftFoot.children[0];
  const forward = toe !== undefined ? bonePos(toe).subtract(foot) : new Vector3(0, 0, 1);
  forward.y = 0;
  forward.normalize();
  const right = bonePos(r.rightUpperArm).subtract(bonePos(r.leftUpperArm));
  right.y = 0;
  right.normalize();
  const nodes = [r.spine[0], r.leftUpperArm, r.rightForearm].filter((b) => b !== undefined).map((b) => b!.getTransformNode()!);
  const idle = proceduralIdle(ctx.scene, nodes, `idle#${k}`);
  idle.start(true, 1);
  if (ctx.paused()) idle.pause();
  const c: Character = { root, skeleton, ik, idle, h: hi - lo, forward, right, meshes };
  ctx.iks.push(ik);
  ctx.characters.push(c);
  return c;
}

function mat(scene: Scene, name: string, color: Color3, alpha = 1): StandardMaterial {
  const m = new StandardMaterial(name, scene);
  m.diffuseColor = color;
  m.specularColor = new Color3(0.1, 0.1, 0.1);
  m.alpha = alpha;
  return m;
}

function armLength(c: Character, left: boolean): number {
  const r = c.ik.references;
  const [a, b, d] = left ? [r.leftUpperArm, r.leftForearm, r.leftHand] : [r.rightUpperArm, r.rightForearm, r.rightHand];
  return Vector3.Distance(bonePos(a), bonePos(b)) + Vector3.Distance(bonePos(b), bonePos(d));
}

export function frameCamera(ctx: Ctx, c: Character, target: Vector3, radius: number, side = 0.5, front = 1): void {
  ctx.camera.target = target;
  ctx.camera.radius = radius;
  // the camera sits toward `front` × forward + `side` × right from the target
  const d = c.forward.scale(front).add(c.right.scale(side));
  ctx.camera.alpha = Math.atan2(d.z, d.x);
  ctx.camera.beta = 1.2;
}

/** Rotation whose world Y and Z axes are the node's (what an effector reads from a target). */
function boneRotation(bone: Bone): Quaternion {
  const m = bone.getTransformNode()!.computeWorldMatrix(true).m;
  const y = new Vector3(m[4]!, m[5]!, m[6]!).normalize();
  const z = new Vector3(m[8]!, m[9]!, m[10]!).normalize();
  return Quaternion.FromLookDirectionLH(z, y);
}

// ---------------------------------------------------------------------------------------------------------------
// free: gizmos on the nine effectors and the four bend goals

interface Handle {
  mesh: Mesh;
  label: string;
  effector: FBBIKEffector | null;
  chain: FBBIKChain | null;
  bend: FBBIKBendConstraint | null;
  rotation: boolean;
  material: StandardMaterial;
  baseColor: Color3;
}

async function free(ctx: Ctx): Promise<ScenarioRun> {
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
  const chainOf: Partial<Record<FullBodyBipedEffector, FBBIKChain>> = {
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
    handles.push({ mesh, label, effector, chain: chainOf[type] ?? null, bend: null, rotation: end, material, baseColor });
  }
  // bend goals: in front of the knees, behind and outside the elbows
  const bends: [string, FBBIKChain, Bone, Vector3][] = [
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
    handles.push({ mesh, label, effector: null, chain, bend: chain.bendConstraint, rotation: false, material, baseColor });
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
  let panelEl: HTMLElement | null = null;
  const showSelected = () => {
    if (panelEl === null) return;
    panelEl.innerHTML = "";
    if (selected === null) {
      panelEl.innerHTML = `<div class="hint">Click a handle to select it; drag its gizmo. Orange: hands/feet (position + rotation), blue: body/shoulders/thighs, green: bend goals. Brighter = more weight.</div>`;
      return;
    }
    const h3 = document.createElement("div");
    h3.innerHTML = `<b>${selected.label}</b>`;
    panelEl.append(h3);
    const sel = selected;
    if (sel.effector !== null) {
      const e = sel.effector;
      panelEl.append(slider("positionWeight", 0, 1, 0.01, () => e.positionWeight, (v) => (e.positionWeight = v)));
      panelEl.append(slider("rotationWeight", 0, 1, 0.01, () => e.rotationWeight, (v) => (e.rotationWeight = v)));
      if (sel.chain !== null) {
        const ch = sel.chain;
        panelEl.append(slider("pull", 0, 1, 0.01, () => ch.pull, (v) => (ch.pull = v)));
        panelEl.append(slider("reach", 0, 1, 0.01, () => ch.reach, (v) => (ch.reach = v)));
        panelEl.append(slider("push", 0, 1, 0.01, () => ch.push, (v) => (ch.push = v)));
        panelEl.append(slider("pushParent", -1, 1, 0.01, () => ch.pushParent, (v) => (ch.pushParent = v)));
      } else {
        panelEl.append(slider("maintainRelPos", 0, 1, 0.01, () => e.maintainRelativePositionWeight, (v) => (e.maintainRelativePositionWeight = v)));
      }
    }
    if (sel.bend !== null) {
      const b = sel.bend;
      panelEl.append(slider("bend weight", 0, 1, 0.01, () => b.weight, (v) => (b.weight = v)));
    }
  };
  gizmos.onAttachedToMeshObservable.add((mesh) => {
    selected = handles.find((x) => x.mesh === mesh) ?? null;
    gizmos.rotationGizmoEnabled = selected?.rotation ?? false;
    showSelected();
  });

  let frames = 0;
  const run: ScenarioRun = {
    result: null,
    probe: () => makeProbe("left hand", r.leftHand, () => nodePos(lh), h),
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
      if (++frames === 40 && run.result === null) {
        run.result = makeResult("free: left hand on its handle", Vector3.Distance(bonePos(r.leftHand), nodePos(lh)), h, 0.02);
      }
    },
    panel: (el) => {
      panelEl = el;
      showSelected();
    },
    dispose: () => gizmos.dispose(),
  };
  frameCamera(ctx, c, new Vector3(0, 0.7 * h, 0), 3.6 * h);
  return run;
}

/** A labelled range input. */
export function slider(label: string, min: number, max: number, step: number, get: () => number, set: (v: number) => void): HTMLElement {
  const l = document.createElement("label");
  const span = document.createElement("span");
  const input = document.createElement("input");
  input.type = "range";
  input.min = String(min);
  input.max = String(max);
  input.step = String(step);
  input.value = String(get());
  const out = document.createElement("span");
  out.style.width = "34px";
  out.textContent = get().toFixed(2);
  span.textContent = label;
  input.addEventListener("input", () => {
    set(Number(input.value));
    out.textContent = Number(input.value).toFixed(2);
  });
  l.append(span, input, out);
  return l;
}

// ---------------------------------------------------------------------------------------------------------------
// grab: reach for a cup on a table (the body leans in), grasp, lift, hold, put back, on a loop

function riseHoldFall(rise: number, hold: number, end: number): Curve {
  return new Curve([
    { time: 0, value: 0, outTangent: 0 },
    { time: rise, value: 1, inTangent: 0, outTangent: 0 },
    { time: hold, value: 1, inTangent: 0, outTangent: 0 },
    { time: end, value: 0, inTangent: 0 },
  ]);
}

async function grab(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const L = armLength(c, false);
  const shoulder = bonePos(r.rightUpperArm);
  // the cup beyond arm's reach: the body has to lean in (pull)
  const cupHome = shoulder.add(forward.scale(1.05 * L)).add(right.scale(-0.15 * L));
  const tableTop = shoulder.y - 0.75 * L;
  cupHome.y = tableTop + 0.04 * h;
  const table = CreateBox("table", { width: 0.9 * h, height: 0.04 * h, depth: 0.5 * h }, scene);
  table.rotationQuaternion = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  table.position.copyFrom(cupHome.add(forward.scale(0.12 * h)));
  table.position.y = tableTop - 0.02 * h;
  table.material = mat(scene, "table", new Color3(0.55, 0.38, 0.22));
  const legs: Mesh[] = [];
  for (const [a, b] of [[-1, -1], [-1, 1], [1, -1], [1, 1]] as const) {
    const leg = CreateBox("leg", { width: 0.03 * h, height: tableTop, depth: 0.03 * h }, scene);
    leg.position.copyFrom(table.position.add(right.scale(a * 0.42 * h)).add(forward.scale(b * 0.22 * h)));
    leg.position.y = tableTop / 2 - 0.02 * h;
    leg.material = table.material;
    legs.push(leg);
  }
  const cup = CreateCylinder("cup", { height: 0.08 * h, diameter: 0.05 * h }, scene);
  cup.material = mat(scene, "cup", new Color3(0.85, 0.15, 0.15));
  cup.position.copyFrom(cupHome);
  for (const m of [table, cup, ...legs]) {
    ctx.shadows.addShadowCaster(m, false);
    m.receiveShadows = true;
  }
  // the grip: the hand's target, beside the cup toward the character, turned like the hand at rest
  const grip = new TransformNode("grip", scene);
  grip.parent = cup;
  grip.position.set(0, 0, 0);
  grip.position.copyFrom(forward.scale(-0.035 * h));
  const handRot = boneRotation(r.rightHand);
  grip.rotationQuaternion = handRot;

  const system = new InteractionSystem(ik);
  const object = new InteractionObject(grip, {
    weightCurves: [
      { type: InteractionCurveType.PositionWeight, curve: riseHoldFall(0.9, 1.1, 1.9) },
      { type: InteractionCurveType.RotationWeight, curve: riseHoldFall(0.9, 1.1, 1.9) },
    ],
    events: [{ time: 1.0, pause: true }],
  });
  const RH = FullBodyBipedEffector.RightHand;
  let phase: "reach" | "lift" | "hold" | "down" | "release" | "rest" = "rest";
  let t = 0.5;
  let graspFrames = 0;
  const run: ScenarioRun = {
    result: null,
    probe: () => makeProbe("right hand", r.rightHand, () => nodePos(grip), h),
    update: (dt) => {
      t += dt;
      switch (phase) {
        case "rest":
          if (t > 0.8) {
            cup.position.copyFrom(cupHome);
            system.startInteraction(RH, object, true);
            phase = "reach";
            t = 0;
          }
          break;
        case "reach":
          if (system.isPaused(RH)) {
            // measure at the grasp moment, a couple of frames into the hold
            if (++graspFrames === 3 && run.result === null) {
              run.result = makeResult("grab: right hand on the cup at the grasp", Vector3.Distance(bonePos(r.rightHand), nodePos(grip)), h, 0.02);
            }
            if (graspFrames >= 3) {
              phase = "lift";
              t = 0;
            }
          }
          break;
        case "lift": {
          const k = Math.min(1, t / 0.8);
          cup.position.copyFrom(cupHome);
          cup.position.y += 0.15 * h * (0.5 - 0.5 * Math.cos(Math.PI * k));
          cup.position.addInPlace(forward.scale(-0.1 * h * (0.5 - 0.5 * Math.cos(Math.PI * k))));
          if (k >= 1) {
            phase = "hold";
            t = 0;
          }
          break;
        }
        case "hold":
          if (t > 0.8) {
            phase = "down";
            t = 0;
          }
          break;
        case "down": {
          const k = Math.min(1, t / 0.8);
          cup.position.copyFrom(cupHome);
          cup.position.y += 0.15 * h * (0.5 + 0.5 * Math.cos(Math.PI * k));
          cup.position.addInPlace(forward.scale(-0.1 * h * (0.5 + 0.5 * Math.cos(Math.PI * k))));
          if (k >= 1) {
            system.resumeInteraction(RH);
            phase = "release";
            t = 0;
          }
          break;
        }
        case "release":
          if (!system.isInInteraction(RH)) {
            phase = "rest";
            t = 0;
            graspFrames = 0;
          }
          break;
      }
    },
    dispose: () => system.dispose(),
  };
  frameCamera(ctx, c, cupHome.add(new Vector3(0, 0.05 * h, 0)).scale(0.5).add(new Vector3(0, 0.2 * h, 0)), 3.6 * h, 1, 0.7);
  return run;
}

// ---------------------------------------------------------------------------------------------------------------
// climb: a ladder, hands and feet go hold to hold on a script (ClimbSequencer)

async function climb(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const lShoulder = bonePos(r.leftUpperArm);
  const rShoulder = bonePos(r.rightUpperArm);
  const L = armLength(c, true);
  const ankleY = (bonePos(r.leftFoot).y + bonePos(r.rightFoot).y) / 2;
  const chestFront = lShoulder.add(rShoulder).scale(0.5).add(forward.scale(0.45 * L));
  const spacing = 0.1 * h;
  const holdNode = (side: Vector3, k: number, label: string) => {
    const n = new TransformNode(`rung ${k} ${label}`, scene);
    n.position.set(side.x, ankleY + k * spacing, side.z);
    n.rotationQuaternion = Quaternion.Identity();
    return n;
  };
  const lateral = (p: Vector3, scale: number) => {
    const cc = lShoulder.add(rShoulder).scale(0.5);
    const d = p.subtract(cc);
    const along = forward.scale(Vector3.Dot(d, forward));
    const across = d.subtract(along);
    across.y = 0;
    return chestFront.add(across.scale(scale));
  };
  const lHandX = lateral(lShoulder, 0.8);
  const rHandX = lateral(rShoulder, 0.8);
  const lFootX = bonePos(r.leftFoot).add(forward.scale(0.04 * h));
  const rFootX = bonePos(r.rightFoot).add(forward.scale(0.04 * h));
  const k0 = Math.round((lShoulder.y - 0.12 * h - ankleY) / spacing);
  const RUNGS = 3;
  const holds = (x: Vector3, label: string, from: number) => Array.from({ length: RUNGS + 1 }, (_, i) => holdNode(x, from + i, label));
  const lh = holds(lHandX, "L hand", k0);
  const rh = holds(rHandX, "R hand", k0);
  const lf = holds(lFootX, "L foot", 1);
  const rf = holds(rFootX, "R foot", 1);
  // the ladder: rungs at the holds' heights, two rails through the left and right holds (plus a bit)
  const wood = mat(scene, "ladder", new Color3(0.6, 0.45, 0.25));
  const rungBetween = (a: TransformNode, b: TransformNode) => {
    const pa = nodePos(a);
    const pb = nodePos(b);
    const d = pb.subtract(pa);
    const len = d.length() + 0.1 * h;
    const cyl = CreateCylinder("rung", { height: len, diameter: 0.018 * h, tessellation: 10 }, scene);
    cyl.position.copyFrom(pa.add(pb).scale(0.5));
    // the cylinder's axis is Y: turn it to d
    const axis = Vector3.Cross(Vector3.Up(), d.normalizeToNew());
    const angle = Math.acos(Math.max(-1, Math.min(1, d.normalizeToNew().y)));
    cyl.rotationQuaternion = axis.lengthSquared() > 1e-9 ? Quaternion.RotationAxis(axis.normalize(), angle) : Quaternion.Identity();
    cyl.material = wood;
    ctx.shadows.addShadowCaster(cyl, false);
    return cyl;
  };
  for (let i = 0; i <= RUNGS; i++) {
    rungBetween(lh[i]!, rh[i]!);
    rungBetween(lf[i]!, rf[i]!);
  }
  // rails: from below the lowest foot rung to above the top hand rung, along each side
  const railPoint = (x: TransformNode) => nodePos(x);
  const side = (lst: TransformNode[], lst2: TransformNode[], out: number) => {
    const a = railPoint(lst[0]!).add(c.right.scale(out * 0.05 * h));
    const b = railPoint(lst2[RUNGS]!).add(c.right.scale(out * 0.05 * h));
    const dir = b.subtract(a).normalize();
    const from = a.subtract(dir.scale(a.y / Math.max(0.2, dir.y)));
    const to = b.add(dir.scale(0.1 * h));
    const d = to.subtract(from);
    const cyl = CreateCylinder("rail", { height: d.length(), diameter: 0.025 * h, tessellation: 10 }, scene);
    cyl.position.copyFrom(from.add(to).scale(0.5));
    const axis = Vector3.Cross(Vector3.Up(), d.normalizeToNew());
    cyl.rotationQuaternion = Quaternion.RotationAxis(axis.normalize(), Math.acos(d.normalizeToNew().y));
    cyl.material = wood;
    ctx.shadows.addShadowCaster(cyl, false);
  };
  side(lf, lh, -1);
  side(rf, rh, 1);

  const { LeftHand: LH, RightHand: RH, LeftFoot: LF, RightFoot: RF } = FullBodyBipedEffector;
  const T = 0.7;
  const steps: ClimbStep[] = [
    { time: 0, limb: LH, hold: lh[0]! },
    { time: 0, limb: RH, hold: rh[0]! },
    { time: 0, limb: LF, hold: lf[0]! },
    { time: 0, limb: RF, hold: rf[0]! },
  ];
  const order: [FullBodyBipedEffector, TransformNode[]][] = [
    [RH, rh],
    [LF, lf],
    [LH, lh],
    [RF, rf],
  ];
  for (let rung = 1; rung <= RUNGS; rung++) order.forEach(([limb, list], i) => steps.push({ time: 0.8 + T * (4 * (rung - 1) + i + 1), limb, hold: list[rung]! }));
  const bones: Record<number, Bone> = { [LH]: r.leftHand, [RH]: r.rightHand, [LF]: r.leftFoot, [RF]: r.rightFoot };
  let system: InteractionSystem | null = null;
  let seq: ClimbSequencer | null = null;
  let worst = 0;
  let worstLabel = "";
  let checked = 0;
  let restart = 0;
  const startClimb = () => {
    seq?.dispose();
    system?.dispose();
    system = new InteractionSystem(ik);
    seq = new ClimbSequencer(system, { steps, moveTime: 0.45, liftHeight: 0.03 * h });
    seq.onFinished.add(() => {
      if (run.result === null && checked > 0) run.result = makeResult(`climb: worst limb on its hold (${worstLabel})`, worst * h, h, 0.03);
      restart = 1.5;
    });
    seq.start();
  };
  startClimb();
  const run: ScenarioRun = {
    result: null,
    probe: () => makeProbe("right hand", r.rightHand, () => nodePos(seq?.getHold(RH) ?? rh[0]!), h),
    update: (dt) => {
      // the last frame's solve: every limb paused on its hold, at full weight
      const sys = system;
      if (seq !== null && sys !== null) {
        for (const limb of [LH, RH, LF, RF]) {
          const hold = seq.getHold(limb);
          if (hold === null || !sys.isPaused(limb) || sys.getInteractionEffector(limb).weight < 1) continue;
          const d = Vector3.Distance(bonePos(bones[limb]!), nodePos(hold)) / h;
          checked++;
          if (d > worst) {
            worst = d;
            worstLabel = FullBodyBipedEffector[limb] ?? String(limb);
          }
        }
      }
      if (restart > 0) {
        restart -= dt;
        if (restart <= 0) startClimb();
      }
    },
    dispose: () => {
      seq?.dispose();
      system?.dispose();
    },
  };
  frameCamera(ctx, c, new Vector3(0, 0.75 * h, 0).add(forward.scale(0.2 * h)), 3.8 * h, 1, 0.35);
  return run;
}

// ---------------------------------------------------------------------------------------------------------------
// ground: a step under the left foot, a slope under the right one (GrounderFBBIK)

async function ground(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const unit = h / 1.75;
  const feet = [r.leftFoot, r.rightFoot];
  const restPos = feet.map(bonePos);
  const center = restPos[0]!.add(restPos[1]!).scale(0.5);
  center.y = 0;
  // left side: a step up
  const d = 0.15 * unit;
  const stepMat = mat(scene, "step", new Color3(0.62, 0.6, 0.55));
  const step = CreateBox("step", { width: 1.2 * h, height: d, depth: 1.2 * h }, scene);
  step.rotationQuaternion = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  step.position.copyFrom(center.add(right.scale(-0.6 * h)));
  step.position.y = d / 2;
  step.material = stepMat;
  // right side: a slope going down to the right, from the centre line; the floor below it sunk
  const angle = (18 * Math.PI) / 180;
  const w = 1.2 * h;
  const slope = CreateGround("slope", { width: w, height: 1.2 * h }, scene);
  const turn = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  // tilt about the forward axis so the surface descends toward `right`
  const tilt = Quaternion.RotationAxis(forward, angle);
  slope.rotationQuaternion = tilt.multiply(turn);
  slope.position.copyFrom(center.add(right.scale((w / 2) * Math.cos(angle))));
  const slopeMat = mat(scene, "slope", new Color3(0.5, 0.58, 0.45));
  slope.material = slopeMat;
  // which way did the tilt go? make the right edge lower than the centre
  slope.computeWorldMatrix(true);
  const probeRight = surfaceAt(scene, [slope], center.add(right.scale(0.5 * w)));
  if (probeRight !== null && probeRight > 0) {
    slope.rotationQuaternion = Quaternion.RotationAxis(forward, -angle).multiply(turn);
    slope.computeWorldMatrix(true);
  }
  const drop = Math.sin(angle) * (w / 2);
  slope.position.y = -drop;
  slope.computeWorldMatrix(true);
  // the floor goes down below the slope
  ctx.ground.position.y = -2 * drop - 0.01;
  const terrain = [step, slope];
  for (const m of terrain) {
    m.receiveShadows = true;
    ctx.shadows.addShadowCaster(m, false);
  }
  const footRadius = 0.05 * (h / 1.8);
  const grounder = GrounderFBBIK.create(ik, { footRadius, predicate: (m) => terrain.includes(m as Mesh) || m === ctx.ground });
  grounder.resetPosition();
  let frames = 0;
  let worst = 0;
  const errs = () =>
    feet.map((foot, i) => {
      const p = bonePos(foot);
      const s = surfaceAt(scene, terrain, p) ?? 0;
      return Math.abs(p.y - s - restPos[i]!.y);
    });
  const run: ScenarioRun = {
    result: null,
    probe: () => {
      const p = bonePos(r.rightFoot);
      const s = surfaceAt(scene, terrain, p) ?? 0;
      return { label: "right foot", bone: arr(p), target: [p.x, s + restPos[1]!.y, p.z], height: h };
    },
    update: () => {
      frames++;
      if (frames > 30 && frames <= 45) worst = Math.max(worst, ...errs());
      if (frames === 45 && run.result === null) run.result = makeResult("ground: worst foot height error (scaled tolerance 2 cm)", worst, h, 0.02 * unit / h);
    },
    dispose: () => grounder.dispose(),
  };
  frameCamera(ctx, c, new Vector3(0, 0.6 * h, 0), 3.6 * h, 0.3, 1);
  ctx.camera.beta = 1.3;
  return run;
}

/** The terrain's height at p's x, z (a ray down), or null. */
function surfaceAt(scene: Scene, meshes: AbstractMesh[], p: Vector3): number | null {
  const ray = new Ray(new Vector3(p.x, p.y + 5, p.z), new Vector3(0, -1, 0), 20);
  const hit = scene.pickWithRay(ray, (m) => meshes.includes(m));
  return hit?.hit === true && hit.pickedPoint !== null ? hit.pickedPoint.y : null;
}

// ---------------------------------------------------------------------------------------------------------------
// crowd: 100 characters, each reaching for its own moving target

async function crowd(ctx: Ctx): Promise<ScenarioRun> {
  const N = 10;
  const scene = ctx.scene;
  const first = ctx.spawn(Vector3.Zero());
  const spacing = 0.9 * first.h;
  const chars: Character[] = [first];
  first.root.position.addInPlace(new Vector3(-((N - 1) / 2) * spacing, 0, -((N - 1) / 2) * spacing));
  for (let i = 1; i < N * N; i++) {
    const x = (i % N) - (N - 1) / 2;
    const z = Math.floor(i / N) - (N - 1) / 2;
    chars.push(ctx.spawn(new Vector3(x * spacing, 0, z * spacing)));
  }
  // shadows from the front row only (a hundred shadow casters are slow on software GL)
  const map = ctx.shadows.getShadowMap();
  if (map !== null) map.renderList = chars.slice(N * (N - 1)).flatMap((c) => c.meshes);
  const targetMat = mat(scene, "target", new Color3(1, 0.8, 0.1));
  targetMat.emissiveColor = new Color3(0.5, 0.35, 0);
  const targets = chars.map((c, i) => {
    const r = c.ik.references;
    const L = armLength(c, false);
    const s = CreateSphere(`target ${i}`, { diameter: 0.04 * c.h, segments: 8 }, scene);
    s.material = targetMat;
    const centre = bonePos(r.rightUpperArm).add(c.forward.scale(0.55 * L)).add(new Vector3(0, -0.1 * L, 0));
    const e = c.ik.solver.rightHandEffector;
    e.target = s;
    e.positionWeight = 1;
    return { s, centre, L, phase: i * 0.7, c };
  });
  let time = 0;
  let frames = 0;
  const place = () => {
    for (const t of targets) {
      const a = time * 1.3 + t.phase;
      t.s.position.copyFrom(t.centre);
      t.s.position.addInPlace(t.c.right.scale(0.3 * t.L * Math.cos(a)));
      t.s.position.y += 0.3 * t.L * Math.sin(a);
    }
  };
  place();
  const c0 = chars[0]!;
  const run: ScenarioRun = {
    result: null,
    probe: () => makeProbe("character 0 right hand", c0.ik.references.rightHand, () => nodePos(targets[0]!.s), c0.h),
    update: (dt) => {
      time += dt;
      place();
      frames++;
      if (frames === 8 && run.result === null) {
        // the hand was solved for last frame's target position: compare with the IK's effector position
        let worst = 0;
        for (const t of targets) {
          const d = Vector3.Distance(bonePos(t.c.ik.references.rightHand), t.c.ik.solver.rightHandEffector.position) / t.c.h;
          worst = Math.max(worst, d);
        }
        run.result = makeResult("crowd: worst of 100 right hands to their targets", worst * c0.h, c0.h, 0.02);
      }
    },
  };
  frameCamera(ctx, first, new Vector3(0, 0.3 * first.h, 0), N * spacing * 1.45, 0.45, 1);
  ctx.camera.beta = 0.95;
  return run;
}

export const CHARACTER_SCENARIOS: Record<Exclude<ScenarioName, "hit">, (ctx: Ctx) => Promise<ScenarioRun>> = { free, grab, climb, ground, crowd };
