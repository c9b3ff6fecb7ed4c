/**
 * A minimal allocation-free observable for the solver's hooks (Babylon's Observable shape without the
 * Babylon import). Notifying iterates a plain array and allocates nothing.
 */
export class SolverObservable<T = void> {
  private readonly callbacks: Array<(value: T) => void> = [];
  /** Index of the callback being called by `notify`, -1 outside it (a removal adjusts it). */
  private current = -1;

  /** Registers `callback`; returns it so it can be passed to `remove`. */
  add(callback: (value: T) => void): (value: T) => void {
    this.callbacks.push(callback);
    return callback;
  }

  /** Unregisters `callback`; returns true if it was registered. */
  remove(callback: (value: T) => void): boolean {
    const i = this.callbacks.indexOf(callback);
    if (i < 0) return false;
    this.callbacks.splice(i, 1);
    // removed during notify at or before the callback being called: the next one must not be skipped
    if (i <= this.current) this.current--;
    return true;
  }

  /** Removes every callback. */
  clear(): void {
    this.callbacks.length = 0;
  }

  /** Number of registered callbacks. */
  get observerCount(): number {
    return this.callbacks.length;
  }

  /** True when at least one callback is registered. */
  hasObservers(): boolean {
    return this.callbacks.length > 0;
  }

  /**
   * Calls every callback with `value`, in registration order. A callback may remove itself or any other:
   * none still registered is skipped, and one removed before its turn is not called.
   */
  notify(value: T): void {
    const cbs = this.callbacks;
    // (a nested notify, from a callback, keeps its own position)
    const outer = this.current;
    try {
      for (this.current = 0; this.current < cbs.length; this.current++) cbs[this.current]!(value);
    } finally {
      this.current = outer;
    }
  }
}
