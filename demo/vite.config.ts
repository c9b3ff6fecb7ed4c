import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

// the demo: `npm run demo` (dev server), `npm run build:demo` (static build in demo/dist)
export default defineConfig({
  root,
  base: "./",
  // the committed models (test/assets/models, with their licences) are served as models/…
  publicDir: "../test/assets",
  server: { host: "127.0.0.1", port: 5173, open: false },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 8000, sourcemap: false },
  logLevel: "info",
});
