/**
 * The tentacle's IK (demo/src/scenarios/tail.ts), one of three solvers on the same chain, target, limits and ball:
 * CCDIK and FABRIK take the links' RotationLimits and the ball as a collider; JacobianIK takes per-axis angle ranges
 * inside the limit (demo/src/tentacle-limits.ts) and has no colliders. Switching disposes one component and creates
 * the other from the links' rest pose; the panel's IK switch sees one component throughout (this object).
 */
import type { Scene } from "@babylonjs/core/scene";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { BoneCollider } from "../../src/babylon/bone-collider";
import { CCDIK, FABRIK } from "../../src/babylon/chain-ik";
import { JacobianIK } from "../../src/babylon/jacobian-ik";
import type { RotationLimit } from "../../src/joints/limits/rotation-limit";
import type { IKSwitch } from "./kit";
import type { Tentacle } from "./props/tentacle";
import { CONE, type LimitFrame, NONE, jacobianJointFor, limitFor } from "./tentacle-limits";

/** The solvers the panel offers, in its order. */
export const SOLVERS = ["CCDIK", "FABRIK", "JacobianIK"] as const;
export const JACOBIAN = 2;
/**
 * Each solver's iterations at start (CCD's as before). FABRIK's 40: on the orbit (test/helpers/ball-orbit.ts) 20
 * leave 6 of 64 samples over 1 % of the chain off (4.6 % at worst) where the chain bends round the ball, 30 leave
 * 1 (1.3 %), 40 none; JacobianIK's default 100 (it stops at the tolerance).
 */
const ITERATIONS = [20, 40, 100];
/** The iterations slider's top, per solver. */
export const MAX_ITERATIONS = [40, 100, 200];
/** The links' bend limit as built (degrees). */
const DEFAULT_BEND = 28;

/** What the tentacle's IK is built from. */
export interface TentacleIKSetup {
  scene: Scene;
  tentacle: Tentacle;
  target: TransformNode;
  /** The ball's collider (CCDIK and FABRIK). */
  collider: BoneCollider;
  /** Where the limits point. */
  frame: LimitFrame;
  /** Clearance kept from the ball. */
  colliderRadius: number;
  /** Stop once the tip is this close to the target (world units). */
  tolerance: number;
}

/** The tentacle's IK: the current solver's component, rebuilt when the solver or (JacobianIK) a limit changes. */
export class TentacleIK implements IKSwitch {
  /** Index in {@link SOLVERS}. */
  solver = 0;
  /** Index in the limit shapes (tentacle-limits.ts). */
  shape = CONE;
  /** The links' bend limit in degrees (the root's is 45°). */
  bend = DEFAULT_BEND;
  /** Per link, the RotationLimit it is held to (the JacobianIK's box lies inside it), null for none. */
  readonly limits: (RotationLimit | null)[] = [];
  component: CCDIK | FABRIK | JacobianIK;
  private readonly iterations = [...ITERATIONS];
  private afterColliders = true;
  private switchedOff = false;
  private fadeSeconds = 0;

  constructor(private readonly setup: TentacleIKSetup) {
    this.component = this.create();
  }

  /** The component's `enabled`, kept across a switch (the panel's IK switch). */
  get enabled(): boolean {
    return !this.switchedOff;
  }
  set enabled(on: boolean) {
    this.switchedOff = !on;
    this.component.enabled = on;
  }

  get enableFadeSeconds(): number {
    return this.fadeSeconds;
  }
  set enableFadeSeconds(s: number) {
    this.fadeSeconds = s;
    this.component.enableFadeSeconds = s;
  }

  get isFading(): boolean {
    return this.component.isFading;
  }

  /** The current solver's most iterations per frame. */
  get maxIterations(): number {
    return this.iterations[this.solver]!;
  }
  set maxIterations(n: number) {
    this.iterations[this.solver] = n;
    const c = this.component;
    if (c instanceof JacobianIK) c.solver.maxIterations = n;
    else c.solver.maxIterations = n;
  }

  /** Whether the limits clamp the collider's push (CCDIK and FABRIK; JacobianIK has no colliders). */
  get limitsAfterColliders(): boolean {
    return this.afterColliders;
  }
  set limitsAfterColliders(on: boolean) {
    this.afterColliders = on;
    const c = this.component;
    if (!(c instanceof JacobianIK)) c.solver.limitsAfterColliders = on;
  }

  /** True when the ball is a collider for the current solver. */
  get collides(): boolean {
    return this.solver !== JACOBIAN;
  }

  /** Switches to solver `i`: the old component disposed, the new one created. */
  setSolver(i: number): void {
    this.solver = i;
    this.rebuild();
  }

  /** Sets the links' limit shape and bend (JacobianIK's ranges are fixed at creation: it is created again). */
  setLimits(shape: number, bend: number): void {
    this.shape = shape;
    this.bend = bend;
    const c = this.component;
    if (c instanceof JacobianIK) {
      this.rebuild();
      return;
    }
    this.fillLimits();
    for (let i = 0; i < this.limits.length; i++) c.solver.setLimit(i, this.limits[i]!);
    c.solver.useRotationLimits = shape !== NONE;
  }

  /** Every setting back to how it was built (CCDIK, its iterations, a cone of 28°, limits after colliders). */
  reset(): void {
    this.iterations.splice(0, ITERATIONS.length, ...ITERATIONS);
    this.afterColliders = true;
    this.shape = CONE;
    this.bend = DEFAULT_BEND;
    this.solver = 0;
    this.rebuild();
  }

  dispose(): void {
    this.component.dispose();
  }

  private rebuild(): void {
    this.component.dispose();
    this.component = this.create();
  }

  private fillLimits(): void {
    const links = this.setup.tentacle.chain.length - 1;
    for (let i = 0; i < links; i++) this.limits[i] = limitFor(this.shape, i, this.bend, this.setup.frame);
  }

  /** The current solver's component, from the links at rest (what its limits and angles are measured from). */
  private create(): CCDIK | FABRIK | JacobianIK {
    const { scene, tentacle, target, collider, colliderRadius, tolerance, frame } = this.setup;
    for (const n of tentacle.nodes) n.rotationQuaternion!.set(0, 0, 0, 1);
    this.fillLimits();
    const chain = tentacle.chain;
    const maxIterations = this.iterations[this.solver]!;
    let c: CCDIK | FABRIK | JacobianIK;
    if (this.solver === JACOBIAN) {
      // the tip joint has no segment after it: locked, so its three angles do not slow every iteration
      const joints = chain.map((_, i) =>
        i === chain.length - 1 ? { locked: true } : jacobianJointFor(this.shape, i, this.bend, frame),
      );
      c = JacobianIK.create(scene, chain, {
        effectors: [{ bone: chain[chain.length - 1]!, target }],
        joints,
        maxIterations,
        tolerance,
      });
    } else {
      const make = this.solver === 0 ? CCDIK.create : FABRIK.create;
      const ik = make(scene, chain, { target, maxIterations, tolerance, colliders: [collider] });
      ik.solver.subSteps = 2;
      ik.solver.colliderRadius = colliderRadius;
      ik.solver.limitsAfterColliders = this.afterColliders;
      for (let i = 0; i < this.limits.length; i++) ik.solver.setLimit(i, this.limits[i]!);
      ik.solver.useRotationLimits = this.shape !== NONE;
      c = ik;
    }
    c.enableFadeSeconds = this.fadeSeconds;
    c.enabled = !this.switchedOff;
    return c;
  }
}
