/**
 * A number passed by reference, for the hot paths.
 *
 * V8 boxes a double passed to or returned from a call it does not inline (a 16-byte heap object per
 * call), but reads and writes a double field in place. So per-frame code hands weights to helpers
 * through a `NumberRef` (see `lerpByRef`, `nlerpByRef`, `applySmoothing`), and helpers that produce a number
 * write it into one (`usablePositionWeightToRef`).
 *
 * A class, not an object literal: literals with the same property names share V8's hidden class with
 * every other `{ value }` object in the program (property descriptors, iterator results, Babylon's own),
 * and once one of those holds a non-number, every double stored into any of them is a new heap object.
 */
export class NumberRef {
  /** The number. */
  value: number;

  /** Creates a reference holding `value` (0 by default). */
  constructor(value = 0) {
    this.value = value;
  }
}
