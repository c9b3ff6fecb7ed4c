/**
 * Editing a glTF binary's node tree in tests: renaming nodes, inserting helper nodes in line (a twist between an
 * upper arm and its forearm), adding joints (end tips, IK chains, a copy of a leg), and handing a skin's weights
 * from one joint to another. New joints get identity inverse bind matrices, appended with the file's own in a
 * buffer of their own (the binary chunk is kept as it is): they weigh no vertex, so their bind pose is never used.
 */
import { rewriteGlbJson } from "./glb-json.js";

/** A glTF node as far as the edits touch it. */
export interface GlbNode {
  name?: string;
  children?: number[];
  translation?: number[];
  rotation?: number[];
  scale?: number[];
}

/** The parts of a glTF's JSON the edits touch. */
export interface GlbJson {
  nodes: GlbNode[];
  skins?: { joints: number[]; inverseBindMatrices?: number }[];
  accessors: { bufferView?: number; byteOffset?: number; count: number; componentType: number; type: string }[];
  bufferViews: { buffer: number; byteOffset?: number; byteLength: number }[];
  buffers: { byteLength: number; uri?: string }[];
  [key: string]: unknown;
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** The node edits on one glTF's JSON, addressed by node name. */
export class GlbNodes {
  readonly json: GlbJson;
  private readonly bin: Uint8Array;

  constructor(json: GlbJson, bin: Uint8Array) {
    this.json = json;
    this.bin = bin;
  }

  /** The index of the node named `name`. */
  index(name: string): number {
    const i = this.json.nodes.findIndex((n) => n.name === name);
    if (i < 0) throw new Error(`no node ${name}`);
    return i;
  }

  /** Renames nodes (old name → new name; names not found are an error). */
  rename(names: Record<string, string>): void {
    const at = Object.keys(names).map((from) => [this.index(from), names[from]!] as const);
    for (const [i, to] of at) this.json.nodes[i]!.name = to;
  }

  /** The parent of node `i`, -1 for a scene root. */
  parent(i: number): number {
    return this.json.nodes.findIndex((n) => n.children?.includes(i));
  }

  /** Adds a node under `parent` at `translation` (no rotation), a joint of every skin holding `parent`. */
  add(name: string, parent: string, translation: readonly number[] = [0, 0, 0]): number {
    return this.addNode({ name, translation: [...translation] }, this.index(parent));
  }

  /**
   * Inserts a node between `child` and its parent, `share` of the way from the parent to the child (its rotation
   * none, so the child keeps its own and the rest of its offset).
   */
  insertAbove(child: string, name: string, share = 0): number {
    const c = this.index(child);
    const node = this.json.nodes[c]!;
    const t = node.translation ?? [0, 0, 0];
    const p = this.parent(c);
    const i = this.addNode({ name, translation: t.map((v) => v * share) }, p);
    this.json.nodes[p]!.children = this.json.nodes[p]!.children!.filter((k) => k !== c);
    this.json.nodes[i]!.children = [c];
    node.translation = t.map((v) => v * (1 - share));
    return i;
  }

  /** Moves `child` under `parent` (its own transform kept: `parent` must be where its old parent was). */
  reparent(child: string, parent: string): void {
    const c = this.index(child);
    const old = this.json.nodes[this.parent(c)]!;
    old.children = old.children!.filter((k) => k !== c);
    const p = this.json.nodes[this.index(parent)]!;
    p.children = [...(p.children ?? []), c];
  }

  /** Copies the chain `names` (each the child of the one before) under `parent`, the copies named `copies`. */
  copyChain(names: readonly string[], copies: readonly string[], parent: string): void {
    let p = this.index(parent);
    names.forEach((name, k) => {
      const { children: _, ...transform } = this.json.nodes[this.index(name)]!;
      p = this.addNode({ ...structuredClone(transform), name: copies[k]! }, p);
    });
  }

  /** Swaps two joints' places in every skin: the weights (and bind poses) of one go to the other. */
  swapJoints(a: string, b: string): void {
    const [i, j] = [this.index(a), this.index(b)];
    for (const skin of this.json.skins ?? []) skin.joints = skin.joints.map((k) => (k === i ? j : k === j ? i : k));
  }

  /** Writes the inverse bind matrices of the joints added (call once, after the edits). */
  finish(): void {
    this.json.skins?.forEach((skin) => {
      const old = skin.inverseBindMatrices;
      const floats: number[] = [];
      if (old !== undefined) {
        const accessor = this.json.accessors[old]!;
        const view = this.json.bufferViews[accessor.bufferView!]!;
        const start = this.bin.byteOffset + (view.byteOffset ?? 0) + (accessor.byteOffset ?? 0);
        const data = new Float32Array(this.bin.buffer.slice(start, start + accessor.count * 64));
        floats.push(...data);
      }
      while (floats.length < skin.joints.length * 16) floats.push(...IDENTITY);
      const bytes = Buffer.from(new Float32Array(floats).buffer);
      this.json.buffers.push({
        byteLength: bytes.length,
        uri: `data:application/octet-stream;base64,${bytes.toString("base64")}`,
      });
      this.json.bufferViews.push({ buffer: this.json.buffers.length - 1, byteLength: bytes.length });
      this.json.accessors.push({
        bufferView: this.json.bufferViews.length - 1,
        count: skin.joints.length,
        componentType: 5126,
        type: "MAT4",
      });
      skin.inverseBindMatrices = this.json.accessors.length - 1;
    });
  }

  private addNode(node: GlbNode, parent: number): number {
    const i = this.json.nodes.push(node) - 1;
    const p = this.json.nodes[parent]!;
    p.children = [...(p.children ?? []), i];
    for (const skin of this.json.skins ?? []) if (skin.joints.includes(parent)) skin.joints.push(i);
    return i;
  }
}

/** `glb` with its nodes edited by `edit` (inverse bind matrices written after). */
export function editGlbNodes(glb: Uint8Array, edit: (nodes: GlbNodes) => void): Uint8Array {
  return rewriteGlbJson<GlbJson>(glb, (json, bin) => {
    const nodes = new GlbNodes(json, bin);
    edit(nodes);
    nodes.finish();
  });
}
