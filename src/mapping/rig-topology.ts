/**
 * The shape of a rig as flat arrays: the bones a solver needs and their ancestors, in depth-first
 * pre-order, so that each bone's descendants are the ids right after it (FlatPose's lazy FK and its
 * "mark the subtree stale" rely on that). Engine-neutral: the adapter says what a node's parent and
 * children are.
 */

/** The depth-first order of `include` and all their ancestors below `stop`, and each one's parent index. */
export interface RigTopology<T> {
  /** The nodes in depth-first pre-order. */
  readonly order: T[];
  /** Index in `order` of each node's parent, or -1 when the parent is not in the order. */
  readonly parents: number[];
}

/**
 * Orders `include` with every ancestor up to (not including) `stop`. Subtrees are visited from `tops`
 * when given (in that order), else from the needed nodes whose parent is not needed, in `include`'s order.
 */
export function buildTopology<T>(
  include: readonly T[],
  parentOf: (node: T) => T | null,
  childrenOf: (node: T) => readonly T[],
  stop: T | null,
  tops?: readonly T[],
): RigTopology<T> {
  const needed = new Set<T>();
  for (const b of include) {
    for (let t: T | null = b; t !== null && t !== stop && !needed.has(t); t = parentOf(t)) needed.add(t);
  }
  const order: T[] = [];
  const visit = (t: T): void => {
    order.push(t);
    for (const c of childrenOf(t)) if (needed.has(c)) visit(c);
  };
  const starts = tops ?? [...needed].filter((t) => !needed.has(parentOf(t) as T));
  for (const t of starts) if (needed.has(t)) visit(t);
  const ids = new Map<T, number>(order.map((t, i) => [t, i]));
  const parents = order.map((t) => {
    const p = parentOf(t);
    return p !== null ? (ids.get(p) ?? -1) : -1;
  });
  return { order, parents };
}

/** One past the last descendant of each id, for parents in depth-first pre-order. */
export function subtreeEnds(parents: readonly number[]): number[] {
  const n = parents.length;
  const ends = new Array<number>(n).fill(n);
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = parents[i]!;
    while (stack.length > 0 && stack[stack.length - 1] !== p) ends[stack.pop()!] = i;
    stack.push(i);
  }
  while (stack.length > 0) ends[stack.pop()!] = n;
  return ends;
}
