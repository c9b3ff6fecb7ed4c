/**
 * End-to-end test of the demo: builds demo/ with Vite's JS API (reusing demo/dist when it is newer than the
 * sources), serves it on 127.0.0.1 with a tiny static server, opens each scenario in headless Chromium
 * (SwiftShader) and checks that the page becomes ready without console errors, that the scenario's hands
 * and feet are on the scene objects they are scripted to reach (cup, rungs, raycast ground, target spheres;
 * never the solver's own targets), recorded by the page at the scripted moments, and that the characters
 * are visible where they stand: the canvas with and without them differs inside their projected box and
 * hardly outside it. Images go to test-results/e2e/. No check depends on the frame rate. Skipped (with a
 * message) only when /usr/bin/chromium is missing and CI is not set.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, resolve, sep } from "node:path";
import { type BrowserContext, type Page, chromium } from "playwright-core";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo-root.js";

const ROOT = repoRoot(import.meta.url);
const DEMO = join(ROOT, "demo");
const DIST = join(DEMO, "dist");
const OUT = join(ROOT, "test-results", "e2e");
const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
const inCI = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const len = (a: V) => Math.hypot(a[0], a[1], a[2]);
const dist = (a: V, b: V) => len(sub(a, b));
const pct = (d: number, h: number) => `${(d * 1000).toFixed(1)} mm (${((d / h) * 100).toFixed(2)} % of h)`;

/** Scenarios, with how long their key moments may take to come (ms; SwiftShader runs at a few FPS). */
const SCENARIOS: { name: string; wait: number }[] = [
  { name: "free", wait: 30_000 },
  { name: "grab", wait: 60_000 },
  { name: "climb", wait: 90_000 },
  { name: "ground", wait: 90_000 },
  { name: "deck", wait: 90_000 },
  { name: "crowd", wait: 150_000 },
  { name: "hit", wait: 60_000 },
];

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

interface Capture {
  shown: string;
  hidden: string;
  rect: [number, number, number, number];
  width: number;
  height: number;
}

function decode(dataUrl: string): { png: PNG; bytes: Buffer } {
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
  return { png: PNG.sync.read(bytes), bytes };
}

/**
 * The character region check: pixels that change when the characters are hidden, inside the characters'
 * projected box (bones' box padded for the mesh, plus its shadow on the floor) and outside it; and how much
 * of the frame's lower third (the ground) differs from the clear colour.
 */
function regionCheck(
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

const skip = !haveChromium && !inCI;
const title = skip
  ? `demo end-to-end (skipped: ${CHROMIUM} is missing and CI is not set; install Debian's chromium to run it)`
  : "demo end-to-end in headless Chromium";

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
      args: [
        "--headless",
        "--no-sandbox",
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
        "--disable-background-networking",
      ],
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
    it(`scenario ${name}: ready without console errors, limbs on the scene's objects, the character visible in its region`, async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      page.on("pageerror", (e) => errors.push(String(e)));
      const { hook, waitFor } = pageHooks(page);
      const lines: string[] = [];
      let captured: Capture | null = null;
      try {
        await page.goto(`${base}?scenario=${name}`);
        await waitFor("h?.ready === true || (h?.errors?.length ?? 0) > 0", 45_000);
        expect(await hook<string[]>("h.errors")).toEqual([]);
        expect(await hook<string>("h.scenario")).toBe(name);
        if (name === "hit") captured = await checkHit(hook, waitFor, page, lines, wait);
        else {
          await waitFor("h.done()", wait);
          const checks = await hook<Record<string, unknown>>("h.checks()");
          if (name === "free") await checkFree(checks, hook, waitFor, page, lines);
          if (name === "grab") checkGrab(checks, lines);
          if (name === "climb") checkClimb(checks, lines);
          if (name === "ground") checkGround(checks, lines);
          if (name === "deck") checkDeck(checks, lines);
          if (name === "crowd") checkCrowd(checks, lines);
        }
        // the character in its screen region: changes when hidden inside it, almost none outside
        const cap = captured ?? (await hook<Capture>("h.capture()"));
        const bg = await hook<[number, number, number]>("h.clearColor");
        writeFileSync(join(OUT, `${name}.png`), decode(cap.shown).bytes);
        writeFileSync(join(OUT, `${name}-hidden.png`), decode(cap.hidden).bytes);
        await page.screenshot({ path: join(OUT, `${name}-page.png`) });
        const region = regionCheck(cap, bg);
        lines.push(
          `screenshot ${name}.png (${cap.width}×${cap.height}): character box [${cap.rect.map((v) => v.toFixed(0)).join(", ")}]: ${(region.inside * 100).toFixed(1)} % of its pixels change when the characters are hidden, ${(region.outside * 100).toFixed(2)} % outside it; ground ${(region.ground * 100).toFixed(1)} % of the lower third`,
        );
        expect(region.inside, "character pixels inside its box").toBeGreaterThan(0.08);
        expect(region.outsidePixels, "enough of the frame outside the character's box to check").toBeGreaterThan(5000);
        expect(region.outside, "changes outside the character's box").toBeLessThan(0.01);
        expect(region.ground, "the ground fills the lower third").toBeGreaterThan(0.9);
        expect(errors).toEqual([]);
      } finally {
        measured.push(...lines.map((l) => `${name}: ${l}`));
        await page.close();
      }
    }, 240_000);
  }

  it("a user's model from the file picker: a rig that cannot work shows its FBBIKError and the demo keeps its model; a biped's clips are listed and play under the IK", async () => {
    const page = await browser.newPage();
    const { hook, waitFor } = pageHooks(page);
    const lines: string[] = [];
    try {
      await page.goto(`${base}?scenario=free`);
      await waitFor("h?.ready === true || (h?.errors?.length ?? 0) > 0", 45_000);
      expect(await hook<string[]>("h.errors")).toEqual([]);
      expect(await page.locator("#clip option").count()).toBe(1); // the Mannequin has no clips: the procedural idle only

      // RobotExpressive's feet hang off the root: no biped, and the page says why
      await page.setInputFiles("#model-file", join(ROOT, "test", "assets", "models", "RobotExpressive.glb"));
      await waitFor("h.errors.length > 0", 60_000);
      const message = (await hook<string[]>("h.errors")).join("\n");
      expect(message).toMatch(/left foot/i);
      expect(message).toMatch(/Foot\.L/);
      await expect.poll(() => page.locator("#error").textContent(), { timeout: 10_000 }).toMatch(/left foot/i);
      await waitFor("h.ready === true && h.model === 'Mannequin.glb'", 60_000);
      lines.push(`RobotExpressive.glb: error shown (${message.split("\n")[0]!.slice(0, 120)}…), the Mannequin is back`);

      // a Mixamo biped with clips (read from ../shared, not committed)
      const xbot = resolve(ROOT, "..", "shared", "assets", "models", "Xbot.glb");
      if (existsSync(xbot)) {
        await page.setInputFiles("#model-file", xbot);
        await waitFor("h.ready === true && h.model === 'Xbot.glb'", 90_000);
        expect(await hook<number>("h.iks.length")).toBe(1);
        const clips = await hook<string[]>("h.clips()");
        expect(clips.length).toBeGreaterThan(0);
        expect(await page.locator("#clip option").count()).toBe(clips.length + 1);
        await page.selectOption("#clip", "1");
        expect(await hook<number>("h.clip()")).toBe(0);
        // the chosen clip plays (instantiated per character, its name carries a suffix), the idle does not
        const playing = await hook<string[]>("h.scene.animationGroups.filter((g) => g.isPlaying).map((g) => g.name)");
        expect(playing.some((n) => n.startsWith(clips[0]!))).toBe(true);
        expect(playing.some((n) => n.startsWith("idle"))).toBe(false);
        // and the free scenario's IK still holds the left hand on its handle on top of it
        await waitFor("h.done()", 60_000);
        const checks = await hook<{ leftHand: { bone: V; handle: V; height: number } }>("h.checks()");
        const d = dist(checks.leftHand.bone, checks.leftHand.handle);
        expect(d).toBeLessThan(0.01 * checks.leftHand.height);
        await page.screenshot({ path: join(OUT, "user-model-page.png") });
        lines.push(
          `Xbot.glb: ${clips.length} clip(s) listed (${clips.join(", ")}); playing "${clips[0]}", left hand to its handle ${pct(d, checks.leftHand.height)}`,
        );
      } else {
        lines.push("Xbot.glb: ../shared/assets/models is absent, the clip part is skipped");
      }
    } finally {
      measured.push(...lines.map((l) => `user model: ${l}`));
      await page.close();
    }
  }, 300_000);
});

type Hook = <T>(expr: string) => Promise<T>;
type WaitFor = (expr: string, timeout: number) => Promise<unknown>;

/** The page's test hook: `hook(expr)` evaluates `expr` with `h` = `window.__fbbik`; `waitFor` polls it until truthy. */
function pageHooks(page: Page): { hook: Hook; waitFor: WaitFor } {
  const wrap = (expr: string) => `(() => { const h = window.__fbbik; return ${expr}; })()`;
  return {
    hook: <T>(expr: string) => page.evaluate(wrap(expr)) as Promise<T>,
    waitFor: (expr: string, timeout: number) => page.waitForFunction(wrap(expr), null, { timeout, polling: 100 }),
  };
}

interface PoseRecord {
  phase: string;
  solved: Record<string, V>;
  animated: Record<string, V>;
  cup: V;
  grip: V;
  cupRadius: number;
  height: number;
}

/** Horizontal lean of a bone toward a point: its IK displacement from the animation-only pose, along the way to the point. */
function lean(rec: PoseRecord, bone: string): number {
  const d = sub(rec.solved[bone]!, rec.animated[bone]!);
  const to = sub(rec.cup, rec.animated[bone]!);
  const n = Math.hypot(to[0], to[2]);
  return (d[0] * to[0] + d[2] * to[2]) / n;
}

function checkGrab(checks: Record<string, unknown>, lines: string[]): void {
  const rest = checks.rest as PoseRecord;
  const grasp = checks.grasp as PoseRecord;
  const hold = checks.hold as PoseRecord;
  const h = grasp.height;
  // the grip sits beside the cup, the cup's radius plus 1.5 % of h (the palm) from its axis, half-way up: a
  // wrist within 0.5 % of h of the grip is where it was sent, and so within the radius + 2 % of h of the
  // cup's centre (on the cup)
  for (const [label, rec] of [
    ["grasp", grasp],
    ["hold", hold],
  ] as const) {
    const toCup = dist(rec.solved.rightHand!, rec.cup);
    const toGrip = dist(rec.solved.rightHand!, rec.grip);
    lines.push(
      `${label}: right hand to the grip beside the cup ${pct(toGrip, h)} (tolerance 0.5 %), to the cup's centre ${pct(toCup, h)} (cup radius ${pct(rec.cupRadius, h)})`,
    );
    expect(toGrip / h, `${label}: right hand at the grip`).toBeLessThan(0.005);
  }
  // the body leans in when the cup is far: chest and pelvis moved toward the cup from the animation-only pose
  const lg = lean(grasp, "chest");
  const lp = lean(grasp, "pelvis");
  const lr = lean(rest, "chest");
  const lh = lean(hold, "chest");
  lines.push(
    `lean toward the cup (IK − animation, horizontal): chest ${pct(lg, h)} at the grasp (cup far), ${pct(lh, h)} at the hold (cup lifted, nearer), ${pct(lr, h)} at rest; pelvis ${pct(lp, h)} at the grasp`,
  );
  expect(lg / h, "chest leans toward the far cup").toBeGreaterThan(0.02);
  expect(lg, "leans more for the far cup than for the lifted one").toBeGreaterThan(lh);
  // the other hand stays relaxed: it stays where the animation puts it (its effector has no weight and
  // maintainRelativePositionWeight 0, so the lean does not carry it)
  for (const [label, rec] of [
    ["grasp", grasp],
    ["hold", hold],
  ] as const) {
    const moved = dist(rec.solved.leftHand!, rec.animated.leftHand!);
    const rel = (k: "solved" | "animated") => sub(rec[k].leftHand!, rec[k].leftShoulder!);
    lines.push(
      `${label}: left hand ${pct(moved, h)} from its animated position (tolerance 2 %); relative to its shoulder ${pct(dist(rel("solved"), rel("animated")), h)}`,
    );
    expect(moved / h, `${label}: left hand relaxed`).toBeLessThan(0.02);
  }
}

interface LimbState {
  bone: V;
  hold: V | null;
  holdName: string | null;
  holding: boolean;
}

function checkClimb(checks: Record<string, unknown>, lines: string[]): void {
  const finish = checks.finish as {
    frame: number;
    limbs: Record<string, LimbState>;
    top: Record<string, string>;
    pelvisStart: V;
    pelvis: V;
    spacing: number;
    rungsClimbed: number;
    height: number;
  };
  const all = checks.allHolding as { frame: number; limbs: Record<string, LimbState> };
  const worst = checks.worst as Record<string, { hold: number; frames: number; holds: string[] }>;
  const h = finish.height;
  // the moment with all four holding comes during the climb, before the top
  lines.push(`all four holding at frame ${all.frame}, the top at frame ${finish.frame}`);
  expect(all.frame, "all four holding mid-climb, before the top").toBeLessThan(finish.frame);
  // a hand or foot on a rung 3 % of h thick: within 1 % of h of the hold's point (on the rung's axis)
  for (const [label, limbs] of [
    ["all four holding", all.limbs],
    ["at the top", finish.limbs],
  ] as const) {
    for (const [limb, s] of Object.entries(limbs)) {
      const dh = dist(s.bone, s.hold!);
      lines.push(`${label}: ${limb} on ${s.holdName}: ${pct(dh, h)} from the hold (tolerance 1 %)`);
      expect(dh / h, `${label}: ${limb} on its hold`).toBeLessThan(0.01);
    }
  }
  // at the top, every limb on its hold of the last rung
  for (const [limb, name] of Object.entries(finish.top))
    expect(finish.limbs[limb]?.holdName, `at the top: ${limb} on the last rung`).toBe(name);
  for (const [limb, w] of Object.entries(worst)) {
    lines.push(
      `${limb}: worst while holding over ${w.frames} frames on ${w.holds.length} holds: ${pct(w.hold, h)} from the hold`,
    );
    expect(w.holds.length, `${limb} went hold to hold`).toBeGreaterThanOrEqual(3);
    expect(w.hold / h).toBeLessThan(0.01);
  }
  const rise = finish.pelvis[1] - finish.pelvisStart[1];
  lines.push(
    `the body follows: pelvis rose ${pct(rise, h)} over ${finish.rungsClimbed} rungs of ${pct(finish.spacing, h)}`,
  );
  expect(rise, "the pelvis climbs with the limbs").toBeGreaterThan(finish.spacing);
}

function checkGround(checks: Record<string, unknown>, lines: string[]): void {
  type Rec = { count: number; worst: number; ground: number; foot: number; rest: number };
  const per = checks.perSurface as Record<string, Rec>[];
  const doubles = checks.doubles as {
    left: { ground: number; err: number; surface: string };
    right: { ground: number; err: number; surface: string };
    travel: number;
  }[];
  const h = checks.height as number;
  const tol = 0.01;
  // a standing foot's ankle stands as high above the surface under it (a ray down) as above the floor at rest
  per.forEach((m, i) => {
    const foot = i === 0 ? "left foot" : "right foot";
    for (const [surface, r] of Object.entries(m)) {
      lines.push(
        `${foot} standing on ${surface} (ground y ${(r.ground * 1000).toFixed(0)} mm): worst ankle height error ${pct(Math.abs(r.worst), h)} over ${r.count} frames (tolerance ${tol * 100} % of h)`,
      );
      expect(Math.abs(r.worst) / h, `${foot} on ${surface}`).toBeLessThan(tol);
    }
    expect(Object.keys(m).length, `${foot} stood on three surfaces`).toBeGreaterThanOrEqual(3);
  });
  // both feet standing at once on surfaces more than 3 % of h apart in height (the page records only
  // those; their errors are among the per-surface ones above)
  expect(doubles.length, "both feet planted at different heights").toBeGreaterThan(0);
  for (const d of doubles.slice(0, 3)) {
    lines.push(
      `both feet standing: left on ${d.left.surface} at ${(d.left.ground * 1000).toFixed(0)} mm (error ${pct(Math.abs(d.left.err), h)}), right on ${d.right.surface} at ${(d.right.ground * 1000).toFixed(0)} mm (error ${pct(Math.abs(d.right.err), h)})`,
    );
  }
}

function checkDeck(checks: Record<string, unknown>, lines: string[]): void {
  const h = checks.height as number;
  const tol = checks.tolerance as number;
  const worst = checks.worst as number;
  const footRange = checks.footRange as [number, number][];
  const deckRange = checks.deckRange as [number, number][];
  // the ankles stand as high above the moving deck (a ray down onto it) as above the floor at rest
  lines.push(
    `on the heaving, rolling deck: worst ankle height error ${pct(Math.abs(worst), h)} over ${checks.frames as number} frames (tolerance ${pct(tol, h)})`,
  );
  expect(Math.abs(worst), "ankle height above the deck").toBeLessThan(tol);
  footRange.forEach(([lo, hi], i) => {
    const [dlo, dhi] = deckRange[i]!;
    const foot = i === 0 ? "left foot" : "right foot";
    lines.push(`${foot}: the deck under it moved ${pct(dhi - dlo, h)} up and down, the ankle ${pct(hi - lo, h)}`);
    // the deck really moved under the foot, and the foot went with it
    expect(dhi - dlo, `${foot}: deck motion`).toBeGreaterThan(0.04 * h);
    expect(Math.abs(hi - lo - (dhi - dlo)), `${foot} follows the deck`).toBeLessThan(2 * tol);
  });
}

function checkCrowd(checks: Record<string, unknown>, lines: string[]): void {
  const samples = checks.samples as { frame: number; time: number; pairs: { hand: V; target: V }[] }[];
  const h = checks.height as number;
  const sample = [0, 9, 23, 37, 50, 64, 78, 91, 99];
  for (const s of samples) {
    const d = s.pairs.map((p) => dist(p.hand, p.target));
    const worstSampled = Math.max(...sample.map((i) => d[i]!));
    lines.push(
      `frame ${s.frame}: right hand to its target sphere, characters ${sample.join(", ")}: worst ${pct(worstSampled, h)}; all 100: worst ${pct(Math.max(...d), h)} (tolerance 1 % of h)`,
    );
    expect(Math.max(...d) / h, `frame ${s.frame}: every right hand on its target`).toBeLessThan(0.01);
  }
  const moved = Math.min(...sample.map((i) => dist(samples[0]!.pairs[i]!.target, samples[2]!.pairs[i]!.target)));
  lines.push(
    `the targets moved at least ${pct(moved, h)} between frames ${samples[0]!.frame} and ${samples[2]!.frame}`,
  );
  expect(moved / h).toBeGreaterThan(0.02);
}

async function checkFree(
  checks: Record<string, unknown>,
  hook: Hook,
  waitFor: WaitFor,
  page: Page,
  lines: string[],
): Promise<void> {
  const lh = checks.leftHand as { bone: V; handle: V; height: number };
  const h = lh.height;
  const d = dist(lh.bone, lh.handle);
  lines.push(`left hand to its handle (moved up in front at start): ${pct(d, h)} (tolerance 1 %)`);
  expect(d / h).toBeLessThan(0.01);
  // the panel: every item is there
  for (const id of [
    "effector",
    "chain",
    "p-ikPositionWeight",
    "p-iterations",
    "p-spineStiffness",
    "p-pullBodyVertical",
    "p-pullBodyHorizontal",
    "p-twistWeight",
    "m-leftArm",
    "m-rightArm",
    "m-leftLeg",
    "m-rightLeg",
    "e-positionWeight",
    "e-rotationWeight",
    "e-maintainRelativePositionWeight",
    "c-pull",
    "c-reach",
    "c-push",
    "c-pushParent",
    "c-bendWeight",
    "reset",
    "view-skeleton",
    "view-nodes",
  ]) {
    expect(await page.locator(`#${id}`).count(), `panel item #${id}`).toBe(1);
  }
  const setRange = (id: string, v: number) =>
    page.evaluate(
      ([id, v]) => {
        const el = document.getElementById(id as string) as HTMLInputElement;
        el.value = String(v);
        el.dispatchEvent(new Event("input"));
      },
      [id, v] as const,
    );
  // every effector and chain reachable from the lists
  await page.selectOption("#effector", "7");
  await setRange("e-maintainRelativePositionWeight", 0.7);
  await page.selectOption("#chain", "2");
  await setRange("c-pushParent", -0.4);
  await setRange("m-rightLeg", 0.25);
  await setRange("p-twistWeight", 0.3);
  const read = () =>
    hook<number[]>(
      "(() => { const s = h.iks[0].solver; return [s.effectors[7].maintainRelativePositionWeight, s.limbChains[2].pushParent, s.limbMappings[3].maintainRotationWeight, s.spineMapping.twistWeight, s.effectors[7].positionWeight]; })()",
    );
  expect(await read()).toEqual([0.7, -0.4, 0.25, 0.3, 1]);
  // clicking a handle selects it: the lists follow
  const foot = await hook<V>("h.world().handles['right foot']");
  const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(foot)})`);
  await page.mouse.click(x, y);
  await waitFor("document.getElementById('effector').value === '8'", 10_000);
  expect(await page.locator("#chain").inputValue()).toBe("3");
  // reset: parameters and handles back
  await hook("(h.scene.getMeshByName('handle left hand').position.y += 0.2, 0)");
  const beforeReset = await hook<number>("h.frames");
  await page.click("#reset");
  await waitFor(`h.frames > ${beforeReset}`, 20_000);
  expect(await read()).toEqual([0, 0, 1, 1, 1]);
  const back = await hook<V>("h.world().handles['left hand']");
  expect(dist(back, lh.handle)).toBeLessThan(1e-6);
  // the views: skeleton lines, and a sphere at each solver node, where the solved bones are
  await page.click("#view-skeleton");
  await page.click("#view-nodes");
  const f0 = await hook<number>("h.frames");
  await waitFor(`h.frames > ${f0 + 3}`, 20_000);
  expect(await hook<boolean>("h.scene.getMeshByName('skeleton view')?.isEnabled() === true")).toBe(true);
  expect(await hook<boolean>("h.scene.getMeshByName('solver nodes view')?.isEnabled() === true")).toBe(true);
  const nodes = await hook<{ bone: string; node: V; boneWorld: V }[]>("h.solverNodes(0)");
  const worst = Math.max(...nodes.map((n) => dist(n.node, n.boneWorld)));
  lines.push(`solver nodes view: ${nodes.length} nodes, worst node-to-bone distance ${pct(worst, h)} (tolerance 1 %)`);
  expect(nodes.length).toBeGreaterThanOrEqual(13);
  expect(worst / h).toBeLessThan(0.01);
}

async function checkHit(hook: Hook, waitFor: WaitFor, page: Page, lines: string[], wait: number): Promise<Capture> {
  // a still character (idle paused, no automatic throws): any motion is the hit's
  await hook("(h.setPaused(true), h.control('auto', false))");
  await waitFor("!h.world().inProgress && !h.world().flying", wait);
  const f0 = await hook<number>("h.frames");
  await waitFor(`h.frames > ${f0 + 5}`, wait);
  const w = await hook<{ chestCollider: V; height: number }>("h.world()");
  const h = w.height;
  const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(w.chestCollider)})`);
  await page.mouse.click(x, y);
  // the ball flies in (0.35 s), then the body recoils: capture near the peak
  await waitFor(`h.world().displacement > ${0.03 * h}`, wait);
  const cap = await hook<Capture>("h.capture()");
  await waitFor("h.done()", wait);
  const click = (
    await hook<{ clicks: { peak: number; residual: number; feetDrift: number; frames: number; point: V }[] }>(
      "h.checks()",
    )
  ).clicks[0]!;
  lines.push(
    `click at (${x.toFixed(0)}, ${y.toFixed(0)}) on the chest: peak bone displacement ${pct(click.peak, h)} (needs > 3 %), after the reaction ${pct(click.residual, h)} (tolerance 0.3 %), feet drift ${pct(click.feetDrift, h)} (tolerance 1 %), ${click.frames} frames`,
  );
  expect(click.peak / h, "visible displacement").toBeGreaterThan(0.03);
  expect(click.residual / h, "recovered").toBeLessThan(0.003);
  expect(click.feetDrift / h, "feet planted").toBeLessThan(0.01);
  return cap;
}
