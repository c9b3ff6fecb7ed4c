/**
 * A tail (or tentacle) built in code: `count` Bones in a line, each `segment` long, skinned to a cylinder,
 * in a NullEngine scene with a camera. The skeleton has no linked TransformNodes (Babylon's bone-only path,
 * as .babylon files and skeletons built in code).
 */
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine, NullEngineOptions } from "@babylonjs/core/Engines/nullEngine.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder.js";
import { Scene } from "@babylonjs/core/scene.js";

/** The tail's scene, skeleton, bones (root first) and skinned mesh. */
export interface TailRig {
  engine: NullEngine;
  scene: Scene;
  skeleton: Skeleton;
  bones: Bone[];
  mesh: Mesh;
  dispose(): void;
}

/** Options of {@link buildTail}. */
export interface TailOptions {
  count: number;
  segment?: number;
  /** Right-handed scene (default left-handed). */
  rightHanded?: boolean;
  /** Where the tail's mesh stands, and its uniform scale. */
  position?: Vector3;
  scale?: number;
  /** A slight curl per bone about Z (radians), so the rest pose is not straight. */
  curl?: number;
  /** Babylon's matrices in doubles (Float32Array otherwise), for tests exact beyond 7 digits. */
  highPrecision?: boolean;
}

/** Builds the tail, pointing up (+Y) from the mesh's origin. */
export function buildTail(o: TailOptions): TailRig {
  const engine = new NullEngine(Object.assign(new NullEngineOptions(), { useHighPrecisionMatrix: !!o.highPrecision }));
  const scene = new Scene(engine);
  scene.useRightHandedSystem = o.rightHanded ?? false;
  new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  const segment = o.segment ?? 0.1;
  const height = segment * o.count;
  const mesh = CreateCylinder(
    "tail",
    { height, diameter: segment * 0.5, tessellation: 8, subdivisions: o.count },
    scene,
  );
  mesh.position.copyFrom(o.position ?? Vector3.Zero());
  mesh.scaling.setAll(o.scale ?? 1);
  // the cylinder is centred on its origin: lift it so that it starts at the root bone
  mesh.bakeTransformIntoVertices(Matrix.Translation(0, height / 2, 0));
  const skeleton = new Skeleton("tail-skeleton", "tail-skeleton", scene);
  const bones: Bone[] = [];
  const curl = o.curl ?? 0;
  for (let i = 0; i < o.count; i++) {
    const local = Matrix.Compose(
      Vector3.One(),
      Quaternion.RotationAxis(new Vector3(0, 0, 1), i === 0 ? 0 : curl),
      new Vector3(0, i === 0 ? 0 : segment, 0),
    );
    bones.push(new Bone(`tail${i}`, skeleton, i === 0 ? null : bones[i - 1]!, local));
  }
  // each vertex follows the bone of its height band
  const positions = mesh.getVerticesData(VertexBuffer.PositionKind)!;
  const indices: number[] = [];
  const weights: number[] = [];
  for (let v = 0; v < positions.length / 3; v++) {
    const k = Math.min(o.count - 1, Math.max(0, Math.floor(positions[v * 3 + 1]! / segment)));
    indices.push(k, 0, 0, 0);
    weights.push(1, 0, 0, 0);
  }
  mesh.setVerticesData(VertexBuffer.MatricesIndicesKind, indices, false);
  mesh.setVerticesData(VertexBuffer.MatricesWeightsKind, weights, false);
  mesh.skeleton = skeleton;
  return {
    engine,
    scene,
    skeleton,
    bones,
    mesh,
    dispose: () => {
      scene.dispose();
      engine.dispose();
    },
  };
}
