/** Shared pieces of the demo's end-to-end test: the static build and server, the page hook, the pixel checks. */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { type Server, createServer } from "node:http";
import { extname, join, resolve, sep } from "node:path";
import type { Page } from "playwright-core";
import { PNG } from "pngjs";
import { SHARED_DIR, sharedModels } from "../../demo/shared-models.js";
import { repoRoot } from "../helpers/repo-root.js";

export const ROOT = repoRoot(import.meta.url);
export const DEMO = join(ROOT, "demo");
export const DIST = join(DEMO, "dist");

export type V = [number, number, number];
export const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const len = (a: V) => Math.hypot(a[0], a[1], a[2]);
export const dist = (a: V, b: V) => len(sub(a, b));
export const pct = (d: number, h: number) => `${(d * 1000).toFixed(1)} mm (${((d / h) * 100).toFixed(2)} % of h)`;

/** Distance from `p` to the segment a–b. */
export function segmentDistance(p: V, a: V, b: V): number {
  const ab = sub(b, a);
  const ap = sub(p, a);
  const t = Math.max(
    0,
    Math.min(1, (ab[0] * ap[0] + ab[1] * ap[1] + ab[2] * ap[2]) / (ab[0] ** 2 + ab[1] ** 2 + ab[2] ** 2)),
  );
  return dist(p, [a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]]);
}

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "dist" || e.name === "node_modules") continue;
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

export async function buildDemo(): Promise<void> {
  const index = join(DIST, "index.html");
  const sources = Math.max(newestMtime(DEMO), newestMtime(join(ROOT, "src")));
  if (existsSync(index) && statSync(index).mtimeMs > sources) return;
  const { build } = await import("vite");
  await build({ configFile: join(DEMO, "vite.config.ts"), logLevel: "warn" });
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".glb": "model/gltf-binary",
  ".gltf": "model/gltf+json",
  ".bin": "application/octet-stream",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".png": "image/png",
  ".md": "text/markdown",
};

/** The shared models' folder and list, also served (as the dev server does) at `shared-models/`. */
export const SHARED = { dir: SHARED_DIR, models: sharedModels() };

/** A static server for `dir`, with ../shared/assets/models at `shared-models/` (never copied into dist). */
export function serve(dir: string): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const path = decodeURIComponent(url.pathname);
    if (path === "/shared-models/index.json") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(SHARED.models));
      return;
    }
    const base = path.startsWith("/shared-models/") ? SHARED.dir : dir;
    let p = resolve(base, `.${path.replace(/^\/shared-models\//, "/")}`);
    if (!p.startsWith(base + sep) && p !== base) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(p) && statSync(p).isDirectory()) p = join(p, "index.html");
    if (!existsSync(p)) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(p)] ?? "application/octet-stream" });
    res.end(readFileSync(p));
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

export interface Capture {
  shown: string;
  hidden: string;
  rect: [number, number, number, number];
  width: number;
  height: number;
}

export function decode(dataUrl: string): { png: PNG; bytes: Buffer } {
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
  return { png: PNG.sync.read(bytes), bytes };
}

/**
 * The character region check: pixels that change when the characters are hidden, inside the characters'
 * projected box (bones' box padded for the mesh, plus its shadow on the floor) and outside it; and how much
 * of the frame's lower third (the ground) differs from the clear colour.
 */
export function regionCheck(
  cap: Capture,
  bg: [number, number, number],
): { inside: number; outside: number; outsidePixels: number; ground: number } {
  const a = decode(cap.shown).png;
  const b = decode(cap.hidden).png;
  const [x0, y0, x1, y1] = cap.rect;
  const [r, g, bl] = bg.map((c) => Math.round(c * 255)) as [number, number, number];
  let inN = 0;
  let inD = 0;
  let outN = 0;
  let outD = 0;
  let lowN = 0;
  let lowD = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const o = (y * a.width + x) * 4;
      const d =
        Math.abs(a.data[o]! - b.data[o]!) +
        Math.abs(a.data[o + 1]! - b.data[o + 1]!) +
        Math.abs(a.data[o + 2]! - b.data[o + 2]!);
      const inside = x >= x0 && x <= x1 && y >= y0 && y <= y1;
      if (inside) {
        inN++;
        if (d > 24) inD++;
      } else {
        outN++;
        if (d > 24) outD++;
      }
      if (y > (2 * a.height) / 3) {
        lowN++;
        if (Math.abs(a.data[o]! - r) + Math.abs(a.data[o + 1]! - g) + Math.abs(a.data[o + 2]! - bl) > 24) lowD++;
      }
    }
  }
  return {
    inside: inD / Math.max(1, inN),
    outside: outD / Math.max(1, outN),
    outsidePixels: outN,
    ground: lowD / Math.max(1, lowN),
  };
}

export type Hook = <T>(expr: string) => Promise<T>;
export type WaitFor = (expr: string, timeout: number) => Promise<unknown>;

/** The page's test hook: `hook(expr)` evaluates `expr` with `h` = `window.__fbbik`; `waitFor` polls it until truthy. */
export function pageHooks(page: Page): { hook: Hook; waitFor: WaitFor } {
  const wrap = (expr: string) => `(() => { const h = window.__fbbik; return ${expr}; })()`;
  return {
    hook: <T>(expr: string) => page.evaluate(wrap(expr)) as Promise<T>,
    // a timeout says where the page stood (a build overtaken, failed or never started reads differently)
    waitFor: (expr: string, timeout: number) =>
      page.waitForFunction(wrap(expr), null, { timeout, polling: 100 }).catch(async (e: unknown) => {
        const state = await page
          .evaluate(
            wrap(
              "JSON.stringify({ ready: h?.ready, scenario: h?.scenario, model: h?.model, builds: h?.builds, errors: h?.errors, focus: document.activeElement?.id })",
            ),
          )
          .catch(() => "(the page did not answer)");
        throw new Error(`waiting for ${expr}: ${String(e)}\npage: ${state}`);
      }),
  };
}

/** What a scenario's check gets: the scenario's recorded checks, the page and its hook, a log of measurements. */
export interface CheckContext {
  checks: Record<string, unknown>;
  hook: Hook;
  waitFor: WaitFor;
  page: Page;
  lines: string[];
  /** How long the scenario's key moments may take (ms). */
  wait: number;
}

/** Hue in degrees (0–360) of an RGB colour (0–255 each); NaN for a grey. */
export function hue([r, g, b]: readonly number[]): number {
  const [x, y, z] = [r!, g!, b!];
  const max = Math.max(x, y, z);
  const d = max - Math.min(x, y, z);
  if (d === 0) return Number.NaN;
  const h = max === x ? ((y - z) / d) % 6 : max === y ? (z - x) / d + 2 : (x - y) / d + 4;
  return (h * 60 + 360) % 360;
}

/** The smallest angle between two hues (degrees). */
export const hueGap = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));

/** The mean colour (0–255 each) of the `size`×`size` pixels centred on (x, y) of a PNG. */
export function meanColour(png: PNG, x: number, y: number, size = 3): [number, number, number] {
  const sum = [0, 0, 0];
  let n = 0;
  for (let j = -(size >> 1); j <= size >> 1; j++)
    for (let i = -(size >> 1); i <= size >> 1; i++) {
      const px = Math.round(x) + i;
      const py = Math.round(y) + j;
      if (px < 0 || py < 0 || px >= png.width || py >= png.height) continue;
      const o = (py * png.width + px) * 4;
      for (let c = 0; c < 3; c++) sum[c]! += png.data[o + c]!;
      n++;
    }
  return sum.map((v) => v / Math.max(1, n)) as [number, number, number];
}
