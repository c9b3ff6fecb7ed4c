import type { Node } from "@babylonjs/core/node.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";

/** Babylon's list of a node's children (protected): read to walk a hierarchy without a new array. */
interface NodeChildren {
  _children: Node[] | null | undefined;
}

/** Name key for matching finger bones to pose nodes: without a namespace prefix ("mixamorig:"), lower case. */
function nameKey(name: string): string {
  const i = name.lastIndexOf(":");
  return (i >= 0 ? name.slice(i + 1) : name).toLowerCase();
}

/** One pose hierarchy matched to the fingers, and what the match was made from (to tell when it is stale). */
interface PoseMatch {
  /** The pose root's TransformNode descendants, in Babylon's getDescendants order, and their names. */
  readonly nodes: TransformNode[];
  readonly names: string[];
  /** The fingers' node names. */
  readonly boneNames: string[];
  /** Per finger, its pose node. */
  readonly poseNodes: (TransformNode | null)[];
  readonly matched: number;
}

/**
 * The index after `node`'s TransformNode descendants when they are `nodes` from `at` on with the `names`
 * (pre-order, as getDescendants lists them), else -1: a walk that allocates nothing.
 */
function sameDescendants(node: Node, nodes: TransformNode[], names: string[], at: number): number {
  const children = (node as unknown as NodeChildren)._children;
  if (children === null || children === undefined) return at;
  let k = at;
  for (let i = 0; i < children.length; i++) {
    const c = children[i]!;
    if (c instanceof TransformNode) {
      if (k >= nodes.length || nodes[k] !== c || names[k] !== c.name) return -1;
      k++;
    }
    k = sameDescendants(c, nodes, names, k);
    if (k < 0) return -1;
  }
  return k;
}

/**
 * A hand poser's matches of pose hierarchies to its finger bones by name, kept per pose root: an interaction
 * start points the poser at its target, and matching anew (name keys, maps) cost 2 KB a start. A kept match
 * is used while the root's descendants and every name involved are the same as when it was made; a node
 * added, removed, moved or renamed under the root, or a finger renamed, makes it anew.
 */
export class PoseMatches {
  private readonly byRoot = new WeakMap<TransformNode, PoseMatch>();

  /** Matches for `bones`, whose skeleton bones' names (null: none) are `boneNames`. */
  constructor(
    private readonly bones: readonly TransformNode[],
    private readonly boneNames: readonly (string | null)[],
  ) {}

  /**
   * Writes into `out` each finger's pose node under `root` (exactly, then without namespace and case; the
   * node's name first, then its bone's) and returns the number matched.
   */
  match(root: TransformNode, out: (TransformNode | null)[]): number {
    let m = this.byRoot.get(root);
    if (m === undefined || !this.isCurrent(root, m)) {
      m = this.make(root);
      this.byRoot.set(root, m);
    }
    for (let i = 0; i < out.length; i++) out[i] = m.poseNodes[i] ?? null;
    return m.matched;
  }

  private isCurrent(root: TransformNode, m: PoseMatch): boolean {
    const bones = this.bones;
    for (let i = 0; i < bones.length; i++) if (bones[i]!.name !== m.boneNames[i]) return false;
    return sameDescendants(root, m.nodes, m.names, 0) === m.nodes.length;
  }

  private make(root: TransformNode): PoseMatch {
    const nodes = root.getDescendants(false, (n) => n instanceof TransformNode) as TransformNode[];
    const exact = new Map<string, TransformNode>();
    const loose = new Map<string, TransformNode>();
    for (const c of nodes) {
      if (!exact.has(c.name)) exact.set(c.name, c);
      const k = nameKey(c.name);
      if (!loose.has(k)) loose.set(k, c);
    }
    let matched = 0;
    const poseNodes = this.bones.map((b, i) => {
      const bone = this.boneNames[i] ?? b.name;
      const p = exact.get(b.name) ?? exact.get(bone) ?? loose.get(nameKey(b.name)) ?? loose.get(nameKey(bone)) ?? null;
      if (p !== null) matched++;
      return p;
    });
    return {
      nodes,
      names: nodes.map((n) => n.name),
      boneNames: this.bones.map((b) => b.name),
      poseNodes,
      matched,
    };
  }
}
