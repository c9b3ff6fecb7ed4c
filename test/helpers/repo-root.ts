/**
 * The repository's root folder, found from a module's URL by walking up to this package's
 * package.json. Test helpers and benchmarks run both from their sources (vitest, tsx) and compiled
 * into `.bench-build/`, so paths relative to a module's own folder would differ between the two.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder holding babylon-fbbik's package.json, searched upward from `moduleUrl`. */
export function repoRoot(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "babylon-fbbik"
    )
      return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No babylon-fbbik package.json above ${fileURLToPath(moduleUrl)}.`);
    dir = parent;
  }
}
