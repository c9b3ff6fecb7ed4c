/**
 * A read-only view of a skeleton for reference detection and validation: children lists, depths,
 * subtree heights, and ancestor queries.
 * @module
 */

import { type P3, v3, vlen, vsub } from "../../math/value.js";

export type { P3 } from "../../math/value.js";
export { v3, vadd, vcross, vdot, vlen, vnorm, vreject, vscale, vsub } from "../../math/value.js";

/** One bone of a skeleton as detection sees it. Bones are given parent-first (a parent's index < the child's). */
export interface RigBoneInfo {
  /** Bone name (any convention; used for name-based detection and in messages). */
  name: string;
  /** Index of the parent in the same array, -1 for a root bone. */
  parent: number;
  /** Rest/current position in component space (the frame of the root bone's parent). */
  position: P3;
  /**
   * The bone's local rotation quaternion, when known: a non-finite one is a problem, as a non-finite
   * position is (Babylon would render the bone's subtree as NaN; read as a rotation it would pass for none).
   */
  rotation?: { x: number; y: number; z: number; w: number };
  /**
   * Some vertex of a mesh the skeleton skins is weighted to this bone; undefined when unknown (no mesh read).
   * Where names give a limb twice (a Rigify export's ORG- and DEF- copies), the one that deforms is taken.
   */
  deforms?: boolean;
}

/** Why a bone list cannot be read as a skeleton (empty when it can). */
export function skeletonInputProblems(bones: readonly RigBoneInfo[]): string[] {
  const problems: string[] = [];
  if (bones.length === 0) problems.push("the skeleton has no bones");
  bones.forEach((b, i) => {
    const label = `bone ${i} (${b.name})`;
    if (!Number.isInteger(b.parent) || b.parent < -1 || b.parent >= i) {
      problems.push(
        `${label} has parent ${b.parent}: bones must be listed parent-first (parent index -1 or below the bone's own)`,
      );
    }
    const p = b.position;
    if (!(Number.isFinite(p?.x) && Number.isFinite(p?.y) && Number.isFinite(p?.z)))
      problems.push(`${label} has no finite position`);
    const q = b.rotation;
    if (
      q !== undefined &&
      !(Number.isFinite(q.x) && Number.isFinite(q.y) && Number.isFinite(q.z) && Number.isFinite(q.w))
    ) {
      problems.push(`${label} has no finite rotation`);
    }
  });
  return problems;
}

/** Hierarchy queries over a validated, parent-first bone list. */
export class RigSkeleton {
  readonly bones: readonly RigBoneInfo[];
  /** Children of each bone, in list order. */
  readonly children: number[][];
  /** Hierarchy depth (0 for a root bone). */
  readonly depth: number[];
  /** Bones on the longest path down from each bone, itself included (1 for a leaf). */
  readonly height: number[];
  /** Bones in each bone's subtree, itself included. */
  readonly size: number[];
  /** Diagonal of the bounding box of all bone positions: the character's size for relative tolerances. */
  readonly extent: number;

  constructor(bones: readonly RigBoneInfo[]) {
    this.bones = bones;
    const n = bones.length;
    this.children = bones.map(() => []);
    this.depth = new Array<number>(n).fill(0);
    this.height = new Array<number>(n).fill(1);
    this.size = new Array<number>(n).fill(1);
    for (let i = 0; i < n; i++) {
      const p = bones[i]!.parent;
      if (p >= 0) {
        this.children[p]!.push(i);
        this.depth[i] = this.depth[p]! + 1;
      }
    }
    for (let i = n - 1; i >= 0; i--) {
      const p = bones[i]!.parent;
      if (p >= 0) {
        this.height[p] = Math.max(this.height[p]!, this.height[i]! + 1);
        this.size[p] = this.size[p]! + this.size[i]!;
      }
    }
    let lo = v3(Infinity, Infinity, Infinity);
    let hi = v3(-Infinity, -Infinity, -Infinity);
    for (const b of bones) {
      const p = b.position;
      lo = v3(Math.min(lo.x, p.x), Math.min(lo.y, p.y), Math.min(lo.z, p.z));
      hi = v3(Math.max(hi.x, p.x), Math.max(hi.y, p.y), Math.max(hi.z, p.z));
    }
    this.extent = n > 0 ? vlen(vsub(hi, lo)) : 0;
  }

  /** Bone name for messages. */
  name(i: number): string {
    return this.bones[i]?.name ?? `#${i}`;
  }

  /** Names joined for messages, "(none)" for an empty list. */
  names(list: readonly number[], separator = ", "): string {
    return list.length === 0 ? "(none)" : list.map((i) => this.name(i)).join(separator);
  }

  pos(i: number): P3 {
    return this.bones[i]!.position;
  }

  parent(i: number): number {
    return this.bones[i]!.parent;
  }

  /** True when `a` is a proper ancestor of `b`. */
  isAncestor(a: number, b: number): boolean {
    if (a < 0 || b < 0) return false;
    for (let p = this.parent(b); p >= 0; p = this.parent(p)) if (p === a) return true;
    return false;
  }

  /** True when `a` is `b` or one of its ancestors. */
  isAncestorOrSelf(a: number, b: number): boolean {
    return a === b || this.isAncestor(a, b);
  }

  /** Lowest common ancestor of all `list` bones (a bone counts as its own ancestor), -1 when none. */
  commonAncestor(list: readonly number[]): number {
    let c = list[0] ?? -1;
    for (const b of list.slice(1)) {
      let x = c;
      let y = b;
      while (x >= 0 && y >= 0 && x !== y) {
        if (this.depth[x]! >= this.depth[y]!) x = this.parent(x);
        else y = this.parent(y);
      }
      c = x === y ? x : -1;
      if (c < 0) return -1;
    }
    return c;
  }

  /** Bones strictly between ancestor `a` and descendant `b`, top-down. */
  between(a: number, b: number): number[] {
    const path: number[] = [];
    for (let p = this.parent(b); p >= 0 && p !== a; p = this.parent(p)) path.unshift(p);
    return path;
  }

  /** Distance between two bones. */
  distance(a: number, b: number): number {
    return vlen(vsub(this.pos(a), this.pos(b)));
  }

  /**
   * The main chain from `start` down: at each bone, continue into the child with the longest path below
   * it (then the larger subtree, then the first), preferring children `keep` accepts.
   */
  mainChain(start: number, keep: (bone: number) => boolean = () => true): number[] {
    const chain = [start];
    for (let cur = start; ; ) {
      const kids = this.children[cur]!;
      if (kids.length === 0) return chain;
      const pool = kids.some(keep) ? kids.filter(keep) : kids;
      let best = pool[0]!;
      for (const k of pool) {
        if (
          this.height[k]! > this.height[best]! ||
          (this.height[k] === this.height[best] && this.size[k]! > this.size[best]!)
        )
          best = k;
      }
      chain.push(best);
      cur = best;
    }
  }
}
