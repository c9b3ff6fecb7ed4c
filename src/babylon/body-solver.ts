import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Node } from "@babylonjs/core/node.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { FBBIKError } from "../solver/errors.js";
import type { SceneUpdatable } from "./scene-updater.js";

/** What solves a character's whole body (a FullBodyBipedIK or a BipedIK): one per character. */
export interface BodySolver {
  /** The skeleton it solves. */
  readonly skeleton: Skeleton;
  /** Where it solves among the scene's IKs (FullBodyBipedIK when absent). */
  readonly updateOrder?: number;
  /** Its class ("FullBodyBipedIK", "BipedIK"), for the refusal's words. */
  getClassName(): string;
}

/** A body solver the grounders' legs solve before (a FullBodyBipedIK): it solves in the scene updater itself. */
export type LeadingBodySolver = BodySolver & SceneUpdatable;

/** The body solver of each skeleton. */
const bodies = new WeakMap<Skeleton, BodySolver>();
/** The body solver on each pelvis node: the skeletons of a glTF model's skins share their nodes, and so its body. */
const bodyNodes = new WeakMap<Node, BodySolver>();
/** The pelvis node each body solver was added on (null: none), which its removal frees. */
const pelvisNodes = new WeakMap<BodySolver, Node | null>();
/** The body solvers the grounders' legs solve before (FullBodyBipedIK; a BipedIK's feet are legs themselves). */
const leaders = new WeakSet<object>();
/** Per scene, what re-places itself when a body solver the grounders lead comes or goes (a grounder's legs). */
const watchers = new WeakMap<Scene, Set<() => void>>();

/** The body solver of `skeleton` (a FullBodyBipedIK or a BipedIK), or null. */
export function bodySolverOf(skeleton: Skeleton): BodySolver | null {
  return bodies.get(skeleton) ?? null;
}

/**
 * Throws {@link FBBIKError} (of `component`, the class being created) when `skeleton` already has a body solver, or
 * another skeleton has one on `pelvis` (a glTF model's other skin over the same nodes): two would each take the
 * other's output for the animated pose and fight over the bones every frame. Setup-time.
 */
export function refuseSecondBody(component: string, skeleton: Skeleton, pelvis: Node | null): void {
  const own = bodies.get(skeleton);
  if (own !== undefined) {
    throw new FBBIKError(
      [
        `skeleton "${skeleton.name}" already has a ${own.getClassName()}` +
          (own.getClassName() === component ? "" : `, which a ${component} would fight over the bones`) +
          "; dispose it before creating another one",
      ],
      component,
    );
  }
  const other = pelvis === null ? undefined : bodyNodes.get(pelvis);
  if (other === undefined) return;
  throw new FBBIKError(
    [
      `skeleton "${skeleton.name}" moves the same nodes as skeleton "${other.skeleton.name}", which already has ` +
        `a ${other.getClassName()} (a glTF model has a skeleton per skin, all on the same nodes): that one IK ` +
        "drives the character; dispose it before creating another one",
    ],
    component,
  );
}

/**
 * The body solver the grounders' legs on `bones` (of `skeleton`) solve before: `skeleton`'s FullBodyBipedIK, else the
 * one whose pelvis is on the node of a bone or of one of its parent bones, on another skeleton over the same nodes (a
 * glTF model's other skin); null when none. A BipedIK is none: the legs keep their own place. Parent bones, not
 * parent nodes: a character hung under another's body (a rider, a pet on a shoulder) is not its. Setup-time.
 */
export function bodySolverOver(skeleton: Skeleton, bones: readonly Bone[]): LeadingBodySolver | null {
  const own = bodies.get(skeleton);
  if (leads(own)) return own;
  for (const bone of bones) {
    for (let b: Bone | null = bone; b !== null; b = b.getParent()) {
      const n = b.getTransformNode();
      const body = n === null ? undefined : bodyNodes.get(n);
      if (leads(body)) return body;
    }
  }
  return null;
}

/**
 * Makes `solver` its skeleton's body solver, on `pelvis` (its pelvis's node; null: none), after
 * {@link refuseSecondBody}. With `leadsGrounders` (a FullBodyBipedIK), the grounders' legs move before it: the scene's
 * watchers are told.
 */
export function addBodySolver(solver: LeadingBodySolver, pelvis: Node | null, leadsGrounders: true): void;
/** {@link addBodySolver} of a body solver the grounders leave alone (a BipedIK), for the refusal only. */
export function addBodySolver(solver: BodySolver, pelvis: Node | null, leadsGrounders: false): void;
export function addBodySolver(solver: BodySolver, pelvis: Node | null, leadsGrounders: boolean): void {
  bodies.set(solver.skeleton, solver);
  pelvisNodes.set(solver, pelvis);
  if (pelvis !== null) bodyNodes.set(pelvis, solver);
  if (!leadsGrounders) return;
  leaders.add(solver);
  tellWatchers(solver.skeleton.getScene());
}

/** Frees `solver`'s skeleton and pelvis node for another body solver, at once; nothing when not added. */
export function removeBodySolver(solver: BodySolver): void {
  if (bodies.get(solver.skeleton) !== solver) return;
  bodies.delete(solver.skeleton);
  const pelvis = pelvisNodes.get(solver) ?? null;
  pelvisNodes.delete(solver);
  if (pelvis !== null && bodyNodes.get(pelvis) === solver) bodyNodes.delete(pelvis);
  if (leaders.delete(solver)) tellWatchers(solver.skeleton.getScene());
}

/** Whether `body` is one the grounders' legs solve before (added with `leadsGrounders`). */
function leads(body: BodySolver | undefined): body is LeadingBodySolver {
  return body !== undefined && leaders.has(body);
}

/** Calls the watchers of `scene`. */
function tellWatchers(scene: Scene): void {
  const set = watchers.get(scene);
  // a copy: a watcher may stop watching from its callback
  if (set !== undefined) for (const w of [...set]) w();
}

/** Calls `changed` whenever a body solver the grounders lead comes or goes in `scene`; returns what stops it. */
export function watchBodySolver(scene: Scene, changed: () => void): () => void {
  let set = watchers.get(scene);
  if (set === undefined) watchers.set(scene, (set = new Set()));
  set.add(changed);
  return () => {
    set.delete(changed);
  };
}
