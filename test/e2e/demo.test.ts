/**
 * End-to-end test of the demo: builds demo/ with Vite's JS API (reusing demo/dist when it is newer than the
 * sources), serves it on 127.0.0.1 with a tiny static server, opens each scenario in headless Chromium
 * (SwiftShader) and checks that the page becomes ready without console errors, that the scenario's hand or
 * foot bone is within its tolerance of its target at the scripted moment, and that a screenshot saved under
 * test-results/ is not blank. Skipped (with a message) only when /usr/bin/chromium is missing and CI is
 * not set.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium } from "playwright-core";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const DEMO = join(ROOT, "demo");
const DIST = join(DEMO, "dist");
const OUT = join(ROOT, "test-results", "e2e");
const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
const inCI = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";

interface Result {
  label: string;
  distance: number;
  height: number;
  ratio: number;
  tolerance: number;
}

/** Scenarios, with how long their measurement may take to come (ms). */
const SCENARIOS: { name: string; wait: number }[] = [
  { name: "free", wait: 30_000 },
  { name: "grab", wait: 40_000 },
  { name: "climb", wait: 60_000 },
  { name: "ground", wait: 30_000 },
  { name: "crowd", wait: 60_000 },
];
if (existsSync(join(DEMO, "src", "hit.ts"))) SCENARIOS.push({ name: "hit", wait: 30_000 });

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "dist" || e.name === "node_modules") continue;
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

async function buildDemo(): Promise<void> {
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
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".png": "image/png",
  ".md": "text/markdown",
};

function serve(dir: string): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    let p = resolve(dir, `.${decodeURIComponent(url.pathname)}`);
    if (!p.startsWith(dir + sep) && p !== dir) {
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

/** Fraction of pixels differing from the background colour by more than a few levels. */
function nonBackgroundFraction(png: Buffer, bg: [number, number, number]): number {
  const img = PNG.sync.read(png);
  const [r, g, b] = bg.map((c) => Math.round(c * 255)) as [number, number, number];
  let differ = 0;
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    if (Math.abs(img.data[o]! - r) + Math.abs(img.data[o + 1]! - g) + Math.abs(img.data[o + 2]! - b) > 24) differ++;
  }
  return differ / n;
}

const skip = !haveChromium && !inCI;
const title = skip ? `demo end-to-end (skipped: ${CHROMIUM} is missing and CI is not set; install Debian's chromium to run it)` : "demo end-to-end in headless Chromium";

describe.skipIf(skip)(title, () => {
  let browser: BrowserContext;
  let server: Server;
  let base = "";
  let profile = "";
  const measured: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    await buildDemo();
    server = await serve(DIST);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    profile = mkdtempSync(join(tmpdir(), "fbbik-e2e-"));
    // a fresh --user-data-dir (playwright passes the profile folder as --user-data-dir itself)
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 960, height: 600 },
      args: ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-background-networking"],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((ok) => (server ? server.close(() => ok(null)) : ok(null)));
    if (profile !== "") rmSync(profile, { recursive: true, force: true });
    writeFileSync(join(OUT, "measurements.txt"), `${measured.join("\n")}\n`);
    console.log(`demo e2e measurements:\n  ${measured.join("\n  ")}`);
  });

  for (const { name, wait } of SCENARIOS) {
    it(`scenario ${name}: ready without console errors, limb within tolerance of its target, screenshot not blank`, async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      page.on("pageerror", (e) => errors.push(String(e)));
      try {
        await page.goto(`${base}?scenario=${name}`);
        await page.waitForFunction(() => (window as unknown as { __fbbik?: { ready?: boolean; errors?: string[] } }).__fbbik?.ready === true || ((window as unknown as { __fbbik?: { errors?: string[] } }).__fbbik?.errors?.length ?? 0) > 0, null, { timeout: 45_000, polling: 200 });
        const hookErrors = await page.evaluate(() => (window as unknown as { __fbbik: { errors: string[] } }).__fbbik.errors);
        expect(hookErrors).toEqual([]);
        expect(await page.evaluate(() => (window as unknown as { __fbbik: { scenario: string } }).__fbbik.scenario)).toBe(name);
        await page.waitForFunction(() => (window as unknown as { __fbbik: { result: unknown } }).__fbbik.result !== null, null, { timeout: wait, polling: 100 });
        const result = (await page.evaluate(() => (window as unknown as { __fbbik: { result: unknown } }).__fbbik.result)) as Result;
        const probe = (await page.evaluate(() => (window as unknown as { __fbbik: { probe(): unknown } }).__fbbik.probe())) as { bone: number[]; target: number[]; height: number };
        expect(probe.bone.every(Number.isFinite) && probe.target.every(Number.isFinite)).toBe(true);
        const file = join(OUT, `${name}.png`);
        const png = await page.screenshot({ path: file });
        const bg = (await page.evaluate(() => (window as unknown as { __fbbik: { clearColor: number[] } }).__fbbik.clearColor)) as [number, number, number];
        const fraction = nonBackgroundFraction(png, bg);
        measured.push(`${name}: ${result.label}: ${(result.distance * 1000).toFixed(3)} mm = ${(result.ratio * 100).toFixed(4)} % of h (h = ${result.height.toFixed(3)}, tolerance ${(result.tolerance * 100).toFixed(2)} %); screenshot ${file}: ${(fraction * 100).toFixed(1)} % non-background pixels`);
        expect(result.ratio, result.label).toBeLessThan(result.tolerance);
        expect(fraction).toBeGreaterThan(0.05);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
