import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { UndoOnCopy } from "./animation-snapshots.js";

/** Skeleton's own `clone`, as the wrapper calls it. */
type CloneFn = (this: Skeleton, name: string, id?: string) => Skeleton;

/**
 * Clones of a skeleton with an IK component, taken between frames (`container.instantiateModelsToScene` of a
 * character in the scene, a spawner copying it): Babylon copies each linked node's local transform as it stands,
 * with the IK's output on it, so the clone would start from the IK's pose (a hand held 0.3 h up stayed there on a
 * clone without clip, and a clip's cross-fade or the clone's own IK started from it). The clone is noticed by an
 * own, non-enumerable `clone` on each watched skeleton; {@link settle}, before the next FixTransforms, gives each
 * cloned node whose rotation or position still holds what an IK wrote on its source node the animated value that
 * write replaced, as FixTransforms does on the source.
 */
export class CloneSnapshots {
  /** The wrappers installed, by skeleton. */
  private readonly wrapped = new Map<Skeleton, CloneFn>();
  /** Clones not settled yet: source, clone, flattened. */
  private readonly pending: Skeleton[] = [];

  constructor(private readonly undo: UndoOnCopy) {}

  /** Notes the clones of `skeleton` from now on. */
  watch(skeleton: Skeleton): void {
    if (this.wrapped.has(skeleton) || Object.hasOwn(skeleton, "clone")) return;
    const inherited = (Object.getPrototypeOf(skeleton) as { clone: CloneFn }).clone;
    const pending = this.pending;
    const clone: CloneFn = function (this: Skeleton, name: string, id?: string): Skeleton {
      const made = inherited.call(this, name, id);
      pending.push(this, made);
      return made;
    };
    Object.defineProperty(skeleton, "clone", { value: clone, configurable: true, writable: true, enumerable: false });
    this.wrapped.set(skeleton, clone);
  }

  /** Takes the wrapper off `skeleton` (its last IK component is gone). */
  unwatch(skeleton: Skeleton): void {
    const clone = this.wrapped.get(skeleton);
    if (clone === undefined) return;
    this.wrapped.delete(skeleton);
    const own = Object.getOwnPropertyDescriptor(skeleton, "clone");
    if (own?.value === clone) delete (skeleton as { clone?: unknown }).clone;
  }

  /** The clones' nodes that hold an IK's output on their source get the animated value (cheap when none). */
  settle(): void {
    const pending = this.pending;
    if (pending.length === 0) return;
    for (let i = 0; i < pending.length; i += 2) {
      const source = pending[i]!.bones;
      const copy = pending[i + 1]!.bones;
      for (let b = 0; b < source.length && b < copy.length; b++) {
        const from = source[b]!.getTransformNode();
        const to = copy[b]!.getTransformNode();
        // a skeleton cloned alone links its bones to the same nodes: nothing was copied
        if (from === null || to === null || from === to) continue;
        if (to.rotationQuaternion !== null) this.undo(from, "rotationQuaternion", to.rotationQuaternion);
        else this.undo(from, "rotation", to.rotation);
        this.undo(from, "position", to.position);
      }
    }
    pending.length = 0;
  }

  /** Takes every wrapper off (the scene's last IK component is gone). */
  dispose(): void {
    for (const skeleton of [...this.wrapped.keys()]) this.unwatch(skeleton);
    this.pending.length = 0;
  }
}
