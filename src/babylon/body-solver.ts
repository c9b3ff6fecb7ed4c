import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";

/** What solves a skeleton's whole body (a FullBodyBipedIK), as the scene updater orders it. */
export interface BodySolver {
  /** The skeleton it solves. */
  readonly skeleton: Skeleton;
  /** Where it solves among the scene's IKs (FullBodyBipedIK when absent). */
  readonly updateOrder?: number;
}

/** The body solver of each skeleton (one FullBodyBipedIK per skeleton). */
const bodies = new WeakMap<Skeleton, BodySolver>();
/** Per skeleton, what re-places itself when its body solver comes or goes (a grounder's legs). */
const watchers = new WeakMap<Skeleton, Set<() => void>>();

/** The body solver of `skeleton`, or null. */
export function bodySolverOf(skeleton: Skeleton): BodySolver | null {
  return bodies.get(skeleton) ?? null;
}

/** Makes `solver` (null: none) `skeleton`'s body solver and tells its watchers. */
export function setBodySolver(skeleton: Skeleton, solver: BodySolver | null): void {
  if ((bodies.get(skeleton) ?? null) === solver) return;
  if (solver === null) bodies.delete(skeleton);
  else bodies.set(skeleton, solver);
  const set = watchers.get(skeleton);
  // a copy: a watcher may stop watching from its callback
  if (set !== undefined) for (const w of [...set]) w();
}

/** Calls `changed` whenever `skeleton`'s body solver comes or goes; returns what stops it. */
export function watchBodySolver(skeleton: Skeleton, changed: () => void): () => void {
  let set = watchers.get(skeleton);
  if (set === undefined) watchers.set(skeleton, (set = new Set()));
  set.add(changed);
  return () => {
    set.delete(changed);
  };
}
