import { fileURLToPath } from "node:url";
import { type Plugin, defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));
const NAME = "BABYLONFBBIK";

/**
 * Babylon is never bundled: every `@babylonjs/core/...` deep import becomes the one external `babylonjs` (the
 * UMD package), which is the global `BABYLON` under a script tag and `babylonjs` under AMD and CommonJS.
 */
const babylonGlobal: Plugin = {
  name: "fbbik-babylon-global",
  enforce: "pre",
  resolveId: (id) =>
    id === "@babylonjs/core" || id.startsWith("@babylonjs/core/") ? { id: "babylonjs", external: true } : null,
};

const umd = { format: "umd", name: NAME, globals: { babylonjs: "BABYLON" }, exports: "named" } as const;

// the script-tag build (`npm run build:umd`): dist/umd/babylon-fbbik.js and .min.js, global BABYLONFBBIK
export default defineConfig({
  root,
  publicDir: false,
  logLevel: "warn",
  plugins: [babylonGlobal],
  build: {
    outDir: "dist/umd",
    emptyOutDir: false,
    target: "es2020",
    minify: false,
    sourcemap: false,
    reportCompressedSize: false,
    // the format is set per output below (Vite ignores lib.formats when the outputs are an array)
    lib: { entry: "src/index.ts", name: NAME },
    rolldownOptions: {
      output: [
        { ...umd, entryFileNames: "babylon-fbbik.js" },
        { ...umd, entryFileNames: "babylon-fbbik.min.js", minify: true },
      ],
    },
  },
});
