import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Node } from "@babylonjs/core/node.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** What solves a skeleton's whole body (a FullBodyBipedIK), as the scene updater orders it. */
export interface BodySolver {
  /** The skeleton it solves. */
  readonly skeleton: Skeleton;
  /** Where it solves among the scene's IKs (FullBodyBipedIK when absent). */
  readonly updateOrder?: number;
}

/** The body solver of each skeleton (one FullBodyBipedIK per skeleton). */
const bodies = new WeakMap<Skeleton, BodySolver>();
/** The body solver on each pelvis node: the skeletons of a glTF model's skins share their nodes, and so its body. */
const bodyNodes = new WeakMap<Node, BodySolver>();
/** Per scene, what re-places itself when a body solver comes or goes (a grounder's legs). */
const watchers = new WeakMap<Scene, Set<() => void>>();

/** The body solver of `skeleton`, or null. */
export function bodySolverOf(skeleton: Skeleton): BodySolver | null {
  return bodies.get(skeleton) ?? null;
}

/** The body solver whose pelvis is on `node` (whichever skeleton it solves), or null. */
export function bodySolverOnNode(node: Node): BodySolver | null {
  return bodyNodes.get(node) ?? null;
}

/**
 * The body solver moving `bones` (of `skeleton`): `skeleton`'s, else the one whose pelvis is on the node of a bone or
 * of one of its parent bones, on another skeleton over the same nodes (a glTF model's other skin); null when none.
 * Parent bones, not parent nodes: a character hung under another's body (a rider, a pet on a shoulder) is not its.
 * Setup-time.
 */
export function bodySolverOver(skeleton: Skeleton, bones: readonly Bone[]): BodySolver | null {
  const own = bodies.get(skeleton);
  if (own !== undefined) return own;
  for (const bone of bones) {
    for (let b: Bone | null = bone; b !== null; b = b.getParent()) {
      const n = b.getTransformNode();
      const body = n === null ? undefined : bodyNodes.get(n);
      if (body !== undefined) return body;
    }
  }
  return null;
}

/**
 * Makes `solver` (null: none) `skeleton`'s body solver, on `pelvis` (its pelvis's node; null: none), and tells the
 * scene's watchers.
 */
export function setBodySolver(skeleton: Skeleton, solver: BodySolver | null, pelvis: Node | null): void {
  const old = bodies.get(skeleton) ?? null;
  if (old === solver) return;
  if (solver === null) bodies.delete(skeleton);
  else bodies.set(skeleton, solver);
  if (pelvis !== null) {
    if (solver !== null) bodyNodes.set(pelvis, solver);
    else if (bodyNodes.get(pelvis) === old) bodyNodes.delete(pelvis);
  }
  const set = watchers.get(skeleton.getScene());
  // a copy: a watcher may stop watching from its callback
  if (set !== undefined) for (const w of [...set]) w();
}

/** Calls `changed` whenever a body solver of `scene` comes or goes; returns what stops it. */
export function watchBodySolver(scene: Scene, changed: () => void): () => void {
  let set = watchers.get(scene);
  if (set === undefined) watchers.set(scene, (set = new Set()));
  set.add(changed);
  return () => {
    set.delete(changed);
  };
}
