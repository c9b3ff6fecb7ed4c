/**
 * Reads the skeleton of a glTF 2.0 file (.glb or .gltf) as detection sees it, from the JSON alone: the
 * joints of skins[0], parent indices from nodes[].children, and rest positions (the node TRS stored in
 * the file) in the frame of the root joint's parent, listed parent-first (depth-first, in the order of
 * nodes[].children).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { RigBoneInfo } from "../../src/mapping/detection/detect-references.js";

interface GltfNode {
  name?: string;
  children?: number[];
  matrix?: number[];
  translation?: [number, number, number];
  rotation?: [number, number, number, number];
  scale?: [number, number, number];
}

interface GltfJson {
  nodes?: GltfNode[];
  skins?: { joints: number[] }[];
}

/** Column-major 4×4 matrix, as in glTF. */
type Mat4 = number[];

const IDENTITY: Mat4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

function multiply(a: Mat4, b: Mat4): Mat4 {
  const out = new Array<number>(16).fill(0);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r]! += a[k * 4 + r]! * b[c * 4 + k]!;
  return out;
}

function localMatrix(node: GltfNode): Mat4 {
  if (node.matrix) return node.matrix.slice();
  const [tx, ty, tz] = node.translation ?? [0, 0, 0];
  const [x, y, z, w] = node.rotation ?? [0, 0, 0, 1];
  const [sx, sy, sz] = node.scale ?? [1, 1, 1];
  return [
    (1 - 2 * (y * y + z * z)) * sx,
    2 * (x * y + z * w) * sx,
    2 * (x * z - y * w) * sx,
    0,
    2 * (x * y - z * w) * sy,
    (1 - 2 * (x * x + z * z)) * sy,
    2 * (y * z + x * w) * sy,
    0,
    2 * (x * z + y * w) * sz,
    2 * (y * z - x * w) * sz,
    (1 - 2 * (x * x + y * y)) * sz,
    0,
    tx,
    ty,
    tz,
    1,
  ];
}

/** The JSON of a .glb (chunk 0) or a .gltf file. */
export function readGltfJson(path: string): GltfJson {
  const bytes = readFileSync(path);
  if (bytes.readUInt32LE(0) !== 0x46546c67) return JSON.parse(bytes.toString("utf8")) as GltfJson; // not "glTF": a .gltf
  const length = bytes.readUInt32LE(12);
  if (bytes.readUInt32LE(16) !== 0x4e4f534a) throw new Error(`${path}: the first GLB chunk is not JSON`);
  return JSON.parse(bytes.subarray(20, 20 + length).toString("utf8")) as GltfJson;
}

/** The skeleton of skins[0] of a glTF file, parent-first, positions in the root joint's parent frame. */
export function readGltfSkeleton(path: string): RigBoneInfo[] {
  const json = readGltfJson(path);
  const nodes = json.nodes ?? [];
  const joints = json.skins?.[0]?.joints;
  if (!joints || joints.length === 0) throw new Error(`${path}: no skins[0].joints`);
  const parentNode = new Array<number>(nodes.length).fill(-1);
  nodes.forEach((n, i) => n.children?.forEach((c) => (parentNode[c] = i)));
  const isJoint = new Set(joints);
  const jointParent = (node: number): number => {
    for (let p = parentNode[node]!; p >= 0; p = parentNode[p]!) if (isJoint.has(p)) return p;
    return -1;
  };

  // world matrices of every node (scene roots are the nodes without a parent)
  const world = new Array<Mat4 | null>(nodes.length).fill(null);
  const worldOf = (i: number): Mat4 => {
    const cached = world[i];
    if (cached) return cached;
    const p = parentNode[i]!;
    const m = multiply(p >= 0 ? worldOf(p) : IDENTITY, localMatrix(nodes[i]!));
    world[i] = m;
    return m;
  };

  const roots = joints.filter((j) => jointParent(j) < 0);
  const frameNode = parentNode[roots[0]!]!;
  const frame = frameNode >= 0 ? worldOf(frameNode) : IDENTITY;
  const toFrame = (m: Mat4): { x: number; y: number; z: number } => {
    // solve frame * p = world position (frame is affine; invert its 3×3 by Cramer's rule)
    const w = [m[12]! - frame[12]!, m[13]! - frame[13]!, m[14]! - frame[14]!];
    const a = [frame[0]!, frame[1]!, frame[2]!, frame[4]!, frame[5]!, frame[6]!, frame[8]!, frame[9]!, frame[10]!];
    const det =
      a[0]! * (a[4]! * a[8]! - a[7]! * a[5]!) -
      a[3]! * (a[1]! * a[8]! - a[7]! * a[2]!) +
      a[6]! * (a[1]! * a[5]! - a[4]! * a[2]!);
    const col = (i: number): number[] => [a[i * 3]!, a[i * 3 + 1]!, a[i * 3 + 2]!];
    const cramer = (k: number): number => {
      const cols = [col(0), col(1), col(2)];
      cols[k] = w;
      const [c0, c1, c2] = cols as [number[], number[], number[]];
      return (
        (c0[0]! * (c1[1]! * c2[2]! - c2[1]! * c1[2]!) -
          c1[0]! * (c0[1]! * c2[2]! - c2[1]! * c0[2]!) +
          c2[0]! * (c0[1]! * c1[2]! - c1[1]! * c0[2]!)) /
        det
      );
    };
    return { x: cramer(0), y: cramer(1), z: cramer(2) };
  };

  // depth-first from the root joints, following nodes[].children order
  const bones: RigBoneInfo[] = [];
  const visit = (node: number, parent: number): void => {
    const index = bones.length;
    bones.push({ name: nodes[node]!.name ?? `node${node}`, parent, position: toFrame(worldOf(node)) });
    const descend = (n: number): void => {
      for (const c of nodes[n]!.children ?? []) {
        if (isJoint.has(c)) visit(c, index);
        else descend(c); // joints under a non-joint node inside the skeleton
      }
    };
    descend(node);
  };
  for (const r of roots) visit(r, -1);
  return bones;
}

/** Repository root (two levels above this file). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Models committed with the repository (CC0). */
export const REPO_MODELS = resolve(REPO_ROOT, "test/assets/models");

/** The shared developer model set next to the repository (../shared/assets/models), or null when absent. */
export function sharedModelsDir(): string | null {
  for (const dir of [resolve(REPO_ROOT, "../shared/assets/models"), "/work/shared/assets/models"]) {
    if (existsSync(dir)) return dir;
  }
  return null;
}
