import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FBBIKError } from "../solver/errors.js";
import { boneWorldMatrixToRef, currentWorldMatrix, isBone, skinnedMeshOf } from "./world-matrix.js";
import { moduleMatrix } from "./module-matrix.js";

/** A point given as three numbers (a Babylon Vector3 or any `{ x, y, z }`). */
export interface XYZ {
  /** X. */
  readonly x: number;
  /** Y. */
  readonly y: number;
  /** Z. */
  readonly z: number;
}

const world = moduleMatrix();
const inverse = moduleMatrix();

/**
 * A sphere or capsule hanging on a Babylon bone or on any TransformNode (a mesh: a ball, a pillar, a door),
 * like a child node of it: its axis ends (`start`, `end`; equal for a sphere) and `radius` are in the bone's or
 * node's local space, so the collider follows its position, rotation and scale every frame (a character scaled
 * ×100 has colliders ×100; a ball rolled, a door swung carry theirs). Chain components keep their joints and
 * segments outside it (`solver.subSteps` interpolate it between frames); {@link FBBIKColliders} keeps
 * FullBodyBipedIK's hands outside it. A node's collider is read from the node's world matrix when the
 * component solves; a node under a bone of the component's rig (a shield in the hand) is carried by that bone as
 * the component solves it. Once the node is disposed the collider is ignored (warned once) and lets go of it.
 *
 * The fields may be edited at any time; they are read every frame.
 *
 * ```ts
 * // a capsule through the chest, measured in the world as the character stands now
 * const chest = skeleton.bones[skeleton.getBoneIndexByName("mixamorig:Spine2")]!;
 * const body = BoneCollider.fromWorld(chest, hips.absolutePosition, neck.absolutePosition, 0.15);
 * // a ball in the scene: a sphere mesh of diameter 1 (radius 0.5 in its local space)
 * const obstacle = BoneCollider.sphere(ballMesh, 0.5);
 * ```
 */
export class BoneCollider {
  /** The bone it hangs on, or null when it hangs on {@link node}. */
  readonly bone: Bone | null;
  private _node: TransformNode | null;
  /** First end of the axis (a sphere's centre), in the bone's or node's local space. */
  readonly start: Vector3;
  /** Second end of the axis (equal to `start` for a sphere), in the bone's or node's local space. */
  readonly end: Vector3;
  /** Radius in the bone's or node's local units (≥ 0). */
  radius: number;
  /** When false the collider is ignored. */
  enabled = true;

  /**
   * A capsule of `radius` around the segment `start`–`end` (the local space of `on`, a bone or a node).
   * Throws on bad numbers.
   */
  constructor(on: Bone | TransformNode, start: XYZ, end: XYZ, radius: number) {
    const problems: string[] = [];
    if (on === null || on === undefined) problems.push("a BoneCollider needs a bone or a node");
    const name = on === null || on === undefined ? "(none)" : `${isBone(on) ? "bone" : "node"} "${on.name}"`;
    if (!(radius >= 0) || radius === Infinity) {
      problems.push(`collider on ${name}: radius ${radius} is not a finite non-negative number`);
    }
    for (const [label, p] of [
      ["start", start],
      ["end", end],
    ] as const) {
      if (!(Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.z))) {
        problems.push(`collider on ${name}: ${label} is not a finite point`);
      }
    }
    if (problems.length > 0) throw new FBBIKError(problems, "BoneCollider");
    this.bone = isBone(on) ? on : null;
    this._node = isBone(on) ? null : on;
    this.start = new Vector3(start.x, start.y, start.z);
    this.end = new Vector3(end.x, end.y, end.z);
    this.radius = radius;
  }

  /**
   * The node (a mesh, a TransformNode) it hangs on, or null when it hangs on {@link bone}, and once a component
   * found the node disposed (the collider lets go of it, so that it can be collected).
   */
  get node(): TransformNode | null {
    return this._node;
  }

  /** @internal Lets go of a disposed node (the collider stays ignored). */
  _dropNode(): void {
    this._node = null;
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "BoneCollider";
  }

  /**
   * A sphere of `radius` centred at `offset` (the local space of `on`, a bone or a node such as a sphere mesh;
   * its origin by default).
   */
  static sphere(on: Bone | TransformNode, radius: number, offset: XYZ = Vector3.ZeroReadOnly): BoneCollider {
    return new BoneCollider(on, offset, offset, radius);
  }

  /** A capsule of `radius` around the segment `start`–`end` in the local space of `on` (a bone or a node). */
  static capsule(on: Bone | TransformNode, start: XYZ, end: XYZ, radius: number): BoneCollider {
    return new BoneCollider(on, start, end, radius);
  }

  /**
   * A capsule (a sphere when the ends are equal) measured in the world as the bone or node stands now: the
   * ends and the radius are brought into its local space (the radius divided by its mean world scale), after
   * which the collider follows it. `mesh`: for a bone of a skeleton without linked TransformNodes, the mesh
   * it deforms (default: the first mesh using the skeleton).
   */
  static fromWorld(
    on: Bone | TransformNode,
    worldStart: XYZ,
    worldEnd: XYZ,
    worldRadius: number,
    mesh?: AbstractMesh,
  ): BoneCollider {
    if (isBone(on)) boneWorldMatrixToRef(on, mesh ?? skinnedMeshOf(on), world);
    else world.copyFrom(currentWorldMatrix(on));
    const m = world.m;
    const sx = Math.hypot(m[0]!, m[1]!, m[2]!);
    const sy = Math.hypot(m[4]!, m[5]!, m[6]!);
    const sz = Math.hypot(m[8]!, m[9]!, m[10]!);
    const scale = (sx + sy + sz) / 3;
    if (!(scale > 0) || scale === Infinity) {
      const kind = isBone(on) ? "bone" : "node";
      throw new FBBIKError([`collider on ${kind} "${on.name}": the ${kind} has no usable world scale`], "BoneCollider");
    }
    world.invertToRef(inverse);
    const a = Vector3.TransformCoordinates(new Vector3(worldStart.x, worldStart.y, worldStart.z), inverse);
    const b = Vector3.TransformCoordinates(new Vector3(worldEnd.x, worldEnd.y, worldEnd.z), inverse);
    return new BoneCollider(on, a, b, worldRadius / scale);
  }

  /** True when the axis ends are equal (a sphere). */
  get isSphere(): boolean {
    return this.start.equals(this.end);
  }
}
