/**
 * A minimal allocation-free observable for the solver's hooks (Babylon's Observable shape without the
 * Babylon import). Notifying iterates a plain array and allocates nothing.
 */
export class SolverObservable<T = void> {
  private readonly callbacks: Array<(value: T) => void> = [];

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

  /** Calls every callback with `value`, in registration order. */
  notify(value: T): void {
    const cbs = this.callbacks;
    for (let i = 0; i < cbs.length; i++) cbs[i]!(value);
  }
}
