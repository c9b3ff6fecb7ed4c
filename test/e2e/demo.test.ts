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
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Capture,
  DIST,
  ROOT,
  buildDemo,
  decode,
  dist,
  pageHooks,
  pct,
  regionCheck,
  serve,
  type V,
} from "./harness";
import { SCENARIO_CHECKS } from "./checks/index";

const OUT = join(ROOT, "test-results", "e2e");
const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
const inCI = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";

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

  for (const { name, wait, check } of SCENARIO_CHECKS) {
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
        // the hit waits for its own moment (a click); the others for their recorded key moments
        if (name !== "hit") await waitFor("h.done()", wait);
        const checks = name !== "hit" ? await hook<Record<string, unknown>>("h.checks()") : {};
        captured = ((await check({ checks, hook, waitFor, page, lines, wait })) as Capture | undefined) ?? null;
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
