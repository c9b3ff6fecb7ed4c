/**
 * The developer model set next to the repository (../shared/assets/models): the Mixamo models the demo lists
 * when they are there. Node-only (the Vite config's dev server and the e2e test's static server serve them
 * at `shared-models/`); they are never copied into demo/dist (Mixamo's terms forbid redistributing them).
 */
import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** ../shared/assets/models, from the repository root. */
export const SHARED_DIR = resolve(
  fileURLToPath(new URL(".", import.meta.url)),
  "..",
  "..",
  "shared",
  "assets",
  "models",
);

/** The developer set's models the demo lists, when present. */
export const SHARED_MODELS = ["Xbot.glb", "Soldier.glb"];

/** The listed models present in `dir`. */
export function sharedModels(dir = SHARED_DIR): string[] {
  if (!existsSync(dir)) return [];
  const have = new Set(readdirSync(dir));
  return SHARED_MODELS.filter((m) => have.has(m));
}
