/**
 * The solvers issue 19 compares on the biped problem (test/helpers/biped-problem.ts), each on a biped of its own
 * and driven as `scene.render()` drives it: FullBodyBipedIK (ours), JacobianIK over the whole body (the
 * reference), and four Babylon BoneIKControllers (limbs only). `solve(sets, s)` is one whole frame on set `s`.
 */
import { BoneIKController } from "@babylonjs/core/Bones/boneIKController.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { BabylonEffector } from "../../src/babylon/babylon-effector.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { JacobianIK, type JacobianIKEffector, type JacobianIKJoint } from "../../src/babylon/jacobian-ik.js";
import { type BipedScene, LIMBS, SET_STRIDE, bipedScene } from "./biped-problem.js";
import type { BipedTargetSets } from "./biped-target-sets.js";

/** One solver on its own biped. */
export interface BipedSolver {
  /** Short name, as printed. */
  readonly label: string;
  /** What runs, in full. */
  readonly name: string;
  /** Its biped. */
  readonly biped: BipedScene;
  /** One whole frame on set `s` of `sets` (targets set, then what `scene.render()` makes the solver do). */
  solve(sets: BipedTargetSets, s: number): void;
  dispose(): void;
}

/** Advances the scene's frame id (what `scene.render()` does first; the IK skips a second update per frame). */
export function advanceFrame(scene: Scene): void {
  (scene as unknown as { _frameId: number })._frameId++;
}

/** Notifies the observables `scene.render()` notifies around the IK: FixTransforms, then the solve. */
export function notifyFrame(scene: Scene): void {
  scene.onBeforeAnimationsObservable.notifyObservers(scene);
  scene.onBeforeRenderObservable.notifyObservers(scene);
  scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
}

/** Options of {@link FbbikBipedSolver}. */
export interface FbbikBipedOptions {
  /** Solver iterations (default 4, FinalIK's default). */
  iterations?: number;
  /** Also compute the skeleton's absolute matrices after the solve (what the render does next). */
  worldMatrices?: boolean;
  /** Solver settings beyond the defaults, and a tag naming them in the label. */
  settings?: { iterationTolerance?: number; maxIterations?: number; preserveBoneLengths?: boolean };
  tag?: string;
  /** The solver's `iterationTolerance` (default: the solver's, 1e-5; 0 runs exactly `iterations`, as FinalIK). */
  iterationTolerance?: number;
}

/**
 * Ours: FullBodyBipedIK with its defaults, `iterations` 4, the pelvis on the body effector and both hands and feet
 * at position weight 1 (rotation weights 0). The root node is the pelvis: the detected one (as FinalIK detects it)
 * is the spine bone above it, and the body effector drives the root node, so a pelvis target would land 10 cm low.
 */
export class FbbikBipedSolver implements BipedSolver {
  readonly label: string;
  readonly name: string;
  readonly biped: BipedScene;
  /** The component. */
  readonly ik: FullBodyBipedIK;
  private readonly effectors: BabylonEffector[];
  private readonly worldMatrices: boolean;

  constructor(options: FbbikBipedOptions = {}) {
    this.biped = bipedScene();
    this.ik = FullBodyBipedIK.create(this.biped.scene, this.biped.skeleton, { rootNode: "Hips" });
    const s = this.ik.solver;
    s.iterations = options.iterations ?? 4;
    Object.assign(s, options.settings ?? {});
    if (options.iterationTolerance !== undefined) s.iterationTolerance = options.iterationTolerance;
    this.worldMatrices = options.worldMatrices ?? false;
    this.effectors = [s.bodyEffector, s.leftHandEffector, s.rightHandEffector, s.leftFootEffector, s.rightFootEffector];
    for (const e of this.effectors) e.positionWeight = 1;
    const it = s.iterations;
    const tolerance = options.iterationTolerance !== undefined ? `, tolerance ${options.iterationTolerance}` : "";
    const tag = `${options.tag !== undefined ? `, ${options.tag}` : ""}${tolerance}`;
    this.label = `ours FBBIK, iterations ${it}${tag}${this.worldMatrices ? " + matrices" : ""}`;
    this.name =
      `ours: FullBodyBipedIK (defaults but rootNode = the pelvis, so the body effector is the pelvis; iterations ` +
      `${it}${tag}; body, hands and feet position weight 1), whole Babylon ` +
      `frame (FixTransforms, read, solve, write)${this.worldMatrices ? " + skeleton.computeAbsoluteMatrices()" : ""}`;
  }

  solve(sets: BipedTargetSets, s: number): void {
    const scene = this.biped.scene;
    advanceFrame(scene);
    const t = sets.targets;
    const o = s * SET_STRIDE;
    for (let e = 0; e < 5; e++) this.effectors[e]!.position.set(t[o + 3 * e]!, t[o + 3 * e + 1]!, t[o + 3 * e + 2]!);
    notifyFrame(scene);
    if (this.worldMatrices) this.biped.skeleton.computeAbsoluteMatrices();
  }

  dispose(): void {
    this.ik.dispose();
    this.biped.dispose();
  }
}

/** Places the pelvis bone on set `s`'s pelvis target (its parent, the root, is the identity at the origin). */
function placePelvis(biped: BipedScene, sets: BipedTargetSets, s: number, scratch: Vector3): void {
  const o = s * SET_STRIDE;
  scratch.set(sets.targets[o]!, sets.targets[o + 1]!, sets.targets[o + 2]!);
  biped.bone("Hips").position = scratch;
}

/**
 * The reference: JacobianIK (damped least squares, 100 iterations, tolerance 0) on the whole body: pelvis, spine,
 * chest, clavicles, upper and lower limbs free in three axes, no limits; hands and feet at weight 1. Our Jacobian
 * turns joints but has no translation, so the pelvis bone is placed on its target (the body effector's exact
 * answer) and the hips turn freely: "hips free" in rotation.
 */
export class JacobianBipedSolver implements BipedSolver {
  readonly label = "JacobianIK, whole body";
  readonly name =
    "JacobianIK (damped least squares, maxIterations 100, tolerance 0) over pelvis, spine, chest, clavicles and " +
    "limbs (3 free axes each, no limits), hands and feet weight 1; the pelvis bone placed on its target; whole " +
    "Babylon frame";
  readonly biped: BipedScene;
  /** The component. */
  readonly ik: JacobianIK;
  private readonly effectors: JacobianIKEffector[];
  private readonly pelvis = new Vector3();

  constructor() {
    this.biped = bipedScene();
    const b = this.biped;
    const names = ["Hips", "Spine", "Chest"];
    for (const side of ["L", "R"])
      names.push(`Clavicle.${side}`, `UpperArm.${side}`, `Forearm.${side}`, `Hand.${side}`);
    for (const side of ["L", "R"]) names.push(`Thigh.${side}`, `Calf.${side}`, `Foot.${side}`);
    const bones = names.map((n) => b.bone(n));
    const ends = LIMBS.map((l) => l[2] as string);
    const joints: JacobianIKJoint[] = names.map((n) => (ends.includes(n) ? { locked: true } : {}));
    this.ik = JacobianIK.create(b.scene, bones, {
      joints,
      effectors: ends.map((n) => ({ bone: b.bone(n) })),
      maxIterations: 100,
    });
    this.effectors = this.ik.effectors;
    for (const e of this.effectors) e.position = new Vector3();
  }

  solve(sets: BipedTargetSets, s: number): void {
    const b = this.biped;
    advanceFrame(b.scene);
    placePelvis(b, sets, s, this.pelvis);
    const t = sets.targets;
    const o = s * SET_STRIDE;
    for (let e = 0; e < 4; e++)
      this.effectors[e]!.position!.set(t[o + 3 * e + 3]!, t[o + 3 * e + 4]!, t[o + 3 * e + 5]!);
    notifyFrame(b.scene);
  }

  dispose(): void {
    this.ik.dispose();
    this.biped.dispose();
  }
}

/**
 * Babylon's BoneIKController on each limb (limbs only): the pelvis bone placed on its target, then each
 * controller's target set and `update()` (they rebuild the limb from scratch every call). Poles: knees forward,
 * elbows back and down, fixed in world space.
 */
export class BoneIKBipedSolver implements BipedSolver {
  readonly label = "Babylon BoneIKController ×4";
  readonly name =
    "Babylon BoneIKController on each forearm and calf (limbs only; pelvis bone placed on its target); frame = " +
    "pelvis placed + 4 × (target set + update())";
  readonly biped: BipedScene;
  private readonly controllers: BoneIKController[];
  private readonly pelvis = new Vector3();

  constructor() {
    this.biped = bipedScene();
    const b = this.biped;
    b.skeleton.computeAbsoluteMatrices(true);
    this.controllers = LIMBS.map(([upper, middle]) => {
      const ctl = new BoneIKController(b.mesh, b.bone(middle));
      const leg = upper.startsWith("Thigh");
      const at = b.bone(middle).getAbsolutePosition(b.mesh);
      ctl.poleTargetPosition.copyFrom(at.add(leg ? new Vector3(0, 0, 1) : new Vector3(0, -0.5, -1)));
      return ctl;
    });
  }

  solve(sets: BipedTargetSets, s: number): void {
    const b = this.biped;
    placePelvis(b, sets, s, this.pelvis);
    const t = sets.targets;
    const o = s * SET_STRIDE;
    for (let e = 0; e < 4; e++) {
      const ctl = this.controllers[e]!;
      ctl.targetPosition.set(t[o + 3 * e + 3]!, t[o + 3 * e + 4]!, t[o + 3 * e + 5]!);
      ctl.update();
    }
  }

  dispose(): void {
    this.biped.dispose();
  }
}
