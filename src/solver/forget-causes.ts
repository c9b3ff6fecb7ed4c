/**
 * Forgets the warned causes of `warned` that start with `prefix` (all when it is undefined): a channel warns once
 * per cause, and what a user does again (a settings load) reports its problems again.
 */
export function forgetCauses(warned: Set<string>, prefix?: string): void {
  if (prefix === undefined) {
    warned.clear();
    return;
  }
  for (const cause of warned) if (cause.startsWith(prefix)) warned.delete(cause);
}
