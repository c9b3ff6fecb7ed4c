import { Quat } from "../math/quat.js";
import { type ReadonlyVec3, Vec3, add, zero } from "../math/vec3.js";

/**
 * A point of the solver (FinalIK's IKSolver.Node): one referenced bone of a chain. It carries the
 * bone's animated pose for this frame, the position the solver moves, and what the effectors wrote.
 */
export class IKNode {
  /** Id of the bone in the {@link IKPose}. */
  readonly bone: number;
  /** Animated component-space position of the bone this frame (after LimitBend). */
  readonly bonePosition = new Vec3();
  /** Animated component-space rotation of the bone this frame (after LimitBend). */
  readonly boneRotation = new Quat();
  /** Where the solver currently places this node. */
  readonly solverPosition = new Vec3();
  /**
   * Rotation the node's effector asks for (hands and feet), set in the effector's pre-solve while its rotation weight
   * is above 0.
   */
  readonly solverRotation = new Quat();
  /** Distance to the next node of the chain, re-measured from the animated pose every frame. */
  length = 0;
  /** Effector position weight × ikPositionWeight (0 when no effector drives this node). */
  effectorPositionWeight = 0;
  /** Effector rotation weight × ikPositionWeight. */
  effectorRotationWeight = 0;
  /**
   * Position offset gathered from effectors this frame (component space). Add to it through
   * {@link addOffset} (the effectors do): the solver reads it only while {@link offsetActive}.
   */
  readonly offset = new Vec3();
  /**
   * True while {@link offset} may be non-zero this frame. Nodes without an offset (most, most frames) then
   * skip reading it: with many characters every object a frame touches costs a fetch from memory.
   */
  offsetActive = false;

  /** Creates the node for pose bone `bone`. */
  constructor(bone: number) {
    this.bone = bone;
  }

  /**
   * offset += v × the solver's ikPositionWeight (read in place, not passed: see NumberRef); marks the offset active.
   */
  addOffset(v: ReadonlyVec3, solver: Readonly<{ ikPositionWeight: number }>): void {
    const w = solver.ikPositionWeight;
    const o = this.offset;
    o.x += v.x * w;
    o.y += v.y * w;
    o.z += v.z * w;
    this.offsetActive = true;
  }

  /** Clears the offset (only when it was active: an inactive one is zero already). */
  resetOffset(): void {
    if (!this.offsetActive) return;
    zero(this.offset);
    this.offsetActive = false;
  }
}

/**
 * out = p + `node`'s offset while it is active; otherwise p + 0 without reading the offset (the same bits
 * as adding the zero offset: −0 becomes +0). ReadPose and the effectors place nodes with it.
 */
export function addNodeOffset(out: Vec3, p: ReadonlyVec3, node: IKNode): Vec3 {
  if (node.offsetActive) return add(out, p, node.offset);
  out.x = p.x + 0;
  out.y = p.y + 0;
  out.z = p.z + 0;
  return out;
}
