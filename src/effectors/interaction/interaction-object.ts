import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { type Curve, CurveIO } from "../../math/curve.js";
import { FullBodyBipedEffector } from "../../solver/biped-bones.js";
import type { InteractionCurveType } from "./interaction-curves.js";
import { InteractionTarget, type InteractionTargetOptions } from "./interaction-target.js";
import { type OptionKinds, checkLoggedOptions } from "../../babylon/option-check.js";

/** A curve driving one channel over the interaction's time (seconds). */
export interface InteractionWeightCurve {
  /** The channel. */
  type: InteractionCurveType;
  /** Value over time. */
  curve: Curve;
}

/** Reuses a weight curve for another channel, scaled (FinalIK's InteractionObject.Multiplier). */
export interface InteractionMultiplier {
  /** Index of the source curve in {@link InteractionObject.weightCurves}. */
  curve: number;
  /** Scale of the source curve's value (default 1). */
  multiplier?: number;
  /** The channel the scaled value drives. */
  result: InteractionCurveType;
}

/** Something that happens once when the interaction's timer reaches `time`. */
export interface InteractionEvent {
  /**
   * Time of the event (seconds of interaction time). An event whose time is not a finite number ≥ 0 (NaN,
   * ±Infinity, negative) never fires and does not count in the length; the system warns once per object.
   */
  time: number;
  /** Pause the interaction here (the timer stops at `time`; the effector keeps following the target). */
  pause?: boolean;
  /** Pick the object up here: it is parented to the bone and travels with it. */
  pickUp?: boolean;
  /** A custom message, delivered by `InteractionSystem.onInteractionEventObservable`. */
  message?: string;
  /** Any user data delivered with the event. */
  data?: unknown;
}

/**
 * Shape of target descriptions found in node metadata (`node.metadata.interactionTarget`, or glTF
 * extras `node.metadata.gltf.extras.interactionTarget`).
 */
export interface InteractionTargetMetadata {
  /** The effector, by enum value or name ("LeftHand"). */
  effector: FullBodyBipedEffector | keyof typeof FullBodyBipedEffector;
  /** Name of the pivot node among the object's descendants. */
  pivot?: string;
  /** Twist axis in the pivot's space as [x, y, z]. */
  twistAxis?: [number, number, number];
  /** See {@link InteractionTargetOptions}. */
  twistWeight?: number;
  /** See {@link InteractionTargetOptions}. */
  swingWeight?: number;
  /** See {@link InteractionTargetOptions}. */
  rotateOnce?: boolean;
  /** See {@link InteractionTargetOptions}. */
  interactionSpeedMlp?: number;
}

/** Options of {@link InteractionObject}. */
export interface InteractionObjectOptions {
  /** The channels' curves. */
  weightCurves?: InteractionWeightCurve[];
  /** Curves reused for other channels. */
  multipliers?: InteractionMultiplier[];
  /** Events over time. */
  events?: InteractionEvent[];
  /** Space of the position offset channels (default: the character's root). */
  positionOffsetSpace?: TransformNode | null;
  /** Targets registered explicitly (added to those found among the node's descendants). */
  targets?: InteractionTarget[];
  /** Fade-in time of interactions with this object; null: the system's `fadeInTime`. */
  fadeInTime?: number | null;
  /** The node parented to the hand on pick-up (default: the object's node). */
  pickUpRoot?: TransformNode | null;
  /**
   * A finger pose (see {@link HandPoser}) for a hand whose target has none under it (default null: only the
   * target's own). One pose for many objects, e.g. every rung of a ladder.
   */
  handPose?: TransformNode | null;
  /** Look for targets among the node's descendants (default true). */
  findTargets?: boolean;
}

/** The kinds of {@link InteractionObjectOptions}, for the check at create. */
export const INTERACTION_OBJECT_OPTION_KINDS: OptionKinds<InteractionObjectOptions> = {
  weightCurves: "array",
  multipliers: "array",
  events: "array",
  positionOffsetSpace: "object|null",
  targets: "array",
  fadeInTime: "number|null",
  pickUpRoot: "object|null",
  handPose: "object|null",
  findTargets: "boolean",
};

const NAME_PATTERN = /^interaction[ _-]?target[ _.:-]+([a-z]+)$/i;

/**
 * Something a character interacts with (FinalIK's InteractionObject): a node, curves of the effector
 * and chain weights over time, events (pause, pick-up, messages) and, per effector, an
 * {@link InteractionTarget} giving where the hand or foot goes. Without a target for an effector, the
 * effector goes to the object's node itself.
 *
 * Targets among the node's descendants are found by metadata (`metadata.interactionTarget`, see
 * {@link InteractionTargetMetadata}, also in glTF extras) or by name: `InteractionTarget.LeftHand`,
 * `InteractionTarget_RightFoot`…
 */
export class InteractionObject {
  /** The object's node. */
  readonly node: TransformNode;
  /** Curves of the channels over the interaction's time. */
  weightCurves: InteractionWeightCurve[];
  /** Curves reused for other channels. */
  multipliers: InteractionMultiplier[];
  /** Events. */
  events: InteractionEvent[];
  /** Space of the position offset channels; null: the character's root. */
  positionOffsetSpace: TransformNode | null;
  /** Fade-in time of interactions with this object; null: the system's. */
  fadeInTime: number | null;
  /** The node parented to the hand on pick-up; null: `node`. */
  pickUpRoot: TransformNode | null;
  /** The finger pose for a hand whose target has none under it, or null. */
  handPose: TransformNode | null;
  /** The targets, per effector. */
  readonly targets: InteractionTarget[] = [];

  /** Wraps `node`. */
  constructor(node: TransformNode, options: InteractionObjectOptions = {}) {
    checkLoggedOptions("InteractionObject", options, INTERACTION_OBJECT_OPTION_KINDS);
    this.node = node;
    this.weightCurves = options.weightCurves ?? [];
    this.multipliers = options.multipliers ?? [];
    this.events = options.events ?? [];
    this.positionOffsetSpace = options.positionOffsetSpace ?? null;
    this.fadeInTime = options.fadeInTime ?? null;
    this.pickUpRoot = options.pickUpRoot ?? null;
    this.handPose = options.handPose ?? null;
    if (options.findTargets ?? true) this.findTargets();
    for (const t of options.targets ?? []) this.addTarget(t);
  }

  /**
   * Interaction length (seconds): the latest of the curves' last keys and the events' times (an event whose
   * time is not a finite number ≥ 0 never fires and does not count).
   */
  get length(): number {
    // indexed loops and the duration through a field: read at every start, in code too rarely run for V8 to
    // optimise, iterators and returned doubles were allocated (0.5 KB a start)
    let l = 0;
    const curves = this.weightCurves;
    for (let i = 0; i < curves.length; i++) {
      curves[i]!.curve.durationInto(scratchIO);
      if (scratchIO.b > l) l = scratchIO.b;
    }
    const events = this.events;
    for (let i = 0; i < events.length; i++) {
      const t = events[i]!.time;
      if (isEventTime(t) && t > l) l = t;
    }
    return l;
  }

  /** The node that is parented to the hand on pick-up. */
  get pickUpNode(): TransformNode {
    return this.pickUpRoot ?? this.node;
  }

  /** Registers a target (replacing none: the first target of an effector wins in {@link getTarget}). */
  addTarget(target: InteractionTarget): InteractionTarget {
    if (!this.targets.includes(target)) this.targets.push(target);
    return target;
  }

  /** Creates and registers a target for `effector` at `node`. */
  createTarget(
    effector: FullBodyBipedEffector,
    node: TransformNode,
    options?: InteractionTargetOptions,
  ): InteractionTarget {
    return this.addTarget(new InteractionTarget(effector, node, options));
  }

  /** The target for `effector`, or null. */
  getTarget(effector: FullBodyBipedEffector): InteractionTarget | null {
    const targets = this.targets;
    for (let i = 0; i < targets.length; i++) if (targets[i]!.effectorType === effector) return targets[i]!;
    return null;
  }

  /** Looks for targets among the node's descendants (metadata or names); returns how many were added. */
  findTargets(): number {
    let added = 0;
    const descendants = this.node.getDescendants(false, (n) => n instanceof TransformNode) as TransformNode[];
    for (const n of descendants) {
      if (this.targets.some((t) => t.node === n)) continue;
      const target = this.targetFromNode(n, descendants);
      if (target !== null) {
        this.targets.push(target);
        added++;
      }
    }
    return added;
  }

  private targetFromNode(n: TransformNode, descendants: TransformNode[]): InteractionTarget | null {
    const md = n.metadata as Record<string, unknown> | null | undefined;
    let raw: unknown = md?.["interactionTarget"];
    if (raw === undefined) {
      const gltf = md?.["gltf"] as Record<string, unknown> | undefined;
      const extras = gltf?.["extras"] as Record<string, unknown> | undefined;
      raw = extras?.["interactionTarget"];
    }
    if (raw instanceof InteractionTarget) return raw;
    if (raw !== undefined && raw !== null && typeof raw === "object") {
      const m = raw as InteractionTargetMetadata;
      const effector = parseEffector(m.effector);
      if (effector === null) return null;
      const pivot = m.pivot !== undefined ? (descendants.find((d) => d.name === m.pivot) ?? null) : null;
      return new InteractionTarget(effector, n, {
        pivot,
        twistAxis: m.twistAxis !== undefined ? Vector3.FromArray(m.twistAxis) : undefined,
        twistWeight: m.twistWeight,
        swingWeight: m.swingWeight,
        rotateOnce: m.rotateOnce,
        interactionSpeedMlp: m.interactionSpeedMlp,
      });
    }
    const match = NAME_PATTERN.exec(n.name);
    if (match !== null) {
      const effector = parseEffector(match[1]!);
      if (effector !== null) return new InteractionTarget(effector, n);
    }
    return null;
  }

  /** Marks the channels the curves and multipliers drive (1) in `out` (length ≥ 12). */
  getUsedChannels(out: Uint8Array): Uint8Array {
    out.fill(0);
    const curves = this.weightCurves;
    for (let i = 0; i < curves.length; i++) out[curves[i]!.type] = 1;
    const mults = this.multipliers;
    for (let i = 0; i < mults.length; i++) if (curves[mults[i]!.curve] !== undefined) out[mults[i]!.result] = 1;
    return out;
  }

  /**
   * Evaluates every driven channel at `time` into `out` (indexed by {@link InteractionCurveType}):
   * the curves first, then the multipliers (which override a curve of the same channel).
   */
  evaluate(time: number, out: Float64Array): Float64Array {
    scratchIO.a = time;
    return this.evaluateInto(scratchIO, out);
  }

  /**
   * {@link evaluate} at the time `io.a` (`io.b` is used as scratch): the form per-frame callers use, no
   * number crossing a call (see {@link Curve.evaluateInto}).
   */
  evaluateInto(io: CurveIO, out: Float64Array): Float64Array {
    const curves = this.weightCurves;
    for (let i = 0; i < curves.length; i++) {
      const w = curves[i]!;
      w.curve.evaluateInto(io);
      out[w.type] = io.b;
    }
    const mults = this.multipliers;
    for (let i = 0; i < mults.length; i++) {
      const m = mults[i]!;
      const src = curves[m.curve];
      if (src !== undefined) {
        src.curve.evaluateInto(io);
        out[m.result] = io.b * (m.multiplier ?? 1);
      }
    }
    return out;
  }
}

/** True for an event time that can be reached: a finite number ≥ 0 (NaN, ±∞ and negatives never fire). */
export function isEventTime(time: number): boolean {
  return time >= 0 && time < Infinity;
}

/** The scratch of {@link InteractionObject.evaluate}. */
const scratchIO = new CurveIO();

/** The effector from an enum value or a name ("LeftHand", "left hand", "lefthand"); null if unknown. */
export function parseEffector(v: unknown): FullBodyBipedEffector | null {
  if (typeof v === "number") return v >= 0 && v < 9 && Number.isInteger(v) ? (v as FullBodyBipedEffector) : null;
  if (typeof v !== "string") return null;
  const key = v.replace(/[ _-]/g, "").toLowerCase();
  for (const [name, value] of Object.entries(FullBodyBipedEffector)) {
    if (typeof value === "number" && name.toLowerCase() === key) return value as FullBodyBipedEffector;
  }
  return null;
}
