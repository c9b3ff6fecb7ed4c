import type { Node } from "@babylonjs/core/node.js";

/** An IK that can be asked to solve now, ahead of its place in the scene's order (once a frame). */
export interface OrderedSolve {
  /** @internal Solves now unless it did this frame (what the scene updater's pass calls). */
  _beforeRender(): void;
}

/** The IK whose rig holds each node (a bone's TransformNode, or the Bone of a skeleton without nodes). */
const owners = new WeakMap<Node, OrderedSolve>();
/** The IKs with nodes claimed: with fewer than two, no IK can hang from another's (and nothing is looked up). */
const claimants = new Set<OrderedSolve>();

/** Marks `nodes` as moved by `ik`'s solve. */
export function claimNodes(ik: OrderedSolve, nodes: readonly (Node | null)[]): void {
  claimants.add(ik);
  for (const n of nodes) if (n !== null) owners.set(n, ik);
}

/** Undoes {@link claimNodes} for the nodes still `ik`'s. */
export function releaseNodes(ik: OrderedSolve, nodes: readonly (Node | null)[]): void {
  claimants.delete(ik);
  for (const n of nodes) if (n !== null && owners.get(n) === ik) owners.delete(n);
}

/** True when two or more IKs have claimed nodes (any scene): only then may one hang from another. */
export function severalClaimants(): boolean {
  return claimants.size > 1;
}

/**
 * Solves first the nearest other IK whose bones `node` hangs from (`node` itself included): a rider
 * parented to a mount's spine, a hand target parented to another character's hand. Solved in creation
 * order instead, the rider would read where the mount's bones were before the mount's IK moved them (13 % of
 * the height off on a rein, measured). That IK does the same for the nodes it hangs from.
 */
export function solveOwnerAbove(node: Node | null, self: OrderedSolve): void {
  for (let a = node; a !== null; a = a.parent) {
    const owner = owners.get(a);
    if (owner !== undefined && owner !== self) {
      owner._beforeRender();
      return;
    }
  }
}
