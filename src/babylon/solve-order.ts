import type { Node } from "@babylonjs/core/node.js";

/** An IK that can be asked to solve now, ahead of its place in the scene's order (once a frame). */
export interface OrderedSolve {
  /** @internal Solves now unless it did this frame (what the scene updater's pass calls). */
  _beforeRender(): void;
  /** Where it solves among the scene's IKs (the scene updater's order; FullBodyBipedIK when absent). */
  readonly updateOrder?: number;
  /** @internal True while it waits for the IKs it hangs from to solve (it cannot solve before them now). */
  readonly _ordering: boolean;
}

/** A component hooked on an IK's solve that reads nodes of the scene there (FBBIKHeadEffector's headset). */
export interface HookTargets {
  /** @internal Asks the IKs its nodes hang from to solve first ({@link solveOwnerAbove}, for its IK). */
  _solveTargetOwners(): void;
}

/**
 * The IKs that move each node (a bone's TransformNode, or the Bone of a skeleton without nodes), in the
 * scene updater's order: a FullBodyBipedIK and a LookAtIK both turn a character's spine.
 */
const owners = new WeakMap<Node, OrderedSolve[]>();
/** The IKs with nodes claimed: with fewer than two, no IK can hang from another's (and nothing is looked up). */
const claimants = new Set<OrderedSolve>();
/** When each IK first claimed nodes: equal updateOrders solve in the order the IKs were added to the scene. */
const ranks = new WeakMap<OrderedSolve, number>();
let nextRank = 0;
/** How many {@link solveOwnerAbove} calls are asking IKs to solve now: above 0, an IK is asked ahead of its place. */
let asking = 0;

/** True when `a` solves before `b` in the scene updater's pass. */
function solvesBefore(a: OrderedSolve, b: OrderedSolve): boolean {
  const oa = a.updateOrder ?? 0;
  const ob = b.updateOrder ?? 0;
  return oa < ob || (oa === ob && ranks.get(a)! < ranks.get(b)!);
}

/** Marks `nodes` as moved by `ik`'s solve (call it as the IK joins the scene updater). */
export function claimNodes(ik: OrderedSolve, nodes: readonly (Node | null)[]): void {
  claimants.add(ik);
  if (!ranks.has(ik)) ranks.set(ik, nextRank++);
  for (const n of nodes) {
    if (n === null) continue;
    let list = owners.get(n);
    if (list === undefined) owners.set(n, (list = []));
    if (list.includes(ik)) continue;
    let at = list.length;
    while (at > 0 && solvesBefore(ik, list[at - 1]!)) at--;
    list.splice(at, 0, ik);
  }
}

/** Undoes {@link claimNodes}. */
export function releaseNodes(ik: OrderedSolve, nodes: readonly (Node | null)[]): void {
  claimants.delete(ik);
  for (const n of nodes) {
    const list = n === null ? undefined : owners.get(n);
    const i = list === undefined ? -1 : list.indexOf(ik);
    if (i >= 0) list!.splice(i, 1);
  }
}

/** True while an IK is being asked to solve ahead of its place in the scene's pass (by {@link solveOwnerAbove}). */
export function askedAhead(): boolean {
  return asking > 0;
}

/** @internal How many IKs have nodes claimed, in every scene (for tests: a disposed scene's IKs leave none). */
export function claimantCount(): number {
  return claimants.size;
}

/** True when two or more IKs have claimed nodes (any scene): only then may one hang from another. */
export function severalClaimants(): boolean {
  return claimants.size > 1;
}

/**
 * Solves first the other IKs that move a node `node` hangs from (`node` itself included), nearest first, each
 * level in the scene's order: a rider parented to a mount's spine, a hand target parented to another
 * character's hand, and the LookAtIK turning that character's chest above the hand (asked at the nearest level
 * only, a hand on it was 17 % of the height off, measured). Solved in creation order instead, the rider would
 * read where the mount's bones were before the mount's IK moved them (13 % of the height off on a rein). Those
 * IKs do the same for the nodes they hang from. `earlierOnly`: only those that solve before `self` in the
 * scene's order (the IKs under `self`'s own bones, when something asked `self` to solve ahead of its place);
 * true then when one of them could not solve yet (it waits for `self`, a cycle): `self` must not solve before
 * it, but in its place.
 */
export function solveOwnerAbove(node: Node | null, self: OrderedSolve, earlierOnly = false): boolean {
  let blocked = false;
  for (let a = node; a !== null; a = a.parent) {
    const list = owners.get(a);
    if (list === undefined) continue;
    for (let i = 0; i < list.length; i++) {
      const owner = list[i]!;
      if (owner === self || (earlierOnly && !solvesBefore(owner, self))) continue;
      asking++;
      try {
        owner._beforeRender();
      } finally {
        asking--;
      }
      if (earlierOnly && owner._ordering) blocked = true;
    }
  }
  return blocked;
}
