import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vec3, type ReadonlyVec3 } from "../math/vec3.js";
import { CapsuleCollider } from "../joints/colliders/capsule-collider.js";
import { ColliderSet } from "../joints/colliders/collider-set.js";
import type { JointColliders } from "../joints/joint-colliders.js";
import { FBBIKError } from "../solver/errors.js";
import type { IKPose } from "../solver/pose.js";
import type { BabylonRig } from "./babylon-rig.js";
import type { BoneCollider } from "./bone-collider.js";

const scl = new Vec3();
const zero = new Vec3();

/**
 * The {@link BoneCollider}s of one component, on that component's rig: each hangs on a bone of the rig, by its
 * id, as an engine-neutral capsule of a {@link ColliderSet} (what the joint solvers' `colliders` take). Every
 * {@link update} brings the Babylon colliders' local geometry into the rig's component space (the bone's
 * component-space scale applied to the ends and the radius), then lets the set read the bones. A disabled
 * collider sits the step out. Allocation-free per frame; adding or removing a collider rebuilds the set.
 */
export class BoneColliderSet implements JointColliders {
  /** The rig the colliders' bones are in. */
  readonly rig: BabylonRig;
  private list: BoneCollider[] = [];
  private shapes: CapsuleCollider[] = [];
  private set = new ColliderSet([]);

  /** On `rig`, with `colliders` (each bone must be in the rig: throws {@link FBBIKError} naming it). */
  constructor(rig: BabylonRig, colliders: readonly BoneCollider[] = []) {
    this.rig = rig;
    for (const c of colliders) this.check(c);
    this.rebuild([...colliders]);
  }

  /** The class name, as Babylon's own objects report it. */
  getClassName(): string {
    return "BoneColliderSet";
  }

  /** The colliders, in the order they are resolved. */
  get colliders(): readonly BoneCollider[] {
    return this.list;
  }

  /** The engine-neutral set underneath (component space; valid after an {@link update}). */
  get inner(): ColliderSet {
    return this.set;
  }

  /** Adds a collider (setup time). Throws {@link FBBIKError} when its bone is not in the rig. */
  add(collider: BoneCollider): void {
    this.check(collider);
    if (this.list.includes(collider)) return;
    this.rebuild([...this.list, collider]);
  }

  /** Removes a collider; false when it was not there. */
  remove(collider: BoneCollider): boolean {
    const i = this.list.indexOf(collider);
    if (i < 0) return false;
    this.rebuild(this.list.filter((c) => c !== collider));
    return true;
  }

  /** Forgets the step's start: the next update places the colliders where their bones are (after a teleport). */
  reset(): void {
    this.set.reset();
  }

  /** @inheritdoc */
  update(pose: IKPose): void {
    const rig = this.rig;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const c = list[i]!;
      const s = this.shapes[i]!;
      rig.getScale(s.bone, scl);
      scaled(s.start, c.start, scl);
      scaled(s.end, c.end, scl);
      const sx = scl.x < 0 ? -scl.x : scl.x;
      const sy = scl.y < 0 ? -scl.y : scl.y;
      const sz = scl.z < 0 ? -scl.z : scl.z;
      // a disabled collider gets a radius the set rejects: it sits the step out
      s.radius = c.enabled ? (c.radius * (sx + sy + sz)) / 3 : Number.NaN;
    }
    this.set.update(pose);
  }

  /** @inheritdoc */
  resolveChain(positions: Float64Array, count: number, radius: number, alpha: number): boolean {
    return this.set.resolveChain(positions, count, radius, alpha);
  }

  /**
   * `point` (component space) pushed out of every collider placed at `alpha`, keeping `radius` clearance,
   * into `out`; true when it moved.
   */
  resolvePoint(out: Vec3, point: ReadonlyVec3, radius: number, alpha: number): boolean {
    return this.set.resolvePoint(out, point, radius, alpha);
  }

  private check(c: BoneCollider): void {
    if (this.rig.idOf(c.bone) < 0) {
      throw new FBBIKError(
        [
          `collider bone "${c.bone.name}" is not in the component's rig: pass the collider when creating the ` +
            "component (its bone is then included), or hang it on one of the component's bones or their ancestors",
        ],
        "BoneCollider",
      );
    }
  }

  private rebuild(list: BoneCollider[]): void {
    this.list = list;
    this.shapes = list.map((c) => new CapsuleCollider(this.rig.idOf(c.bone), zero, zero, 0));
    this.set = new ColliderSet(this.shapes);
    // the joint frame rebuilds joints from bone lengths: push out keeping them
    this.set.keepLengths = true;
  }
}

/** `out` = `s` ⊙ `v` (a local point under the bone's scale). */
function scaled(out: Vec3, v: ReadonlyVec3, s: ReadonlyVec3): void {
  out.x = v.x * s.x;
  out.y = v.y * s.y;
  out.z = v.z * s.z;
}

/** The bones of `colliders` not yet among `bones`: what a component adds to its rig for them. */
export function colliderBones(bones: readonly Bone[], colliders: readonly BoneCollider[] | undefined): Bone[] {
  const out = [...bones];
  for (const c of colliders ?? []) if (c?.bone !== undefined && !out.includes(c.bone)) out.push(c.bone);
  return out;
}
