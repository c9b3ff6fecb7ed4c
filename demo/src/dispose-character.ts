/**
 * Taking a spawned character away again: the counterpart of `ctx.spawn` (the crowd's count slider); or only its
 * FullBodyBipedIK, for another IK (the biped scenario).
 */
import type { Character, Ctx } from "./kit";

function remove<T>(list: T[], item: T): void {
  const i = list.lastIndexOf(item);
  if (i >= 0) list.splice(i, 1);
}

/**
 * Disposes the FullBodyBipedIK `spawn` attached to `c` and takes it off the panel's and the IK switch's lists: a
 * scenario that drives the character with another IK (BipedIK refuses a character that has one) calls it first.
 */
export function detachFullBodyIK(ctx: Ctx, c: Character): void {
  // it hands the bones back to the animation and leaves the scene's update list
  c.ik.dispose();
  remove(ctx.iks, c.ik);
  remove(ctx.components, c.ik);
}

/** Disposes `c` (its IK, clips, skeleton and meshes; the model's shared materials stay) and forgets it. */
export function disposeCharacter(ctx: Ctx, c: Character): void {
  // the IK first
  detachFullBodyIK(ctx, c);
  for (const g of [...c.clips, ...c.extra]) g.dispose();
  c.idle?.dispose();
  c.root.dispose(false, false);
  c.skeleton.dispose();
  remove(ctx.characters, c);
}
