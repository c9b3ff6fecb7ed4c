import { NumberRef } from "../../math/number-ref.js";
import {
  Quat,
  isFiniteQuat,
  normalizeQuat,
  quatFromArray,
  quatToArray,
  rotateVector,
  slerpByRef,
} from "../../math/quat.js";
import { type ReadonlyVec3, Vec3, add, fromArray, isFiniteVec, lerpByRef, toArray } from "../../math/vec3.js";
import { FBBIKError } from "../../solver/errors.js";
import type { IKPose } from "../../solver/pose.js";
import { ColliderStep } from "../joint-colliders.js";
import type { Collider } from "./collider.js";
import { resolveKeepingLengths } from "./keep-lengths.js";
import { pushPointOut, pushSegmentOut } from "./push-out.js";

/** Numbers per collider in the transform store: start position (3), start rotation (4), end (3 + 4). */
const XF = 14;
/** Numbers per placed shape: axis start (3), axis end (3), radius. */
const SHAPE = 7;

const pos = new Vec3();
const rot = new Quat();
const p0 = new Vec3();
const p1 = new Vec3();
const q0 = new Quat();
const q1 = new Quat();
const local = new Vec3();
const world = new Vec3();
const tRef = new NumberRef();

/**
 * Colliders hanging on bones, interpolated over a solver step (seed 004's PrepareSubStep): {@link update}
 * reads the bones' component-space transforms as the step's end (the previous end becomes its start; the
 * first call after construction or {@link reset} sets both), and {@link resolveChain} / {@link resolvePoint}
 * place every collider at `alpha` between start and end (positions lerped, rotations slerped, then the
 * collider's local offsets applied) and push points and segments out of it. Everything per frame is
 * allocation-free.
 *
 * Overlapping colliders are resolved in turns, up to {@link maxPasses} passes over all of them; a point
 * squeezed between two overlapping colliders may end inside one after the last pass.
 */
export class ColliderSet {
  /** The colliders, in the order they are resolved. Their fields may be edited; {@link update} reads them. */
  readonly colliders: readonly Collider[];
  /** Passes over all colliders per resolve call, stopping early once a pass moves nothing. */
  maxPasses = 16;
  /**
   * Keep the chain's segment lengths (default false): {@link resolveChain} then walks the chain from its first
   * joint (never moved) to the tip, turning each segment about its start just far enough out of the colliders,
   * the rest of the chain following (`resolveKeepingLengths`). A solver that rebuilds its joints from
   * bone directions and lengths (the joint frame's sub-steps) then ends exactly where the colliders left it.
   * Otherwise joints and segments are pushed out each the shortest way, which stretches segments. A single
   * point ({@link resolvePoint}) is always pushed the shortest way.
   */
  keepLengths = false;
  /** Segment lengths of the chain being resolved with {@link keepLengths} (grown on first need). */
  private lengths = new Float64Array(0);
  private readonly xf: Float64Array;
  /** Local axis ends (6) and radius (1) per collider, read at update. */
  private readonly locals: Float64Array;
  private readonly shapes: Float64Array;
  private readonly cleared: Float64Array;
  /** 1 where the collider's transforms and radius were finite and valid at the last update. */
  private readonly valid: Uint8Array;
  /** {@link valid} less the colliders a call's step skips. */
  private readonly active: Uint8Array;
  private started = false;
  private placedAlpha = Number.NaN;
  private readonly point = new Float64Array(3);
  /** The numbers of {@link resolveChain} and {@link getPlaced}, as {@link resolveStep} takes them. */
  private readonly step = new ColliderStep();

  /**
   * Holds `colliders` (kept by reference). Throws {@link FBBIKError} naming the collider and bone when a
   * bone id is not a non-negative integer or a radius is negative or not finite.
   */
  constructor(colliders: readonly Collider[]) {
    const problems: string[] = [];
    colliders.forEach((c, i) => {
      if (!Number.isInteger(c.bone) || c.bone < 0) problems.push(`collider ${i}: bone id ${c.bone} is not a bone id`);
      if (!(c.radius >= 0) || c.radius === Infinity) {
        problems.push(`collider ${i} on bone ${c.bone}: radius ${c.radius} is not a finite non-negative number`);
      }
    });
    if (problems.length > 0) throw new FBBIKError(problems, "ColliderSet");
    this.colliders = colliders;
    const n = colliders.length;
    this.xf = new Float64Array(n * XF);
    this.locals = new Float64Array(n * SHAPE);
    this.shapes = new Float64Array(n * SHAPE);
    this.cleared = new Float64Array(n * SHAPE);
    this.valid = new Uint8Array(n);
    this.active = new Uint8Array(n);
  }

  /** Forgets the step's start: the next {@link update} sets both start and end (after a teleport, say). */
  reset(): void {
    this.started = false;
    this.placedAlpha = Number.NaN;
  }

  /**
   * Reads the component-space transforms of the bones the colliders hang on as this step's end; the last
   * end becomes the start. A collider whose bone reads non-finite, or whose radius was edited to a bad
   * value, sits this step out.
   */
  update(pose: Pick<IKPose, "getPosition" | "getRotation">): void {
    const cs = this.colliders;
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i]!;
      const o = i * XF;
      pose.getPosition(c.bone, pos);
      pose.getRotation(c.bone, rot);
      normalizeQuat(rot, rot);
      let ok = isFiniteVec(pos) && isFiniteQuat(rot) && c.radius >= 0 && c.radius < Infinity;
      const lo = i * SHAPE;
      if (c.kind === "sphere") {
        toArray(this.locals, lo, c.offset);
        toArray(this.locals, lo + 3, c.offset);
        ok = ok && isFiniteVec(c.offset);
      } else {
        toArray(this.locals, lo, c.start);
        toArray(this.locals, lo + 3, c.end);
        ok = ok && isFiniteVec(c.start) && isFiniteVec(c.end);
      }
      this.locals[lo + 6] = c.radius;
      if (this.started && this.valid[i] === 1) {
        this.xf.copyWithin(o, o + 7, o + XF);
      } else {
        toArray(this.xf, o, pos);
        quatToArray(this.xf, o + 3, rot);
      }
      toArray(this.xf, o + 7, pos);
      quatToArray(this.xf, o + 10, rot);
      this.valid[i] = ok ? 1 : 0;
    }
    this.started = true;
    this.placedAlpha = Number.NaN;
  }

  /**
   * Pushes the chain's joints (3 numbers each at i·3 of `positions`, `count` joints) and the segments
   * between consecutive joints out of every collider placed at `alpha` ∈ [0, 1] between the step's start
   * and end, keeping `radius` clearance. True when something moved. Joints already clear are left
   * bit-exact. A non-finite or negative `radius`, or no {@link update} yet, moves nothing; a NaN alpha is 0.
   * Per frame, prefer {@link resolveStep}: the numbers handed here may be boxed.
   */
  resolveChain(positions: Float64Array, count: number, radius: number, alpha: number): boolean {
    return this.resolveStep(positions, count, this.stepOf(radius, alpha));
  }

  /** The set's own step holding `radius` and `alpha`: the plain-number calls go through the step ones. */
  private stepOf(radius: number, alpha: number): ColliderStep {
    const step = this.step;
    step.radius = radius;
    step.alpha = alpha;
    return step;
  }

  /**
   * {@link resolveChain} with its clearance and alpha in `step` (no double crosses the call), leaving out the
   * colliders `step.skip` marks.
   */
  resolveStep(positions: Float64Array, count: number, step: ColliderStep): boolean {
    const radius = step.radius;
    if (!this.started || !(radius >= 0) || radius === Infinity) return false;
    const n = Math.min(count, Math.floor(positions.length / 3));
    this.place(step);
    // the shapes with their radii grown by the clearance, so the push routines take no double argument
    const cleared = this.cleared;
    cleared.set(this.shapes);
    for (let c = 0; c < this.colliders.length; c++) cleared[c * SHAPE + 6] += radius;
    const used = this.usedBy(step);
    if (this.keepLengths && n > 1) {
      if (this.lengths.length < n) this.lengths = new Float64Array(n);
      return resolveKeepingLengths(positions, n, this.lengths, cleared, used);
    }
    let moved = false;
    for (let pass = 0; pass < this.maxPasses; pass++) {
      let movedThisPass = false;
      for (let c = 0; c < this.colliders.length; c++) {
        if (used[c] !== 1) continue;
        const o = c * SHAPE;
        for (let j = 0; j < n; j++) {
          if (pushPointOut(positions, j * 3, this.cleared, o)) movedThisPass = true;
        }
        for (let j = 0; j + 1 < n; j++) {
          if (pushSegmentOut(positions, j * 3, j * 3 + 3, this.cleared, o)) movedThisPass = true;
        }
      }
      if (!movedThisPass) break;
      moved = true;
    }
    return moved;
  }

  /** 1 per collider to use in a call of `step`: the valid ones, less those it skips. */
  private usedBy(step: ColliderStep): Uint8Array {
    const skip = step.skip;
    if (skip === null) return this.valid;
    const active = this.active;
    for (let c = 0; c < active.length; c++) active[c] = this.valid[c] === 1 && skip[c] !== 1 ? 1 : 0;
    return active;
  }

  /**
   * Writes into `out` the point `point` pushed out of every collider placed at `alpha`, keeping `radius`
   * clearance (a hand kept on the torso's surface). True when it moved; otherwise `out` is `point` exactly.
   */
  resolvePoint(out: Vec3, point: ReadonlyVec3, radius: number, alpha: number): boolean {
    return this.resolvePointStep(out, point, this.stepOf(radius, alpha));
  }

  /** {@link resolvePoint} with its clearance and alpha in `step` (no double crosses the call). */
  resolvePointStep(out: Vec3, point: ReadonlyVec3, step: ColliderStep): boolean {
    const p = this.point;
    toArray(p, 0, point);
    const moved = this.resolveStep(p, 1, step);
    fromArray(out, p, 0);
    return moved;
  }

  /**
   * Writes collider `index` placed at `alpha` into `outStart` and `outEnd` (its axis ends in component
   * space; equal for a sphere) and returns its radius; NaN when it sat out the last update.
   */
  getPlaced(index: number, alpha: number, outStart: Vec3, outEnd: Vec3): number {
    this.step.alpha = alpha;
    this.place(this.step);
    const o = index * SHAPE;
    fromArray(outStart, this.shapes, o);
    fromArray(outEnd, this.shapes, o + 3);
    return this.valid[index] === 1 ? this.shapes[o + 6]! : Number.NaN;
  }

  /** Places every valid collider at `alpha` into `shapes` (cached while alpha and the step are the same). */
  private place(step: ColliderStep): void {
    const alpha = step.alpha;
    const a = alpha > 0 ? (alpha < 1 ? alpha : 1) : 0;
    if (a === this.placedAlpha) return;
    this.placedAlpha = a;
    tRef.value = a;
    for (let i = 0; i < this.colliders.length; i++) {
      if (this.valid[i] !== 1) continue;
      const x = i * XF;
      fromArray(p0, this.xf, x);
      quatFromArray(q0, this.xf, x + 3);
      fromArray(p1, this.xf, x + 7);
      quatFromArray(q1, this.xf, x + 10);
      lerpByRef(pos, p0, p1, tRef);
      slerpByRef(rot, q0, q1, tRef);
      const lo = i * SHAPE;
      const o = i * SHAPE;
      fromArray(local, this.locals, lo);
      add(world, pos, rotateVector(world, rot, local));
      toArray(this.shapes, o, world);
      fromArray(local, this.locals, lo + 3);
      add(world, pos, rotateVector(world, rot, local));
      toArray(this.shapes, o + 3, world);
      this.shapes[o + 6] = this.locals[lo + 6]!;
    }
  }
}
