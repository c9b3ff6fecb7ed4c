/**
 * Small rigs built in code for the docs/API.md chain examples: a tail of plain Bones going up from the origin,
 * and a body (a spine bone) with a tail hanging behind it. Bones have no linked nodes; their world positions
 * are read on the skeleton's mesh.
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** A rig: its skeleton, the mesh it is read on, and its bones by role. */
export interface CodeRig {
  skeleton: Skeleton;
  mesh: Mesh;
  /** The spine (the tail's parent; for the plain tail, its first bone). */
  spine: Bone;
  tail: Bone[];
  /** A bone's world position, fresh. */
  pos(bone: Bone): Vector3;
}

function rig(scene: Scene, name: string): { skeleton: Skeleton; mesh: Mesh; pos: (b: Bone) => Vector3 } {
  const skeleton = new Skeleton(name, name, scene);
  const mesh = new Mesh(`${name}-mesh`, scene);
  mesh.skeleton = skeleton;
  const pos = (b: Bone): Vector3 => {
    skeleton.computeAbsoluteMatrices(true);
    return b.getAbsolutePosition(mesh);
  };
  return { skeleton, mesh, pos };
}

/** `count` bones `segment` apart going up (+Y) from the origin, each curled 0.1 rad about Z. */
export function tailRig(scene: Scene, count: number, segment: number): CodeRig {
  const r = rig(scene, "tail");
  const tail: Bone[] = [];
  for (let i = 0; i < count; i++) {
    const local = Matrix.Compose(
      Vector3.One(),
      Quaternion.RotationAxis(Vector3.Forward(), i === 0 ? 0 : 0.1),
      new Vector3(0, i === 0 ? 0 : segment, 0),
    );
    tail.push(new Bone(`tail${i}`, r.skeleton, i === 0 ? null : tail[i - 1]!, local));
  }
  return { ...r, spine: tail[0]!, tail };
}

/** A spine bone at the origin (up +Y) and `count` tail bones from 0.4 behind it, pointing back (−Z). */
export function bodyWithTail(scene: Scene, count: number, segment: number): CodeRig {
  const r = rig(scene, "body");
  const spine = new Bone("spine", r.skeleton, null, Matrix.Identity());
  const tail: Bone[] = [];
  for (let i = 0; i < count; i++) {
    const local =
      i === 0
        ? Matrix.Compose(
            Vector3.One(),
            Quaternion.RotationAxis(Vector3.Right(), -Math.PI / 2),
            new Vector3(0, 0.3, -0.4),
          )
        : Matrix.Compose(Vector3.One(), Quaternion.RotationAxis(Vector3.Forward(), 0.05), new Vector3(0, segment, 0));
    tail.push(new Bone(`tail${i}`, r.skeleton, i === 0 ? spine : tail[i - 1]!, local));
  }
  return { ...r, spine, tail };
}

/** Distance from `p` to the segment `a`–`b`. */
export function distanceToSegment(p: Vector3, a: Vector3, b: Vector3): number {
  const ab = b.subtract(a);
  const t = Math.min(1, Math.max(0, Vector3.Dot(p.subtract(a), ab) / ab.lengthSquared()));
  return Vector3.Distance(p, a.add(ab.scale(t)));
}
