/**
 * Bad rigs for the robustness tests: the synthetic biped (1.75 m, facing +Z, its left at +X, bone frames
 * twisted on purpose) as an editable list of joints in world space (rename, remove, insert, duplicate,
 * move, transform), built into Babylon as a skeleton of plain Bones (optionally skinning a mesh) or as a
 * TransformNode hierarchy linked to the bones (as glTF loads), under an armature node that may be moved,
 * rotated and scaled (also non-uniformly).
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { VertexData } from "@babylonjs/core/Meshes/mesh.vertexData.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import { type SyntheticBipedOptions, syntheticBiped } from "../helpers/synthetic-biped.js";

/** One joint: name, parent index (-1: root), world position and rotation in the rig's own frame. */
export interface JointSpec {
  name: string;
  parent: number;
  position: Vector3;
  rotation: Quaternion;
}

/** An editable joint list (depth-first: every parent before its children). */
export class RigSpec {
  joints: JointSpec[];
  /** Height of the character in the rig's own units (feet to head top). */
  height: number;

  constructor(joints: JointSpec[], height: number) {
    this.joints = joints;
    this.height = height;
  }

  /** The synthetic biped's joints. */
  static biped(options: SyntheticBipedOptions = {}): RigSpec {
    const b = syntheticBiped(options);
    const p = b.pose;
    const joints: JointSpec[] = [];
    for (let i = 0; i < p.count; i++) {
      const pos = p.positions[i]!;
      const rot = p.rotations[i]!;
      joints.push({
        name: p.names[i]!,
        parent: p.parents[i]!,
        position: new Vector3(pos.x, pos.y, pos.z),
        rotation: new Quaternion(rot.x, rot.y, rot.z, rot.w),
      });
    }
    return new RigSpec(joints, b.height);
  }

  clone(): RigSpec {
    return new RigSpec(
      this.joints.map((j) => ({
        name: j.name,
        parent: j.parent,
        position: j.position.clone(),
        rotation: j.rotation.clone(),
      })),
      this.height,
    );
  }

  index(name: string): number {
    const i = this.joints.findIndex((j) => j.name === name);
    if (i < 0) throw new Error(`no joint ${name}`);
    return i;
  }

  /** Removes joints; their children hang from the removed joint's parent (world poses kept). */
  remove(...names: string[]): this {
    for (const name of names) {
      const i = this.index(name);
      const parent = this.joints[i]!.parent;
      for (const j of this.joints) if (j.parent === i) j.parent = parent;
      this.joints.splice(i, 1);
      for (const j of this.joints) if (j.parent > i) j.parent--;
    }
    return this;
  }

  /** Removes a joint and its whole subtree. */
  removeSubtree(name: string): this {
    const i = this.index(name);
    const doomed = new Set<number>([i]);
    for (let k = i + 1; k < this.joints.length; k++) if (doomed.has(this.joints[k]!.parent)) doomed.add(k);
    const keep = this.joints.map((_, k) => !doomed.has(k));
    const newIndex: number[] = [];
    let n = 0;
    for (let k = 0; k < keep.length; k++) newIndex.push(keep[k] ? n++ : -1);
    this.joints = this.joints
      .filter((_, k) => keep[k])
      .map((j) => ({ ...j, parent: j.parent >= 0 ? newIndex[j.parent]! : -1 }));
    return this;
  }

  /** Inserts a joint between `child` and its parent, at fraction `t` along the parent → child segment. */
  insertAbove(child: string, name: string, t = 0.5): this {
    const c = this.index(child);
    const cj = this.joints[c]!;
    const pj = this.joints[cj.parent]!;
    const joint: JointSpec = {
      name,
      parent: cj.parent,
      position: Vector3.Lerp(pj.position, cj.position, t),
      rotation: pj.rotation.clone(),
    };
    this.joints.splice(c, 0, joint);
    for (const j of this.joints) if (j.parent >= c) j.parent++;
    this.joints[c + 1]!.parent = c;
    return this;
  }

  /** Adds a leaf joint below `parent` (e.g. a twist bone beside the limb), at `position` (default: the parent's). */
  addLeaf(parent: string, name: string, position?: Vector3): this {
    const p = this.index(parent);
    let at = p + 1;
    while (at < this.joints.length && this.isBelow(at, p)) at++;
    const joint: JointSpec = {
      name,
      parent: p,
      position: position ?? this.joints[p]!.position.clone(),
      rotation: this.joints[p]!.rotation.clone(),
    };
    this.joints.splice(at, 0, joint);
    for (let k = at + 1; k < this.joints.length; k++) if (this.joints[k]!.parent >= at) this.joints[k]!.parent++;
    return this;
  }

  /** Hangs `name` from `parent` instead (world poses kept); the parent must come before it. */
  reparent(name: string, parent: string): this {
    const c = this.index(name);
    const p = this.index(parent);
    if (p >= c) throw new Error(`${parent} comes after ${name}: the joints would not be parent-first`);
    this.joints[c]!.parent = p;
    return this;
  }

  private isBelow(k: number, ancestor: number): boolean {
    for (let p = this.joints[k]!.parent; p >= 0; p = this.joints[p]!.parent) if (p === ancestor) return true;
    return false;
  }

  rename(from: string, to: string): this {
    this.joints[this.index(from)]!.name = to;
    return this;
  }

  /** Renames every joint. */
  renameAll(f: (name: string, i: number) => string): this {
    this.joints.forEach((j, i) => (j.name = f(j.name, i)));
    return this;
  }

  /** Moves one joint (its children keep their world positions). */
  moveTo(name: string, position: Vector3): this {
    this.joints[this.index(name)]!.position.copyFrom(position);
    return this;
  }

  /** Rotates and scales the whole rig about the origin (the rig's data, not the armature node). */
  transform(rotation: Quaternion, scale = 1): this {
    for (const j of this.joints) {
      j.position = j.position.applyRotationQuaternion(rotation).scale(scale);
      j.rotation = rotation.multiply(j.rotation);
    }
    this.height *= scale;
    return this;
  }
}

/** Placement of the armature node (glTF-like) or of the skinned mesh (plain bones). */
export interface Placement {
  position?: Vector3;
  rotation?: Quaternion;
  scaling?: Vector3;
}

/** A rig built in its own NullEngine scene. */
export interface BuiltRig {
  engine: NullEngine;
  scene: Scene;
  skeleton: Skeleton;
  /** The armature node (linked rigs) or the skinned mesh (plain bones with a mesh), else null. */
  holder: TransformNode | null;
  /** The mesh the plain bones skin, or null. */
  mesh: Mesh | null;
  /** Height of the character in world units (the rig's height × the holder's largest scale). */
  height: number;
  /** World position of a bone, freshly computed. */
  worldPos(bone: Bone): Vector3;
  dispose(): void;
}

/** A fresh NullEngine scene with a camera. */
export function newScene(rightHanded = false): { engine: NullEngine; scene: Scene } {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  scene.useRightHandedSystem = rightHanded;
  scene.useConstantAnimationDeltaTime = true;
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  return { engine, scene };
}

function place(node: TransformNode, placement: Placement): void {
  if (placement.position) node.position.copyFrom(placement.position);
  node.rotationQuaternion = placement.rotation?.clone() ?? Quaternion.Identity();
  if (placement.scaling) node.scaling.copyFrom(placement.scaling);
}

function localOf(spec: RigSpec, i: number): { position: Vector3; rotation: Quaternion } {
  const j = spec.joints[i]!;
  if (j.parent < 0) return { position: j.position.clone(), rotation: j.rotation.clone() };
  const p = spec.joints[j.parent]!;
  const inv = Quaternion.Inverse(p.rotation);
  return { position: j.position.subtract(p.position).applyRotationQuaternion(inv), rotation: inv.multiply(j.rotation) };
}

/**
 * Builds `spec` into Babylon. `linked`: TransformNodes (rotationQuaternion) under an armature node, linked
 * to the bones, as glTF loads. Otherwise plain Bones, skinning a mesh placed by `placement` when `withMesh`.
 */
export function buildRig(
  spec: RigSpec,
  options: { linked: boolean; placement?: Placement; withMesh?: boolean; rightHanded?: boolean },
): BuiltRig {
  const { engine, scene } = newScene(options.rightHanded);
  const skeleton = new Skeleton("rig", "rig", scene);
  const placement = options.placement ?? {};
  const bones: Bone[] = [];
  let holder: TransformNode | null = null;
  let mesh: Mesh | null = null;
  if (options.linked) {
    holder = new TransformNode("Armature", scene);
    place(holder, placement);
    const nodes: TransformNode[] = [];
    spec.joints.forEach((j, i) => {
      const local = localOf(spec, i);
      const node = new TransformNode(j.name, scene);
      node.parent = j.parent >= 0 ? nodes[j.parent]! : holder;
      node.position.copyFrom(local.position);
      node.rotationQuaternion = local.rotation;
      nodes.push(node);
      const bone = new Bone(
        j.name,
        skeleton,
        j.parent >= 0 ? bones[j.parent]! : null,
        Matrix.Compose(Vector3.One(), local.rotation, local.position),
      );
      bone.linkTransformNode(node);
      bones.push(bone);
    });
  } else {
    spec.joints.forEach((j, i) => {
      const local = localOf(spec, i);
      bones.push(
        new Bone(
          j.name,
          skeleton,
          j.parent >= 0 ? bones[j.parent]! : null,
          Matrix.Compose(Vector3.One(), local.rotation, local.position),
        ),
      );
    });
    if (options.withMesh) {
      mesh = new Mesh("body", scene);
      mesh.skeleton = skeleton;
      place(mesh, placement);
      holder = mesh;
    }
  }
  const s = placement.scaling;
  const scale = s ? Math.max(Math.abs(s.x), Math.abs(s.y), Math.abs(s.z)) : 1;
  const worldPos = (bone: Bone): Vector3 => {
    const node = bone.getTransformNode();
    if (node !== null) {
      node.computeWorldMatrix(true);
      return node.getAbsolutePosition().clone();
    }
    skeleton.computeAbsoluteMatrices(true);
    return mesh !== null ? bone.getAbsolutePosition(mesh) : bone.getAbsolutePosition();
  };
  return {
    engine,
    scene,
    skeleton,
    holder,
    mesh,
    height: spec.height * scale,
    worldPos,
    dispose: () => {
      scene.dispose();
      engine.dispose();
    },
  };
}

/** Skins the rig's mesh (a new one when it has none) to the bones `deforms` picks: one vertex on each, weight 1. */
export function skinMeshTo(rig: BuiltRig, deforms: (bone: Bone) => boolean): Mesh {
  const mesh = rig.mesh ?? new Mesh("body", rig.scene);
  mesh.skeleton = rig.skeleton;
  const bones = rig.skeleton.bones.filter(deforms);
  const data = new VertexData();
  data.positions = bones.flatMap((b) => rig.worldPos(b).asArray());
  data.indices = bones.map((_, i) => i);
  data.matricesIndices = bones.flatMap((b) => [b.getIndex(), 0, 0, 0]);
  data.matricesWeights = bones.flatMap(() => [1, 0, 0, 0]);
  data.applyToMesh(mesh);
  return mesh;
}
