/**
 * Issue 19's mocap rebuild: how well five effectors rebuild a clip's pose. For each sampled frame of each clip of
 * a model: the clip's pose is the truth; its pelvis position and its hands' and feet's positions and rotations
 * (world) become the targets; the skeleton is reset to the clip's first frame (the solve starts from it) and
 * solved; the error is the mean distance of the biped's bones (pelvis, spine, head, clavicles, limbs) from the
 * truth, % of the character's height (its joints' vertical extent as loaded).
 *
 * Two solvers, each on its own copy of the model: FullBodyBipedIK (defaults, iterations 4; the pelvis is the root
 * node, so the body effector is the pelvis; body position weight 1; hands and feet position and rotation weight 1)
 * and four LimbIKs (src/babylon/limb-ik.ts; ikRotationWeight 1, the animated bend of the first frame) with the
 * pelvis placed on its target (position only, the first frame's rotation kept).
 */
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { BabylonEffector } from "../../src/babylon/babylon-effector.js";
import { type BipedReferences, resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { ALL_CLIPS, type LoadedModel, type ModelName, loadModel } from "./babylon-scene.js";
import { height } from "./scene-probes.js";

/** Options of {@link mocapRebuild}. */
export interface MocapRebuildOptions {
  /** Frames sampled per clip, at (k + ½) / n of its length (default 16). */
  framesPerClip?: number;
  /** Only these clips (default: every clip of the model). */
  clips?: readonly string[];
  /** FullBodyBipedIK iterations (default 4). */
  iterations?: number;
  /**
   * FullBodyBipedIK's root node, the bone the body effector drives: "pelvis" (default; the body effector takes the
   * pelvis's position) or "detected" (FinalIK's choice, a spine bone on these rigs; the body effector then takes
   * that bone's position from the clip).
   */
  rootNode?: "pelvis" | "detected";
  /** The body effector also takes the root node's rotation from the clip (rotationWeight 1; default false). */
  bodyRotation?: boolean;
}

/** One clip's figures. */
export interface ClipRebuild {
  clip: string;
  /** Frames sampled. */
  frames: number;
  /** FullBodyBipedIK: mean joint error, % of height. */
  fbbikPercent: number;
  /** Four LimbIKs with the pelvis placed: mean joint error, % of height. */
  limbPercent: number;
  /** FullBodyBipedIK: mean distance of the hands and feet from their targets, % of height. */
  fbbikEffectorPercent: number;
  /** The LimbIKs: the same. */
  limbEffectorPercent: number;
}

/** A model's figures. */
export interface MocapRebuildResult {
  model: ModelName;
  /** The character's height (joints' vertical extent as loaded), world units. */
  height: number;
  /** The bones measured. */
  bones: string[];
  /** FullBodyBipedIK: each measured bone's mean error over every sampled frame, % of height. */
  fbbikBonePercent: number[];
  /** Root node FullBodyBipedIK was built with (see {@link MocapRebuildOptions.rootNode}). */
  rootNode: string;
  /** Warnings FullBodyBipedIK raised while attaching. */
  warnings: string[];
  clips: ClipRebuild[];
  /** Frames over all clips. */
  frames: number;
  /** Means over every sampled frame of every clip, % of height. */
  fbbikPercent: number;
  limbPercent: number;
  fbbikEffectorPercent: number;
  limbEffectorPercent: number;
  /** Largest per-frame mean joint error of FullBodyBipedIK, % of height. */
  fbbikWorstFramePercent: number;
}

/** The biped's bones that are measured (pelvis, spine, head, clavicles, limbs). */
function measuredBones(r: BipedReferences): Bone[] {
  const limbs = [r.leftThigh, r.leftCalf, r.leftFoot, r.rightThigh, r.rightCalf, r.rightFoot];
  limbs.push(r.leftUpperArm, r.leftForearm, r.leftHand, r.rightUpperArm, r.rightForearm, r.rightHand);
  const list = [r.pelvis, ...r.spine, ...(r.head ? [r.head] : []), ...limbs];
  for (const c of [r.leftClavicle, r.rightClavicle]) if (c !== null && !list.includes(c)) list.push(c);
  return list;
}

/** Every linked node's local pose, to put the skeleton back into it. */
class LocalPose {
  private readonly values: Array<[Vector3, Quaternion, Vector3]>;

  constructor(private readonly nodes: TransformNode[]) {
    this.values = nodes.map((n) => [n.position.clone(), n.rotationQuaternion!.clone(), n.scaling.clone()]);
  }

  apply(): void {
    this.nodes.forEach((n, i) => {
      const [p, q, s] = this.values[i]!;
      n.position.copyFrom(p);
      n.rotationQuaternion!.copyFrom(q);
      n.scaling.copyFrom(s);
    });
  }
}

/** World positions of `nodes` (forced: each recomputes its ancestors), into `out` (3 per node). */
function worldPositions(nodes: TransformNode[], out: Float64Array): void {
  nodes.forEach((n, i) => {
    const p = n.computeWorldMatrix(true).getTranslation();
    out[3 * i] = p.x;
    out[3 * i + 1] = p.y;
    out[3 * i + 2] = p.z;
  });
}

function meanDistance(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  const n = a.length / 3;
  for (let i = 0; i < n; i++)
    sum += Math.hypot(a[3 * i]! - b[3 * i]!, a[3 * i + 1]! - b[3 * i + 1]!, a[3 * i + 2]! - b[3 * i + 2]!);
  return sum / n;
}

/** A model with its biped references and the nodes of its bones. */
interface Character {
  model: LoadedModel;
  refs: BipedReferences;
  /** Every bone's linked node. */
  nodes: TransformNode[];
  /** The measured bones' nodes. */
  measured: TransformNode[];
  node(bone: Bone): TransformNode;
}

async function character(name: ModelName): Promise<Character> {
  const model = await loadModel(name, { clips: ALL_CLIPS });
  model.scene.render();
  const refs = resolveBipedReferences(model.skeleton).references;
  const node = (b: Bone): TransformNode => {
    const n = b.getTransformNode();
    if (n === null) throw new Error(`${name}: bone ${b.name} has no linked node`);
    return n;
  };
  const nodes = model.skeleton.bones.map(node);
  for (const n of nodes) n.rotationQuaternion ??= Quaternion.FromEulerVector(n.rotation);
  return { model, refs, nodes, measured: measuredBones(refs).map(node), node };
}

/** The clip of `c` named `name`, started and paused (posed by goToFrame). */
function clipOf(c: Character, name: string): AnimationGroup {
  const g = c.model.container.animationGroups.find((a) => a.name === name);
  if (g === undefined) throw new Error(`${c.model.skeleton.name}: no clip ${name}`);
  g.start(true);
  g.pause();
  return g;
}

/** Rebuilds `name`'s clips from five effectors with FullBodyBipedIK and with four LimbIKs (pelvis placed). */
export async function mocapRebuild(name: ModelName, options: MocapRebuildOptions = {}): Promise<MocapRebuildResult> {
  const a = await character(name);
  const b = await character(name);
  try {
    return rebuild(name, a, b, options);
  } finally {
    a.model.dispose();
    b.model.dispose();
  }
}

function rebuild(name: ModelName, a: Character, b: Character, options: MocapRebuildOptions): MocapRebuildResult {
  const h = height(a.model);
  const ra = a.refs;
  const detected = options.rootNode === "detected";
  const ik = FullBodyBipedIK.create(a.model.scene, a.model.skeleton, {
    autoUpdate: false,
    ...(detected ? {} : { rootNode: ra.pelvis }),
  });
  ik.solver.iterations = options.iterations ?? 4;
  const s = ik.solver;
  s.bodyEffector.positionWeight = 1;
  s.bodyEffector.rotationWeight = options.bodyRotation === true ? 1 : 0;
  const ends: BabylonEffector[] = [s.leftHandEffector, s.rightHandEffector, s.leftFootEffector, s.rightFootEffector];
  for (const e of ends) {
    e.positionWeight = 1;
    e.rotationWeight = 1;
  }
  const rb = b.refs;
  const limbBones: Array<[Bone, Bone, Bone]> = [
    [rb.leftUpperArm, rb.leftForearm, rb.leftHand],
    [rb.rightUpperArm, rb.rightForearm, rb.rightHand],
    [rb.leftThigh, rb.leftCalf, rb.leftFoot],
    [rb.rightThigh, rb.rightCalf, rb.rightFoot],
  ];
  const limbs = limbBones.map(([u, m, e]) => {
    const limb = LimbIK.create(b.model.scene, u, m, e, { autoUpdate: false });
    limb.solver.ikRotationWeight = 1;
    return limb;
  });
  const endNodes = [ra.leftHand, ra.rightHand, ra.leftFoot, ra.rightFoot].map(a.node);
  const endNodesB = [rb.leftHand, rb.rightHand, rb.leftFoot, rb.rightFoot].map(b.node);
  const pelvisA = a.node(ra.pelvis);
  const bodyA = a.node(ik.rootNode);
  const pelvisB = b.node(rb.pelvis);
  const n = a.measured.length;
  const truth = new Float64Array(3 * n);
  const solved = new Float64Array(3 * n);
  const endTruth = new Float64Array(12);
  const endSolved = new Float64Array(12);
  const pelvis = new Vector3();
  const inv = new Matrix();
  const local = new Vector3();
  const perFrame = options.framesPerClip ?? 16;
  const boneSums = new Float64Array(n);
  let sampled = 0;
  const names = options.clips ?? a.model.container.animationGroups.map((g) => g.name);
  const clips: ClipRebuild[] = [];
  let worstFrame = 0;
  for (const clip of names) {
    const ga = clipOf(a, clip);
    const gb = clipOf(b, clip);
    ga.goToFrame(ga.from);
    gb.goToFrame(gb.from);
    const firstA = new LocalPose(a.nodes);
    const firstB = new LocalPose(b.nodes);
    let fb = 0;
    let lb = 0;
    let ef = 0;
    let el = 0;
    for (let k = 0; k < perFrame; k++) {
      const frame = ga.from + ((ga.to - ga.from) * (k + 0.5)) / perFrame;
      ga.goToFrame(frame);
      worldPositions(a.measured, truth);
      worldPositions(endNodes, endTruth);
      pelvis.copyFrom(pelvisA.computeWorldMatrix(true).getTranslation());
      s.bodyEffector.position.copyFrom(bodyA.computeWorldMatrix(true).getTranslation());
      s.bodyEffector.rotation.copyFrom(bodyA.absoluteRotationQuaternion);
      ends.forEach((e, i) => {
        e.position.copyFrom(endNodes[i]!.absolutePosition);
        e.rotation.copyFrom(endNodes[i]!.absoluteRotationQuaternion);
      });
      // the solve starts from the clip's first frame
      firstA.apply();
      ik.update();
      worldPositions(a.measured, solved);
      const err = meanDistance(truth, solved) / h;
      for (let i = 0; i < n; i++) {
        const o = 3 * i;
        const dx = truth[o]! - solved[o]!;
        const dy = truth[o + 1]! - solved[o + 1]!;
        const dz = truth[o + 2]! - solved[o + 2]!;
        boneSums[i]! += Math.sqrt(dx * dx + dy * dy + dz * dz) / h;
      }
      sampled++;
      fb += err;
      worstFrame = Math.max(worstFrame, err);
      worldPositions(endNodes, endSolved);
      ef += meanDistance(endTruth, endSolved) / h;
      // four LimbIKs on the other copy, the pelvis placed on its target
      firstB.apply();
      pelvisB.parent!.computeWorldMatrix(true).invertToRef(inv);
      Vector3.TransformCoordinatesToRef(pelvis, inv, local);
      pelvisB.position.copyFrom(local);
      limbs.forEach((limb, i) => {
        limb.targetPosition.copyFrom(ends[i]!.position);
        limb.targetRotation.copyFrom(ends[i]!.rotation);
        limb.update();
      });
      worldPositions(b.measured, solved);
      lb += meanDistance(truth, solved) / h;
      worldPositions(endNodesB, endSolved);
      el += meanDistance(endTruth, endSolved) / h;
    }
    ga.stop();
    gb.stop();
    clips.push({
      clip,
      frames: perFrame,
      fbbikPercent: (100 * fb) / perFrame,
      limbPercent: (100 * lb) / perFrame,
      fbbikEffectorPercent: (100 * ef) / perFrame,
      limbEffectorPercent: (100 * el) / perFrame,
    });
  }
  const mean = (f: (c: ClipRebuild) => number) => clips.reduce((sum, c) => sum + f(c), 0) / clips.length;
  const result: MocapRebuildResult = {
    model: name,
    height: h,
    bones: a.measured.map((x) => x.name),
    fbbikBonePercent: Array.from(boneSums, (v) => (100 * v) / sampled),
    rootNode: ik.rootNode.name,
    warnings: ik.warningsRaised.map((w) => w.message),
    clips,
    frames: clips.length * perFrame,
    fbbikPercent: mean((c) => c.fbbikPercent),
    limbPercent: mean((c) => c.limbPercent),
    fbbikEffectorPercent: mean((c) => c.fbbikEffectorPercent),
    limbEffectorPercent: mean((c) => c.limbEffectorPercent),
    fbbikWorstFramePercent: 100 * worstFrame,
  };
  ik.dispose();
  for (const limb of limbs) limb.dispose();
  return result;
}
