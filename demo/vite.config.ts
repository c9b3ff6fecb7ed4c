import { existsSync, readFileSync, statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type Plugin, defineConfig } from "vite";
import { SHARED_DIR, sharedModels } from "./shared-models.js";

const root = fileURLToPath(new URL(".", import.meta.url));
const SHARED = SHARED_DIR;

/**
 * Serves ../shared/assets/models at `shared-models/` in dev and preview only (`index.json` lists what is there),
 * so the Mixamo models are selectable on a developer's machine and never end up in demo/dist.
 */
function sharedModelsPlugin(): Plugin {
  const handler = (req: { url?: string }, res: ServerResponse) => {
    const name = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname.slice(1));
    if (name === "index.json") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(sharedModels()));
      return;
    }
    const p = resolve(SHARED, name);
    if (!p.startsWith(SHARED + sep) || !existsSync(p) || !statSync(p).isFile()) {
      res.statusCode = 404;
      res.end("not found");
      return;
    }
    res.setHeader("content-type", "application/octet-stream");
    res.end(readFileSync(join(p)));
  };
  return {
    name: "fbbik-shared-models",
    configureServer: (server) => void server.middlewares.use("/shared-models", handler),
    configurePreviewServer: (server) => void server.middlewares.use("/shared-models", handler),
  };
}

// the demo: `npm run demo` (dev server), `npm run build:demo` (static build in demo/dist)
export default defineConfig({
  root,
  base: "./",
  // the committed models (test/assets/models, with their licences) are served as models/…
  publicDir: "../test/assets",
  plugins: [sharedModelsPlugin()],
  server: { host: "127.0.0.1", port: 5173, open: false },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 8000, sourcemap: false },
  logLevel: "info",
});
