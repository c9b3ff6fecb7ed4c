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
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Scene } from "@babylonjs/core/scene";
import type { AssetContainer } from "@babylonjs/core/assetContainer";
import type { Node } from "@babylonjs/core/node";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik";
import type { BabylonChain, BabylonBendConstraint } from "../../src/babylon/babylon-chain";
import type { BabylonEffector } from "../../src/babylon/babylon-effector";
import { Curve } from "../../src/effectors/curve";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik";
import { MovingGroundRaycast } from "../../src/effectors/grounding/moving-ground-raycast";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast";
import { ClimbSequencer, type ClimbStep } from "../../src/effectors/interaction/climb-sequencer";
import { InteractionCurveType } from "../../src/effectors/interaction/interaction-curves";
import { InteractionObject } from "../../src/effectors/interaction/interaction-object";
import { InteractionSystem } from "../../src/effectors/interaction/interaction-system";
import { resolveBipedReferences } from "../../src/babylon/biped-references";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones";

export const SCENARIOS = ["free", "grab", "climb", "ground", "deck", "hit", "crowd"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** Named values a scenario records for the e2e test: numbers, world points `[x, y, z]`, strings, nested. */
export type Json = number | string | boolean | null | Json[] | { [k: string]: Json };

export type Pos = [number, number, number];

export interface Character {
  root: TransformNode;
  skeleton: Skeleton;
  ik: FullBodyBipedIK;
  idle: AnimationGroup | null;
  /** The model's own clips (stopped at spawn), in the container's order. */
  clips: AnimationGroup[];
  /** Index in `clips` of the clip playing instead of the idle, or −1 for the procedural idle. */
  clip: number;
  /** Extra animation groups (the ground scenario's walk-in-place), paused with the idle. */
  extra: AnimationGroup[];
  /** Joint extent in y. */
  h: number;
  /** Horizontal forward (feet to toes). */
  forward: Vector3;
  /** Horizontal left-to-right... the direction from the left shoulder to the right one, horizontal. */
  right: Vector3;
  meshes: AbstractMesh[];
  /** Animation-only world positions of a few bones this frame (read after the animations, before the IK). */
  animated: Partial<Record<KeyBone, Vector3>>;
}

/** Bones whose animation-only pose is kept for the checks. */
export type KeyBone =
  | "pelvis"
  | "chest"
  | "head"
  | "leftShoulder"
  | "rightShoulder"
  | "leftHand"
  | "rightHand"
  | "leftFoot"
  | "rightFoot";

function keyBone(c: Character, k: KeyBone): Bone {
  const r = c.ik.references;
  switch (k) {
    case "pelvis":
      return r.pelvis;
    case "chest":
      return r.spine[r.spine.length - 1]!;
    case "head":
      return r.head ?? r.spine[r.spine.length - 1]!;
    case "leftShoulder":
      return r.leftUpperArm;
    case "rightShoulder":
      return r.rightUpperArm;
    case "leftHand":
      return r.leftHand;
    case "rightHand":
      return r.rightHand;
    case "leftFoot":
      return r.leftFoot;
    case "rightFoot":
      return r.rightFoot;
  }
}

const KEY_BONES: KeyBone[] = [
  "pelvis",
  "chest",
  "head",
  "leftShoulder",
  "rightShoulder",
  "leftHand",
  "rightHand",
  "leftFoot",
  "rightFoot",
];

/** Stores the animation-only pose of the key bones (call after the animations, before the IK solves). */
export function captureAnimated(c: Character): void {
  for (const k of KEY_BONES) c.animated[k] = bonePos(keyBone(c, k));
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
  /**
   * What the scenario recorded at its scripted key moments, from scene objects (bones' world positions,
   * the objects they reach for, raycast ground heights), for the e2e test.
   */
  checks: { [k: string]: Json };
  /** True once every key moment the test needs has been recorded. */
  done: boolean;
  /** The scenario's world targets now (scene objects, not the solver's targets), for the test hook. */
  world?(): Json;
  /** Before the IK solves (after the animations): scripted motion. */
  update?(dt: number): void;
  /** After the IK solved this frame: measurements. */
  after?(): void;
  /** Extra panel content. */
  panel?(el: HTMLElement): void;
  /** Back to the scenario's starting handles/targets (the panel's reset). */
  reset?(): void;
  /** Selection sync with the panel (free scenario): the effector/chain a handle stands for. */
  onSelect?: ((sel: { effector: number | null; chain: number | null }) => void) | null;
  select?(sel: { effector: number | null; chain: number | null }): void;
  /** Scenario commands for the test hook (hit: `auto` on/off). */
  control?(cmd: string, arg?: Json): Json;
  dispose?(): void;
}

/** World position of a node, its ancestors recomputed first (the parents' cached matrices may be stale). */
export function worldPos(n: TransformNode): Vector3 {
  const chain: TransformNode[] = [];
  let p: Node | null = n;
  while (p !== null) {
    if (p instanceof TransformNode) chain.push(p);
    p = p.parent;
  }
  let m: Matrix = n.getWorldMatrix();
  for (let i = chain.length - 1; i >= 0; i--) m = chain[i]!.computeWorldMatrix(true);
  return m.getTranslation();
}

export function bonePos(bone: Bone): Vector3 {
  return worldPos(bone.getTransformNode()!);
}

export const arr = (v: Vector3): Pos => [v.x, v.y, v.z];

/** A gentle procedural idle: the spine sways, both arms swing (keys on the bones' linked nodes). */
function proceduralIdle(scene: Scene, nodes: TransformNode[], name: string): AnimationGroup {
  const group = new AnimationGroup(name, scene);
  nodes.forEach((node, i) => {
    const base = node.rotationQuaternion?.clone() ?? Quaternion.FromEulerVector(node.rotation);
    const anim = new Animation(
      `${name}-${node.name}`,
      "rotationQuaternion",
      30,
      Animation.ANIMATIONTYPE_QUATERNION,
      Animation.ANIMATIONLOOPMODE_CYCLE,
    );
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
    // the IK stores the bones' default pose when it is created: lower the arms first (the references
    // detected without an IK)
    const r = resolveBipedReferences(skeleton).references;
    // arms down from the T-pose (a relaxed stance), checked numerically: a mirrored glTF root can flip the turn
    for (const [upper, lower] of [
      [r.leftUpperArm, r.leftForearm],
      [r.rightUpperArm, r.rightForearm],
    ] as const) {
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
      const parentInv =
        n.parent !== null ? (n.parent as TransformNode).computeWorldMatrix(true).clone().invert() : Matrix.Identity();
      const dp = Vector3.TransformNormal(d0, parentInv).normalize();
      const target = Vector3.TransformNormal(
        d0.scale(Math.cos(angle)).add(Vector3.Cross(axis, d0).scale(Math.sin(angle))),
        parentInv,
      ).normalize();
      const ax = Vector3.Cross(dp, target);
      if (ax.lengthSquared() < 1e-9) continue;
      const turn = Quaternion.RotationAxis(
        ax.normalize(),
        Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(dp, target)))),
      );
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
  const nodes = [r.spine[0], r.leftUpperArm, r.rightForearm]
    .filter((b) => b !== undefined)
    .map((b) => b!.getTransformNode()!);
  const idle = proceduralIdle(ctx.scene, nodes, `idle#${k}`);
  idle.start(true, 1);
  if (ctx.paused()) idle.pause();
  const c: Character = {
    root,
    skeleton,
    ik,
    idle,
    clips: entries.animationGroups,
    clip: -1,
    extra: [],
    h: hi - lo,
    forward,
    right,
    meshes,
    animated: {},
  };
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

/** The bone's world rotation as Babylon decomposes it (the convention of an effector's rotation and target). */
function boneRotation(bone: Bone): Quaternion {
  const node = bone.getTransformNode()!;
  node.computeWorldMatrix(true);
  return node.absoluteRotationQuaternion.clone();
}

/**
 * A cylinder from `a` to `b` (its axis, Y, turned onto the segment), `extra` longer than the segment
 * (half at each end); a segment too short to give a direction keeps the cylinder upright.
 */
function cylinderBetween(scene: Scene, name: string, a: Vector3, b: Vector3, diameter: number, extra = 0): Mesh {
  const d = b.subtract(a);
  const length = d.length();
  const cyl = CreateCylinder(name, { height: length + extra, diameter, tessellation: 12 }, scene);
  cyl.position.copyFrom(a.add(b).scale(0.5));
  cyl.rotationQuaternion =
    length > 1e-9
      ? Quaternion.FromUnitVectorsToRef(Vector3.Up(), d.scale(1 / length), new Quaternion())
      : Quaternion.Identity();
  return cyl;
}

// ---------------------------------------------------------------------------------------------------------------
// free: gizmos on the nine effectors and the four bend goals

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

// ---------------------------------------------------------------------------------------------------------------
// grab: reach for a cup on a table (the body leans in), grasp, lift, hold, put back, on a loop

async function grab(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const L = armLength(c, false);
  const shoulder = bonePos(r.rightUpperArm);
  // the cup beyond arm's reach: the body has to lean in (pull)
  const cupHome = shoulder.add(forward.scale(1.2 * L)).add(right.scale(-0.15 * L));
  const tableTop = shoulder.y - 0.75 * L;
  cupHome.y = tableTop + 0.05 * h;
  const table = CreateBox("table", { width: 0.9 * h, height: 0.04 * h, depth: 0.5 * h }, scene);
  table.rotationQuaternion = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  table.position.copyFrom(cupHome.add(forward.scale(0.12 * h)));
  table.position.y = tableTop - 0.02 * h;
  table.material = mat(scene, "table", new Color3(0.55, 0.38, 0.22));
  const legs: Mesh[] = [];
  for (const [a, b] of [
    [-1, -1],
    [-1, 1],
    [1, -1],
    [1, 1],
  ] as const) {
    const leg = CreateBox("leg", { width: 0.03 * h, height: tableTop, depth: 0.03 * h }, scene);
    leg.position.copyFrom(table.position.add(right.scale(a * 0.42 * h)).add(forward.scale(b * 0.22 * h)));
    leg.position.y = tableTop / 2 - 0.02 * h;
    leg.material = table.material;
    legs.push(leg);
  }
  const cupRadius = 0.035 * h;
  const cup = CreateCylinder("cup", { height: 0.1 * h, diameter: 2 * cupRadius }, scene);
  cup.material = mat(scene, "cup", new Color3(0.85, 0.15, 0.15));
  cup.position.copyFrom(cupHome);
  for (const m of [table, cup, ...legs]) {
    ctx.shadows.addShadowCaster(m, false);
    m.receiveShadows = true;
  }
  // the grip: the hand's target, beside the cup toward the character, turned like the hand at rest
  const grip = new TransformNode("grip", scene);
  grip.parent = cup;
  grip.position.copyFrom(forward.scale(-(cupRadius + 0.015 * h)));
  const handRot = boneRotation(r.rightHand);
  grip.rotationQuaternion = handRot;

  const system = new InteractionSystem(ik);
  const object = new InteractionObject(grip, {
    weightCurves: [
      { type: InteractionCurveType.PositionWeight, curve: Curve.riseHoldFall(0.9, 1.1, 1.9) },
      { type: InteractionCurveType.RotationWeight, curve: Curve.riseHoldFall(0.9, 1.1, 1.9) },
    ],
    events: [{ time: 1.0, pause: true }],
  });
  const RH = FullBodyBipedEffector.RightHand;
  let phase: "reach" | "lift" | "hold" | "down" | "release" | "rest" = "rest";
  let t = 0.5;
  let graspFrames = 0;
  // a pose record: solved bones, their animation-only positions this frame, the cup and the grip
  const record = (): Json => {
    const solved: { [k: string]: Json } = {};
    const animated: { [k: string]: Json } = {};
    for (const k of ["pelvis", "chest", "leftShoulder", "rightShoulder", "leftHand", "rightHand"] as const) {
      solved[k] = arr(bonePos(keyBone(c, k)));
      const a = c.animated[k];
      if (a !== undefined) animated[k] = arr(a);
    }
    return { phase, solved, animated, cup: arr(worldPos(cup)), grip: arr(worldPos(grip)), cupRadius, height: h };
  };
  // the cup lifted a fraction `e` (0: on the table, 1: up and toward the character)
  const liftCup = (e: number) => {
    cup.position.copyFrom(cupHome);
    cup.position.y += 0.15 * h * e;
    cup.position.addInPlace(forward.scale(-0.1 * h * e));
  };
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      cup: arr(worldPos(cup)),
      grip: arr(worldPos(grip)),
      rightHand: arr(bonePos(r.rightHand)),
      leftHand: arr(bonePos(r.leftHand)),
      phase,
      height: h,
    }),
    after: () => {
      // the key moments of the first loop, after this frame's solve
      if (phase === "rest" && t > 0.6 && run.checks.rest === undefined) run.checks.rest = record();
      if (phase === "reach" && system.isPaused(RH) && graspFrames >= 2 && run.checks.grasp === undefined)
        run.checks.grasp = record();
      if (phase === "hold" && t > 0.4 && run.checks.hold === undefined) {
        run.checks.hold = record();
        run.done = run.checks.rest !== undefined && run.checks.grasp !== undefined;
      }
    },
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
            // a few frames holding the cup at the grasp (measured in `after`), then lift
            if (++graspFrames >= 4) {
              phase = "lift";
              t = 0;
            }
          }
          break;
        case "lift": {
          const k = Math.min(1, t / 0.8);
          liftCup(0.5 - 0.5 * Math.cos(Math.PI * k));
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
          liftCup(0.5 + 0.5 * Math.cos(Math.PI * k));
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
  // from the side, a little in front: the reach, the lean and the cup all in view
  const mid = cupHome.add(bonePos(r.pelvis)).scale(0.5);
  mid.y = 0.5 * h;
  frameCamera(ctx, c, mid, 3.6 * h, 1, 0.6);
  ctx.camera.beta = 1.1;
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
  const chestFront = lShoulder
    .add(rShoulder)
    .scale(0.5)
    .add(forward.scale(0.45 * L));
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
  const holds = (x: Vector3, label: string, from: number) =>
    Array.from({ length: RUNGS + 1 }, (_, i) => holdNode(x, from + i, label));
  const lh = holds(lHandX, "L hand", k0);
  const rh = holds(rHandX, "R hand", k0);
  const lf = holds(lFootX, "L foot", 1);
  const rf = holds(rFootX, "R foot", 1);
  // the ladder: rungs at the holds' heights, two rails through the left and right holds (plus a bit)
  const wood = mat(scene, "ladder", new Color3(0.6, 0.45, 0.25));
  const beam = (name: string, from: Vector3, to: Vector3, diameter: number, extra: number) => {
    const cyl = cylinderBetween(scene, name, from, to, diameter, extra);
    cyl.material = wood;
    ctx.shadows.addShadowCaster(cyl, false);
  };
  // rungs through each pair of holds, a bit longer than the span
  for (let i = 0; i <= RUNGS; i++) {
    for (const [a, b] of [
      [lh[i]!, rh[i]!],
      [lf[i]!, rf[i]!],
    ] as const)
      beam("rung", worldPos(a), worldPos(b), 0.03 * h, 0.1 * h);
  }
  // rails: from below the lowest foot rung to above the top hand rung, along each side
  const side = (lst: TransformNode[], lst2: TransformNode[], out: number) => {
    const a = worldPos(lst[0]!).add(c.right.scale(out * 0.05 * h));
    const b = worldPos(lst2[RUNGS]!).add(c.right.scale(out * 0.05 * h));
    const dir = b.subtract(a).normalize();
    const from = a.subtract(dir.scale(a.y / Math.max(0.2, dir.y)));
    const to = b.add(dir.scale(0.1 * h));
    beam("rail", from, to, 0.04 * h, 0);
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
  for (let rung = 1; rung <= RUNGS; rung++)
    order.forEach(([limb, list], i) =>
      steps.push({ time: 0.8 + T * (4 * (rung - 1) + i + 1), limb, hold: list[rung]! }),
    );
  const bones: Record<number, Bone> = { [LH]: r.leftHand, [RH]: r.rightHand, [LF]: r.leftFoot, [RF]: r.rightFoot };
  const limbName: Record<number, string> = { [LH]: "leftHand", [RH]: "rightHand", [LF]: "leftFoot", [RF]: "rightFoot" };
  let system: InteractionSystem | null = null;
  let seq: ClimbSequencer | null = null;
  let restart = 0;
  let loops = 0;
  let finished = false;
  // frames measured (after the solve), to order the recorded moments
  let frame = 0;
  // per limb: the worst bone-to-hold distance while it holds (paused at full weight)
  const worst: Record<string, { hold: number; frames: number; holds: string[] }> = {};
  for (const l of [LH, RH, LF, RF]) worst[limbName[l]!] = { hold: 0, frames: 0, holds: [] };
  // per limb: its hold on the last rung (where the climb ends)
  const top: { [k: string]: Json } = {};
  for (const [limb, list] of order) top[limbName[limb]!] = list[RUNGS]!.name;
  const pelvisStart = bonePos(r.pelvis);
  const holdState = () => {
    const out: { [k: string]: Json } = {};
    for (const limb of [LH, RH, LF, RF]) {
      const hold = seq?.getHold(limb) ?? null;
      const holding =
        hold !== null && system?.isPaused(limb) === true && system.getInteractionEffector(limb).weight >= 1;
      out[limbName[limb]!] = {
        bone: arr(bonePos(bones[limb]!)),
        hold: hold === null ? null : arr(worldPos(hold)),
        holdName: hold?.name ?? null,
        holding,
      };
    }
    return out;
  };
  const startClimb = () => {
    seq?.dispose();
    system?.dispose();
    system = new InteractionSystem(ik);
    seq = new ClimbSequencer(system, { steps, moveTime: 0.45, liftHeight: 0.03 * h });
    seq.onFinished.add(() => {
      if (loops++ === 0) finished = true;
      restart = 1.5;
    });
    seq.start();
  };
  startClimb();
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({ limbs: holdState(), height: h }),
    after: () => {
      // after this frame's solve: every limb paused on its hold at full weight (until the checks are recorded)
      const sys = system;
      if (run.done || seq === null || sys === null) return;
      frame++;
      let all = true;
      for (const limb of [LH, RH, LF, RF]) {
        const hold = seq.getHold(limb);
        if (hold === null || !sys.isPaused(limb) || sys.getInteractionEffector(limb).weight < 1) {
          all = false;
          continue;
        }
        const p = bonePos(bones[limb]!);
        const w = worst[limbName[limb]!]!;
        w.hold = Math.max(w.hold, Vector3.Distance(p, worldPos(hold)));
        w.frames++;
        if (!w.holds.includes(hold.name)) w.holds.push(hold.name);
      }
      // a moment with all four on holds, above the first rung
      if (all && loops === 0 && run.checks.allHolding === undefined && (seq.getHold(RH)?.name ?? "") !== rh[0]!.name)
        run.checks.allHolding = { frame, limbs: holdState() };
      if (finished && all) {
        // the top, after this frame's solve: every limb on the last rung's holds, the body carried up
        finished = false;
        run.checks.finish = {
          frame,
          limbs: holdState(),
          top,
          pelvisStart: arr(pelvisStart),
          pelvis: arr(bonePos(r.pelvis)),
          spacing,
          rungsClimbed: RUNGS,
          height: h,
        };
        run.checks.worst = worst as unknown as Json;
        run.done = run.checks.allHolding !== undefined;
      }
    },
    update: (dt) => {
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
  // from behind and to the side: the back of the climber, hands and feet on the rungs beyond
  frameCamera(ctx, c, new Vector3(0, 0.85 * h, 0).add(forward.scale(0.25 * h)), 4.6 * h, 1, -0.8);
  ctx.camera.beta = 1.25;
  return run;
}

// ---------------------------------------------------------------------------------------------------------------
// ground: the character walks in place while it slides slowly across steps and a ramp (GrounderFBBIK)

/**
 * A walk-in-place: each leg in turn lifts its knee (hip and knee flex about the character's right axis),
 * with a moment of double support between. Keys on the thigh and calf nodes; the turn's order and sign
 * are checked numerically (a mirrored glTF root can flip them).
 */
function walkInPlace(c: Character, scene: Scene, period = 1.2): AnimationGroup {
  const r = c.ik.references;
  const group = new AnimationGroup(`walk ${c.root.name}`, scene);
  const fps = 30;
  const frames = Math.round(period * fps);
  const legs: [Bone, Bone, Bone, number][] = [
    [r.leftThigh, r.leftCalf, r.leftFoot, 0],
    [r.rightThigh, r.rightCalf, r.rightFoot, 0.5],
  ];
  for (const [thigh, calf, foot, offset] of legs) {
    for (const [bone, child, angle, sign] of [
      [thigh, calf, 0.6, 1],
      [calf, foot, 1.1, -1],
    ] as const) {
      const n = bone.getTransformNode()!;
      const base = n.rotationQuaternion?.clone() ?? Quaternion.FromEulerVector(n.rotation);
      const parentInv =
        n.parent !== null ? (n.parent as TransformNode).computeWorldMatrix(true).clone().invert() : Matrix.Identity();
      const axis = Vector3.TransformNormal(c.right, parentInv).normalize();
      // which construction moves the child forward (thigh) / backward (calf) for a positive angle?
      const before = Vector3.Dot(bonePos(child).subtract(bonePos(bone)), c.forward);
      let best: (a: number) => Quaternion = (a) => Quaternion.RotationAxis(axis, a).multiply(base);
      let bestGain = -Infinity;
      for (const make of [
        (a: number) => Quaternion.RotationAxis(axis, a).multiply(base),
        (a: number) => base.multiply(Quaternion.RotationAxis(axis, a)),
        (a: number) => Quaternion.RotationAxis(axis, -a).multiply(base),
        (a: number) => base.multiply(Quaternion.RotationAxis(axis, -a)),
      ]) {
        n.rotationQuaternion = make(0.3);
        const gain = sign * (Vector3.Dot(bonePos(child).subtract(bonePos(bone)), c.forward) - before);
        if (gain > bestGain) {
          bestGain = gain;
          best = make;
        }
      }
      n.rotationQuaternion = base;
      worldPos(n);
      const anim = new Animation(
        `walk ${n.name}`,
        "rotationQuaternion",
        fps,
        Animation.ANIMATIONTYPE_QUATERNION,
        Animation.ANIMATIONLOOPMODE_CYCLE,
      );
      const keys = [];
      for (let f = 0; f <= frames; f += 2) {
        // swing during 42 % of the cycle, standing otherwise
        const p = (f / frames + 1 - offset) % 1;
        const lift = p < 0.42 ? Math.sin((Math.PI * p) / 0.42) : 0;
        keys.push({ frame: f, value: best(angle * lift) });
      }
      anim.setKeys(keys);
      group.addTargetedAnimation(anim, n);
    }
  }
  return group;
}

async function ground(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const feet = [r.leftFoot, r.rightFoot];
  const names = ["leftFoot", "rightFoot"] as const;
  const restPos = feet.map(bonePos);
  const start = c.root.position.clone();
  const centre = restPos[0]!.add(restPos[1]!).scale(0.5);
  centre.y = 0;
  const turn = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  const at = (s: number, lat: number, y: number) =>
    centre
      .add(forward.scale(s))
      .add(right.scale(lat))
      .add(new Vector3(0, y, 0));
  const laneW = 0.44 * h;
  const laneC = 0.24 * h;
  const terrain: Mesh[] = [];
  const stone = mat(scene, "step", new Color3(0.62, 0.6, 0.55));
  const moss = mat(scene, "ramp", new Color3(0.5, 0.6, 0.45));
  // left lane: three blocks, up, up again, down
  const blocks: [number, number, number][] = [
    [0.35, 0.95, 0.07],
    [0.95, 1.6, 0.14],
    [1.6, 2.25, 0.07],
  ];
  blocks.forEach(([s0, s1, y], i) => {
    const b = CreateBox(`step ${i + 1}`, { width: laneW, height: y * h, depth: (s1 - s0) * h }, scene);
    b.rotationQuaternion = turn.clone();
    b.position.copyFrom(at(((s0 + s1) / 2) * h, -laneC, (y * h) / 2));
    b.material = stone;
    terrain.push(b);
  });
  // right lane: a ramp up (0 to 0.1 h over 0.8 h), then a plateau
  const rampS: [number, number] = [0.45, 1.25];
  const rampY = 0.1 * h;
  const rampLen = (rampS[1] - rampS[0]) * h;
  const alpha = Math.atan2(rampY, rampLen);
  const thick = 0.3 * h;
  const ramp = CreateBox("ramp", { width: laneW, height: thick, depth: Math.hypot(rampLen, rampY) }, scene);
  ramp.material = moss;
  const top = at(((rampS[0] + rampS[1]) / 2) * h, laneC, rampY / 2);
  const placeRamp = (sign: number) => {
    ramp.rotationQuaternion = turn.multiply(Quaternion.RotationAxis(Vector3.Right(), sign * alpha));
    const up = Vector3.TransformNormal(Vector3.Up(), Matrix.FromQuaternionToRef(ramp.rotationQuaternion, new Matrix()));
    ramp.position.copyFrom(top.subtract(up.scale(thick / 2)));
    ramp.computeWorldMatrix(true);
  };
  placeRamp(1);
  const hi = surfaceAt(scene, [ramp], at(rampS[1] * h - 0.05 * h, laneC, 0));
  const lo = surfaceAt(scene, [ramp], at(rampS[0] * h + 0.05 * h, laneC, 0));
  if (hi === null || lo === null || hi.y < lo.y) placeRamp(-1);
  terrain.push(ramp);
  const plateau = CreateBox("plateau", { width: laneW, height: rampY, depth: 1.0 * h }, scene);
  plateau.rotationQuaternion = turn.clone();
  plateau.position.copyFrom(at(rampS[1] * h + 0.5 * h, laneC, rampY / 2));
  plateau.material = moss;
  terrain.push(plateau);
  for (const m of terrain) {
    m.receiveShadows = true;
    ctx.shadows.addShadowCaster(m, false);
  }
  const surfaces: AbstractMesh[] = [...terrain, ctx.ground];
  const footRadius = 0.05 * (h / 1.8);
  // the terrain does not move (the character slides over it): its triangles are baked once and probed
  // without Babylon picking, allocation-free
  const grounder = GrounderFBBIK.create(ik, { footRadius, raycast: StaticGroundRaycast.fromMeshes(surfaces).raycast });
  grounder.resetPosition();
  const walk = walkInPlace(c, scene);
  c.extra.push(walk);
  walk.start(true, 1);
  if (ctx.paused()) walk.pause();

  // the slide: forward over the lanes and back, walking in place all the while
  const span = 1.9 * h;
  const speed = 0.18 * h;
  let travel = 0;
  let dir = 1;
  let trips = 0;
  let lastDt = 0;
  // samples: a foot standing (its animation-only height at rest), on one surface for a while, the surface
  // plane-like around it (no edge under the foot)
  const onSurface = [
    { mesh: "", time: 0 },
    { mesh: "", time: 0 },
  ];
  const perSurface: { [k: string]: { count: number; worst: number; ground: number; foot: number; rest: number } }[] = [
    {},
    {},
  ];
  const doubles: Json[] = [];
  const planar = (p: Vector3, g: number): boolean => {
    const f = forward.scale(0.06 * h);
    const l = right.scale(0.03 * h);
    const hf = surfaceAt(scene, surfaces, p.add(f));
    const hb = surfaceAt(scene, surfaces, p.subtract(f));
    const hl = surfaceAt(scene, surfaces, p.subtract(l));
    const hr = surfaceAt(scene, surfaces, p.add(l));
    if (hf === null || hb === null || hl === null || hr === null) return false;
    return (
      Math.abs(hf.y + hb.y - 2 * g) < 0.001 * h && Math.abs(hl.y - g) < 0.001 * h && Math.abs(hr.y - g) < 0.001 * h
    );
  };
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      feet: feetOnSurfaces(scene, surfaces, feet),
      rest: restPos.map((p) => p.y),
      travel,
      height: h,
    }),
    update: (dt) => {
      lastDt = dt;
      travel += dir * speed * dt;
      if (travel > span || travel < 0) {
        travel = Math.max(0, Math.min(span, travel));
        dir = -dir;
        trips++;
      }
      c.root.position.copyFrom(start.add(forward.scale(travel)));
    },
    after: () => {
      // the probes stop once the checks are recorded (the walk and the slide go on in update)
      if (run.done) return;
      const now: ({ foot: number; ground: number; err: number; surface: string } | null)[] = [null, null];
      feet.forEach((f, i) => {
        const p = bonePos(f);
        const g = surfaceAt(scene, surfaces, p);
        const a = c.animated[names[i]!];
        if (g === null || a === undefined) return;
        const o = onSurface[i]!;
        if (o.mesh !== g.mesh) {
          o.mesh = g.mesh;
          o.time = 0;
        } else o.time += lastDt;
        const standing = a.y - restPos[i]!.y < 0.002 * h;
        if (!standing || o.time < 0.6 || !planar(p, g.y)) return;
        // the ankle should stand as high above the surface as it stands above the floor at rest
        const err = p.y - g.y - restPos[i]!.y;
        now[i] = { foot: p.y, ground: g.y, err, surface: g.mesh };
        const rec = (perSurface[i]![g.mesh] ??= { count: 0, worst: 0, ground: g.y, foot: p.y, rest: restPos[i]!.y });
        rec.count++;
        if (Math.abs(err) > Math.abs(rec.worst)) Object.assign(rec, { worst: err, ground: g.y, foot: p.y });
      });
      const [l, rr] = now;
      if (l !== null && rr !== null && Math.abs(l.ground - rr.ground) > 0.03 * h && doubles.length < 12)
        doubles.push({ left: l, right: rr, travel });
      const enough = perSurface.every((m) => Object.keys(m).length >= 3) && doubles.length >= 3;
      if (enough || trips >= 2) {
        run.checks = { perSurface: perSurface as unknown as Json, doubles, tolerance: 0.01 * h, height: h };
        run.done = true;
      }
    },
    dispose: () => grounder.dispose(),
  };
  frameCamera(ctx, c, centre.add(forward.scale(1.0 * h)).add(new Vector3(0, 0.35 * h, 0)), 4.6 * h, 0.9, 0.8);
  ctx.camera.beta = 1.1;
  return run;
}

/** The terrain's height at p's x, z (a ray down) and the surface's name, or null. */
/** Each foot bone's world position, and the height and name of the surface under it (for the test hook). */
function feetOnSurfaces(scene: Scene, surfaces: AbstractMesh[], feet: Bone[]): Json {
  return feet.map((f) => {
    const p = bonePos(f);
    const g = surfaceAt(scene, surfaces, p);
    return { bone: arr(p), ground: g?.y ?? null, surface: g?.mesh ?? null };
  });
}

function surfaceAt(scene: Scene, meshes: AbstractMesh[], p: Vector3): { y: number; mesh: string } | null {
  const ray = new Ray(new Vector3(p.x, p.y + 5, p.z), new Vector3(0, -1, 0), 20);
  const hit = scene.pickWithRay(ray, (m) => meshes.includes(m));
  return hit?.hit === true && hit.pickedPoint !== null && hit.pickedMesh !== null
    ? { y: hit.pickedPoint.y, mesh: hit.pickedMesh.name }
    : null;
}

// ---------------------------------------------------------------------------------------------------------------
// deck: the character stands on a deck that heaves and rolls (GrounderFBBIK with MovingGroundRaycast)

async function deck(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const feet = [r.leftFoot, r.rightFoot];
  const restPos = feet.map(bonePos);
  const centre = restPos[0]!.add(restPos[1]!).scale(0.5);
  centre.y = 0;
  // the deck's top heaves around the height the character stands at, 0.06 h above the floor
  const mean = 0.06 * h;
  const heave = 0.04 * h;
  const roll = (4 * Math.PI) / 180;
  const thick = 0.05 * h;
  const start = c.root.position.clone();
  c.root.position.y += mean;
  const deckMesh = CreateBox("deck", { width: 1.4 * h, height: thick, depth: 1.1 * h }, scene);
  deckMesh.material = mat(scene, "deck", new Color3(0.55, 0.42, 0.3));
  deckMesh.receiveShadows = true;
  ctx.shadows.addShadowCaster(deckMesh, false);
  // a pivot on the deck's top under the feet: it rolls about the character's forward axis
  const pivot = new TransformNode("deck pivot", scene);
  pivot.rotationQuaternion = Quaternion.Identity();
  deckMesh.parent = pivot;
  deckMesh.rotationQuaternion = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  deckMesh.position.y = -thick / 2;
  let time = 0;
  const place = (): void => {
    pivot.position.set(centre.x, mean + heave * Math.sin((2 * Math.PI * time) / 6), centre.z);
    Quaternion.RotationAxisToRef(forward, roll * Math.sin((2 * Math.PI * time) / 7), pivot.rotationQuaternion!);
  };
  place();
  // the deck moves: MovingGroundRaycast follows its world matrix every ray, nothing re-baked
  const grounder = GrounderFBBIK.create(ik, { raycast: MovingGroundRaycast.fromMeshes([deckMesh]).raycast });
  grounder.resetPosition();
  const surfaces: AbstractMesh[] = [deckMesh];
  let worst = 0;
  let frames = 0;
  const footRange = [
    [Infinity, -Infinity],
    [Infinity, -Infinity],
  ];
  const deckRange = [
    [Infinity, -Infinity],
    [Infinity, -Infinity],
  ];
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      feet: feetOnSurfaces(scene, surfaces, feet),
      rest: restPos.map((p) => p.y),
      time,
      height: h,
    }),
    update: (dt) => {
      time += dt;
      place();
    },
    after: () => {
      // once settled (1 s), each ankle should stand as high above the deck under it as above the floor at rest
      if (run.done || time < 1) return;
      frames++;
      feet.forEach((f, i) => {
        const p = bonePos(f);
        const g = surfaceAt(scene, surfaces, p);
        if (g === null) return;
        const err = p.y - g.y - restPos[i]!.y;
        if (Math.abs(err) > Math.abs(worst)) worst = err;
        const fr = footRange[i]!;
        const dr = deckRange[i]!;
        fr[0] = Math.min(fr[0]!, p.y);
        fr[1] = Math.max(fr[1]!, p.y);
        dr[0] = Math.min(dr[0]!, g.y);
        dr[1] = Math.max(dr[1]!, g.y);
      });
      // a full heave (6 s) seen, or enough frames on a slow machine
      if (time > 7 && frames >= 20) {
        run.checks = {
          worst,
          frames,
          footRange: footRange as unknown as Json,
          deckRange: deckRange as unknown as Json,
          tolerance: 0.01 * h,
          height: h,
        };
        run.done = true;
      }
    },
    dispose: () => {
      grounder.dispose();
      c.root.position.copyFrom(start);
    },
  };
  frameCamera(ctx, c, centre.add(new Vector3(0, 0.5 * h, 0)), 4.8 * h, 0.9, 1);
  ctx.camera.beta = 1.25;
  return run;
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
    const s = CreateSphere(`target ${i}`, { diameter: 0.09 * c.h, segments: 8 }, scene);
    s.material = targetMat;
    const centre = bonePos(r.rightUpperArm)
      .add(c.forward.scale(1.05 * L))
      .add(new Vector3(0, -0.3 * L, 0)); // clear of the big head and belly
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
  // hands and the target spheres' world positions (the scene objects, not the effectors)
  const pairs = (): Json =>
    targets.map((t) => ({ hand: arr(bonePos(t.c.ik.references.rightHand)), target: arr(worldPos(t.s)) }));
  const samples: Json[] = [];
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({ pairs: pairs(), height: c0.h }),
    update: (dt) => {
      // before the solve: the IK reaches for where the targets are this frame
      time += dt;
      place();
    },
    after: () => {
      frames++;
      // three moments, the targets elsewhere each time
      if ((frames === 6 || frames === 12 || frames === 18) && !run.done) {
        samples.push({ frame: frames, time, pairs: pairs() });
        if (samples.length === 3) {
          run.checks = { samples, count: chars.length, height: c0.h };
          run.done = true;
        }
      }
    },
  };
  frameCamera(ctx, first, new Vector3(0, 0.3 * first.h, 0), N * spacing * 1.25, 1, 0.8);
  ctx.camera.beta = 1.2;
  return run;
}

export const CHARACTER_SCENARIOS: Record<Exclude<ScenarioName, "hit">, (ctx: Ctx) => Promise<ScenarioRun>> = {
  free,
  grab,
  climb,
  ground,
  deck,
  crowd,
};
