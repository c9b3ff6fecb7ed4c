import { Logger } from "@babylonjs/core/Misc/logger.js";
import type { Observable, Observer } from "@babylonjs/core/Misc/observable.js";

/**
 * Notifies a component's `onDisposeObservable` once, as Babylon's nodes do (before the component clears
 * its state, so observers still see it), then clears it. An observer that throws is logged: dispose may
 * run inside the render loop (a component that disposes itself when its skeleton goes), which must go on.
 */
export function notifyDisposed<T>(observable: Observable<T>, component: T): void {
  try {
    observable.notifyObservers(component);
  } catch (e) {
    Logger.Error(`babylon-fbbik: an onDisposeObservable observer threw: ${String(e)}`);
  }
  observable.clear();
}

/**
 * Disposes `dependent` (a component attached to an IK: a hook, the interaction system) when `owner` is disposed,
 * also when the owner disposes itself with its character, so nothing is left half-alive with `isDisposed` false.
 * The dependent's own `dispose` removes the returned observer from the owner's `onDisposeObservable`.
 */
export function disposeWith<T>(
  owner: { readonly onDisposeObservable: Observable<T> },
  dependent: { dispose(): void },
): Observer<T> | null {
  return owner.onDisposeObservable.add(() => dependent.dispose());
}
