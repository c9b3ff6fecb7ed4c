/**
 * The script-tag build (dist/umd/babylon-fbbik.min.js, global BABYLONFBBIK): rebuilt with Vite's JS API when it
 * is missing or older than src/ or vite.umd.config.ts; checked to hold src/ only, with `babylonjs` (the global
 * BABYLON) its one external. Then a plain page (test/e2e/umd/index.html, no bundler) loads the `babylonjs` and
 * `babylonjs-loaders` UMD files and runs README's Playground snippet, its two URLs pointed at this server (our
 * bundle, a committed character): every name the bundle takes from BABYLON exists there, the left hand's bone
 * reaches the effector's target within 1 % of the character's height, Babylon picking works through the bundle
 * (BabylonGroundRaycast), and nothing is logged as an error. The page part is skipped (with a message) only when
 * /usr/bin/chromium is missing and CI is not set.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve, sep } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo-root.js";
import { CHROMIUM, CHROMIUM_ARGS, skipBrowser } from "./chromium";

const ROOT = repoRoot(import.meta.url);
const UMD = join(ROOT, "dist", "umd");
const MIN = join(UMD, "babylon-fbbik.min.js");
const FULL = join(UMD, "babylon-fbbik.js");
const CONFIG = join(ROOT, "vite.umd.config.ts");
const skipPage = skipBrowser;
/** The README's URLs and what the page serves instead. */
const CDN = /https:\/\/cdn\.jsdelivr\.net\/npm\/babylon-fbbik@([^/"]+)\/dist\/umd\/babylon-fbbik\.min\.js/g;
const PLAYGROUND_MODEL = "https://assets.babylonjs.com/meshes/Xbot.glb";
const MODEL = "models/Mannequin.glb";
/** The UMD packages the page loads, as pinned (babylonjs-loaders may trail babylonjs: the registry's newest). */
const PINNED = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
).devDependencies;

function newestMtime(path: string): number {
  if (!statSync(path).isDirectory()) return statSync(path).mtimeMs;
  let t = 0;
  for (const e of readdirSync(path)) t = Math.max(t, newestMtime(join(path, e)));
  return t;
}

async function buildUmd(): Promise<void> {
  const sources = Math.max(newestMtime(join(ROOT, "src")), newestMtime(CONFIG));
  if (existsSync(MIN) && existsSync(FULL) && Math.min(statSync(MIN).mtimeMs, statSync(FULL).mtimeMs) > sources) return;
  const { build } = await import("vite");
  await build({ configFile: CONFIG, logLevel: "warn" });
}

/** README's Playground snippet (the first js block of its "Playground / script tag" section), its URLs local. */
function playgroundSnippet(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Playground / script tag"));
  const block = /```js\n([\s\S]*?)```/.exec(section);
  expect(block, "README's Playground section has a js block").not.toBeNull();
  const code = block![1]!;
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const versions = [...code.matchAll(CDN)].map((m) => m[1]);
  expect(versions, "one jsDelivr URL of this package's version in the snippet").toEqual([version]);
  expect(code.split(PLAYGROUND_MODEL).length, "one Playground model URL in the snippet").toBe(2);
  return code.replace(CDN, "dist/umd/babylon-fbbik.min.js").replace(PLAYGROUND_MODEL, MODEL);
}

/** The page's files: the page, Babylon's UMD files, our bundle, the committed models, the README snippet. */
function serve(snippet: string): Promise<Server> {
  const files: Record<string, string> = {
    "/": join(ROOT, "test", "e2e", "umd", "index.html"),
    "/babylon.js": join(ROOT, "node_modules", "babylonjs", "babylon.js"),
    "/babylonjs.loaders.min.js": join(ROOT, "node_modules", "babylonjs-loaders", "babylonjs.loaders.min.js"),
  };
  const dirs: Record<string, string> = { "/dist/umd/": UMD, "/models/": join(ROOT, "test", "assets", "models") };
  const types: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript" };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    if (path === "/playground-snippet.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(snippet);
      return;
    }
    let file = files[path];
    for (const [prefix, dir] of Object.entries(dirs)) {
      if (file === undefined && path.startsWith(prefix)) {
        const p = resolve(dir, path.slice(prefix.length));
        if (p.startsWith(dir + sep)) file = p;
      }
    }
    if (file === undefined || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

/** The names the bundle reads from its one external (`babylonjs`, the global BABYLON), from the unminified file. */
function babylonNames(): string[] {
  return [...new Set([...readFileSync(FULL, "utf8").matchAll(/\bbabylonjs\.([A-Za-z_$][\w$]*)/g)].map((m) => m[1]!))];
}

/** Every name src/ imports from @babylonjs/core, types included (the bundle keeps only the values). */
function sourceNames(): string[] {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(".ts")) {
        const text = readFileSync(join(dir, e.name), "utf8");
        for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"@babylonjs\/core[^"]*"/g)) {
          for (const part of m[1]!.split(",")) {
            const name = part
              .trim()
              .replace(/^type\s+/, "")
              .split(/\s+as\s+/)[0]!;
            if (name !== "") names.add(name);
          }
        }
      }
    }
  };
  walk(join(ROOT, "src"));
  return [...names].sort();
}

/** The names babylonjs's babylon.d.ts declares directly in `namespace BABYLON` (not its sub-namespaces). */
function babylonDeclared(): Set<string> {
  const declared = new Set<string>();
  let inBabylon = false;
  const kinds = /^ {4}export (?:declare )?(?:abstract )?(?:class|interface|type|function|enum|const|var|let) ([\w$]+)/;
  for (const line of readFileSync(join(ROOT, "node_modules", "babylonjs", "babylon.d.ts"), "utf8").split("\n")) {
    if (line.startsWith("declare namespace ")) inBabylon = line.startsWith("declare namespace BABYLON {");
    const m = inBabylon ? kinds.exec(line) : null;
    if (m) declared.add(m[1]!);
  }
  return declared;
}

describe("UMD build (dist/umd/babylon-fbbik.min.js, global BABYLONFBBIK)", () => {
  let browser: Browser | undefined;
  let server: Server | undefined;
  let base = "";

  beforeAll(async () => {
    // Chromium starts while Vite builds (when it must)
    const launched = skipPage
      ? Promise.resolve(undefined)
      : chromium.launch({
          executablePath: CHROMIUM,
          headless: true,
          args: CHROMIUM_ARGS,
        });
    const built = buildUmd();
    browser = await launched;
    await built;
    if (skipPage) return;
    server = await serve(playgroundSnippet());
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((ok) => (server ? server.close(() => ok(null)) : ok(null)));
  });

  it("holds src/ only: one external, babylonjs (the global BABYLON under a script tag), and no Babylon code", () => {
    const full = readFileSync(FULL, "utf8");
    // the unminified bundle opens each bundled module with a `// <path>` line (and the bundler's runtime)
    const modules = [...full.matchAll(/^\t?\/\/ (\S+\.[cm]?[jt]s)$/gm)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThan(50);
    expect(modules.filter((m) => !m.startsWith("src/") && m !== "\\0rolldown/runtime.js")).toEqual([]);
    for (const file of [full, readFileSync(MIN, "utf8")]) {
      const head = file.slice(0, 600);
      expect(head).toContain('require("babylonjs")');
      expect(head).toMatch(/\.BABYLONFBBIK ?= ?\{\}/);
      expect([...file.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1])).toEqual(["babylonjs"]);
      expect(file).not.toContain("@babylonjs/");
    }
    // Babylon's own code would bring its classes' bodies along
    expect(full).not.toMatch(/\bclass (Vector3|Quaternion|Matrix|Observable|TransformNode|Scene)\b/);
    expect(babylonNames()).toEqual(expect.arrayContaining(["Vector3", "Quaternion", "Matrix", "Observable"]));
  });

  it("every name src/ imports from @babylonjs/core, types included, is declared in babylonjs's namespace BABYLON", () => {
    const names = sourceNames();
    expect(names).toEqual(expect.arrayContaining(["Bone", "Skeleton", "Scene", "Vector3", "PickWithRay"]));
    expect(names).toEqual(expect.arrayContaining(babylonNames()));
    const declared = babylonDeclared();
    expect(declared.size).toBeGreaterThan(1000);
    expect(names.filter((n) => !declared.has(n))).toEqual([]);
  });

  describe.skipIf(skipPage)(
    skipPage
      ? `in a plain page (skipped: ${CHROMIUM} is missing and CI is not set; install Debian's chromium to run it)`
      : `in a plain page in headless Chromium, with babylonjs ${PINNED.babylonjs} and babylonjs-loaders ` +
          `${PINNED["babylonjs-loaders"]} from script tags`,
    () => {
      /**
       * The page at 640×480 with the snippet run, and the console errors and uncaught exceptions it logs: one page
       * for both checks (a load is most of their time), opened by the first (closed with the browser).
       */
      let opened: Promise<{ page: Page; errors: string[] }> | null = null;
      const openPage = (): Promise<{ page: Page; errors: string[] }> =>
        (opened ??= (async () => {
          const page = await browser!.newPage({ viewport: { width: 640, height: 480 } });
          const errors: string[] = [];
          page.on("console", (m) => {
            if (m.type() === "error") errors.push(m.text());
          });
          page.on("pageerror", (e) => errors.push(String(e)));
          await page.goto(base);
          return { page, errors };
        })());

      it("README's Playground snippet: every BABYLON name the bundle uses exists, the left hand reaches its target, ground picking works, no console errors", async () => {
        const { page, errors } = await openPage();
        const r = await page.evaluate(async (names: string[]) => {
          type V = { x: number; y: number; z: number };
          // biome-ignore lint/suspicious/noExplicitAny: the page's globals have no types here
          const w = window as any;
          const B = w.BABYLON;
          const F = w.BABYLONFBBIK;
          const scene = await w.umdScene;
          const missing = names.filter((n) => B[n] === undefined);
          // the IK the snippet created (index.html records what FullBodyBipedIK.create returns)
          // biome-ignore lint/suspicious/noExplicitAny: as above
          const ik = w.umdIKs.find((i: any) => i instanceof F.FullBodyBipedIK);
          // biome-ignore lint/suspicious/noExplicitAny: as above
          const skinned = scene.meshes.find((m: any) => m.skeleton === ik.skeleton);
          // a glTF bone's world pose is its linked node's
          // biome-ignore lint/suspicious/noExplicitAny: as above
          const world = (bone: any): V => {
            const node = bone.getTransformNode();
            const p = node ? node.getAbsolutePosition() : bone.getAbsolutePosition(skinned);
            return { x: p.x, y: p.y, z: p.z };
          };
          const dist = (a: V, b: V) => Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z);
          const hand = ik.references.leftHand;
          const effector = ik.solver.leftHandEffector;
          const target = { x: effector.position.x, y: effector.position.y, z: effector.position.z };
          const frames = (n: number) =>
            new Promise<void>((ok) => {
              let k = 0;
              const o = scene.onAfterRenderObservable.add(() => {
                if (++k < n) return;
                scene.onAfterRenderObservable.remove(o);
                ok();
              });
            });
          // as the snippet left it, then without the IK's pull (weight 0): the hand is where the IK puts it
          await frames(4);
          const after = dist(world(hand), target);
          const weight = effector.positionWeight;
          effector.positionWeight = 0;
          await frames(4);
          const before = dist(world(hand), target);
          // the skeleton's height (its bones' span) in the animated pose, the tolerance's scale
          const ys = ik.skeleton.bones.map((b: unknown) => world(b).y);
          const height = Math.max(...ys) - Math.min(...ys);
          effector.positionWeight = weight;
          // BabylonGroundRaycast goes through BABYLON.PickWithRay and BABYLON.Ray
          const ground = B.MeshBuilder.CreateGround("umd-ground", { width: 4, height: 4 }, scene);
          ground.material = new B.StandardMaterial("umd-ground", scene);
          ground.position.y = -0.5;
          ground.computeWorldMatrix(true);
          const hit = new F.GroundingHit();
          const probe = new F.BabylonGroundRaycast(scene, (m: unknown) => m === ground);
          const picked = probe.cast({ x: 0.3, y: 2, z: 0.2 }, { x: 0, y: -1, z: 0 }, 10, hit);
          return { missing, found: ik !== undefined, weight, height, before, after, picked, distance: hit.distance };
        }, babylonNames());
        expect(r.missing, "names the bundle reads that BABYLON lacks").toEqual([]);
        expect(r.found, "the snippet's FullBodyBipedIK recorded by the page").toBe(true);
        expect(r.weight, "the snippet's hand weight").toBe(1);
        expect(r.height).toBeGreaterThan(0.5);
        expect(r.before / r.height, "the target away from the hand at weight 0").toBeGreaterThan(0.15);
        expect(r.after / r.height, "the hand's bone on the snippet's target").toBeLessThan(0.01);
        expect(r.picked).toBe(true);
        expect(r.distance).toBeCloseTo(2.5, 6);
        expect(errors).toEqual([]);
      }, 60_000);

      it("the snippet's EffectorHandles with the mouse: a click selects the left thigh's handle, a drag of its gizmo's up arrow lifts the thigh", async () => {
        const { page, errors } = await openPage();
        // biome-ignore lint/suspicious/noExplicitAny: the page's globals have no types here
        const probe = () => (window as any).umdProbe();
        await page.evaluate(async () => {
          // biome-ignore lint/suspicious/noExplicitAny: as above
          const w = window as any;
          const B = w.BABYLON;
          const F = w.BABYLONFBBIK;
          const scene = await w.umdScene;
          // biome-ignore lint/suspicious/noExplicitAny: as above
          const ik = w.umdIKs.find((i: any) => i instanceof F.FullBodyBipedIK);
          // a thigh's handle has the position gizmo alone (a foot's rotation rings would be in the way)
          const thigh = ik.solver.leftThighEffector;
          // the handle is the effector's target; it lives in the handles' utility layer scene
          const handle = thigh.target;
          const layer = handle.getScene();
          const screen = (p: unknown) => {
            const e = scene.getEngine();
            const vp = scene.activeCamera.viewport.toGlobal(e.getRenderWidth(), e.getRenderHeight());
            return B.Vector3.Project(p, B.Matrix.IdentityReadOnly, scene.getTransformMatrix(), vp);
          };
          w.umdProbe = () => {
            const s = screen(handle.getAbsolutePosition());
            const bone = ik.references.leftThigh.getTransformNode().getAbsolutePosition();
            // the first pixel above the handle where the layer picks something that is not a handle (the arrow)
            let arrow = null;
            for (let dy = 4; dy < 200 && arrow === null; dy += 2) {
              const hit = layer.pick(s.x, s.y - dy);
              if (hit.hit && !hit.pickedMesh.name.endsWith(" handle")) arrow = { x: s.x, y: s.y - dy };
            }
            return {
              handle: { x: s.x, y: s.y },
              arrow,
              weight: thigh.positionWeight,
              boneY: bone.y,
              handleY: handle.getAbsolutePosition().y,
              name: handle.name,
            };
          };
          await new Promise((ok) => setTimeout(ok, 500));
        });
        const start = await page.evaluate(probe);
        expect(start.name).toBe("left thigh handle");
        expect(start.weight, "no weight before a drag").toBe(0);
        expect(start.arrow, "no gizmo before a click").toBeNull();
        await page.mouse.click(start.handle.x, start.handle.y);
        await page.waitForTimeout(300);
        const selected = await page.evaluate(probe);
        expect(selected.arrow, "the position gizmo's up arrow above the clicked handle").not.toBeNull();
        const { x, y } = selected.arrow!;
        await page.mouse.move(x, y);
        await page.mouse.down();
        for (let i = 1; i <= 10; i++) await page.mouse.move(x, y - 6 * i);
        await page.mouse.up();
        await page.waitForTimeout(500);
        const end = await page.evaluate(probe);
        const rise = end.handleY - start.handleY;
        expect(end.weight, "the drag gave the thigh's effector weight").toBe(1);
        expect(rise, "the handle went up").toBeGreaterThan(0.05);
        expect(end.boneY - start.boneY, "the thigh went up with it").toBeGreaterThan(0.3 * rise);
        expect(errors).toEqual([]);
      }, 60_000);
    },
  );
});
