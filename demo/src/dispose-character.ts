/** Taking a spawned character away again: the counterpart of `ctx.spawn` (the crowd's count slider). */
import type { Character, Ctx } from "./kit";

function remove<T>(list: T[], item: T): void {
  const i = list.lastIndexOf(item);
  if (i >= 0) list.splice(i, 1);
}

/** Disposes `c` (its IK, clips, skeleton and meshes; the model's shared materials stay) and forgets it. */
export function disposeCharacter(ctx: Ctx, c: Character): void {
  // the IK first: it hands the bones back to the animation and leaves the scene's update list
  c.ik.dispose();
  for (const g of [...c.clips, ...c.extra]) g.dispose();
  c.idle?.dispose();
  c.root.dispose(false, false);
  c.skeleton.dispose();
  remove(ctx.iks, c.ik);
  remove(ctx.components, c.ik);
  remove(ctx.characters, c);
}
