import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { expect } from "vitest";
import {
  type Capture,
  type CheckContext,
  type V,
  decode,
  dist,
  hue,
  hueGap,
  meanColour,
  pct,
  segmentDistance,
} from "../harness";

/** How far a handle's rendered hue may be from its legend swatch's (degrees): tone mapping made orange yellow. */
const HUE_TOLERANCE = 10;

/** The free scenario's checks: the handles, the panel, the gizmos, the solver nodes view. */
export async function checkFree({ checks, hook, waitFor, page, lines }: CheckContext): Promise<void> {
  const lh = checks.leftHand as { bone: V; handle: V; height: number };
  const h = lh.height;
  const d = dist(lh.bone, lh.handle);
  lines.push(`left hand to its handle (moved up in front at start): ${pct(d, h)} (tolerance 1 %)`);
  expect(d / h).toBeLessThan(0.01);
  await handlesLookLikeTheLegend(hook, page, lines);
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
  // clicking a handle selects it: the lists follow (the gizmo first moved to the body, clear of the feet)
  await page.selectOption("#effector", "0");
  const fg = await hook<number>("h.frames");
  await waitFor(`h.frames > ${fg + 2}`, 20_000);
  const foot = await hook<V>("h.world().handles['right foot']");
  const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(foot)})`);
  await page.mouse.click(x, y);
  await waitFor("document.getElementById('effector').value === '8'", 10_000);
  expect(await page.locator("#chain").inputValue()).toBe("3");
  // a bend goal clicked: its limb's chain, and no effector (the list stayed on the foot before)
  const knee = await hook<V>("h.world().handles['left leg bend goal']");
  const [kx, ky] = await hook<[number, number]>(`h.project(${JSON.stringify(knee)})`);
  await page.mouse.click(kx, ky);
  await waitFor("document.getElementById('chain').value === '2'", 10_000);
  expect(await hook<string>("h.world().selected")).toBe("left leg bend goal");
  expect(await page.locator("#effector").inputValue(), "no effector for a bend goal").toBe("-1");
  expect(await page.locator("#effector-none").textContent()).toMatch(/left leg's bend goal/);
  lines.push(`a bend goal clicked: the chain list on the left leg, the effector list on none`);
  // the gizmo shows world axes by default, the handle's own once switched; the legend names each colour
  expect(await hook<boolean>("h.world().gizmoWorld"), "world axes by default").toBe(true);
  await page.selectOption("#gizmo-axes", "1");
  expect(await hook<boolean>("h.world().gizmoWorld"), "local axes once switched").toBe(false);
  await page.selectOption("#gizmo-axes", "0");
  const swatches = await page.locator("#legend .swatch").evaluateAll((els) => els.map((e) => e.dataset.color));
  const colors = await hook<Record<string, string>>("h.world().colors");
  expect(swatches.length, "legend: hands, feet, body, shoulders, thighs, bend goals").toBe(6);
  expect(new Set(Object.values(colors))).toEqual(new Set(swatches));
  await relaxedForearms(hook, waitFor, page, setRange, lines);
  await bodyColliders(hook, waitFor, page, lines);
  // reset: parameters and handles back
  await hook("(h.handles().find('left hand').mesh.position.y += 0.2, 0)");
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
  // the body handle, without weight after the reset, rides on the bone its effector moves (the solver's root
  // node) where the user grabs it; weight on it there leaves the body where it is (on the pelvis, a spine bone
  // below it, the handle dropped the UAL character's body 26 cm, 16 % of h)
  const w = await hook<{ handles: Record<string, V>; body: V; rootNode: V }>("h.world()");
  lines.push(`body handle (weight 0) to the root node: ${pct(dist(w.handles.body!, w.rootNode), h)} (tolerance 1 %)`);
  expect(dist(w.handles.body!, w.rootNode) / h).toBeLessThan(0.01);
  await page.selectOption("#effector", "0");
  await setRange("e-positionWeight", 1);
  const fw = await hook<number>("h.frames");
  await waitFor(`h.frames > ${fw + 3}`, 20_000);
  const drop = dist(await hook<V>("h.world().body"), w.body);
  lines.push(`the body handle given weight where it rides: the pelvis moved ${pct(drop, h)} (tolerance 2 %)`);
  expect(drop / h, "the body stays where it is").toBeLessThan(0.02);
  expect(await hook<boolean>("h.scene.getMeshByName('solver nodes view')?.isEnabled() === true")).toBe(true);
  const nodes = await hook<{ bone: string; node: V; boneWorld: V }[]>("h.solverNodes(0)");
  const worst = Math.max(...nodes.map((n) => dist(n.node, n.boneWorld)));
  lines.push(`solver nodes view: ${nodes.length} nodes, worst node-to-bone distance ${pct(worst, h)} (tolerance 1 %)`);
  expect(nodes.length).toBeGreaterThanOrEqual(13);
  expect(worst / h).toBeLessThan(0.01);
  // the legend's colours are far apart (no two kinds alike: RGB distance, 0–441)
  const rgb = swatches.map((c) => [1, 3, 5].map((i) => Number.parseInt(String(c).slice(i, i + 2), 16)));
  let nearest = Infinity;
  for (let i = 0; i < rgb.length; i++)
    for (let j = i + 1; j < rgb.length; j++)
      nearest = Math.min(nearest, Math.hypot(...rgb[i]!.map((v, k) => v - rgb[j]![k]!)));
  lines.push(`legend: the two nearest handle colours ${nearest.toFixed(0)} apart in RGB (needs > 100)`);
  expect(nearest, "handle colours distinct").toBeGreaterThan(100);
  // at 1280×720 and 960×600 with the effector and views sections open, the panel scrolled to its end: the
  // title, help and IK toggles still in view at its top
  for (const [width, height] of [
    [1280, 720],
    [960, 600],
  ] as const) {
    await page.setViewportSize({ width, height });
    const box = await page.evaluate(() => {
      const panel = document.getElementById("panel")!;
      panel.scrollTop = panel.scrollHeight;
      const r = (id: string) => document.getElementById(id)!.getBoundingClientRect();
      // the content scrolled under the sticky header: hidden by it, not showing through
      const header = getComputedStyle(document.getElementById("panel-sticky")!).backgroundColor;
      return { scrolled: panel.scrollTop, panel: r("panel"), title: r("scenario-title"), ik: r("ik"), header };
    });
    expect(box.header, "the sticky header opaque").toMatch(/^rgb\(/);
    lines.push(
      `panel at ${width}×${height} scrolled ${box.scrolled.toFixed(0)} px: title at ${box.title.top.toFixed(0)} px, IK toggle at ${box.ik.top.toFixed(0)} px (panel ${box.panel.top.toFixed(0)}–${box.panel.bottom.toFixed(0)})`,
    );
    expect(box.scrolled, "the open sections make the panel scroll").toBeGreaterThan(0);
    expect(box.title.top, "title in view").toBeGreaterThanOrEqual(box.panel.top);
    expect(box.ik.bottom, "IK toggle in view").toBeLessThanOrEqual(box.panel.bottom);
    await page.evaluate(() => (document.getElementById("panel")!.scrollTop = 0));
  }
  // a resize clears the canvas, and the test's clock draws every 5 s at most: draw it for the page's screenshot
  await hook("h.capture()");
}

/**
 * Each kind of handle on screen in its legend's colour: the hue at the centre of its handles (the one nearest
 * the swatch's, as another handle may cover one) within {@link HUE_TOLERANCE} of the swatch's.
 */
async function handlesLookLikeTheLegend(hook: CheckContext["hook"], page: CheckContext["page"], lines: string[]) {
  const cap = await hook<Capture>("h.capture()");
  const png = decode(cap.shown).png;
  const cssWidth = await page.evaluate(() => document.querySelector("canvas")!.clientWidth);
  const { handles, colors } = await hook<{ handles: Record<string, V>; colors: Record<string, string> }>("h.world()");
  const best = new Map<string, { gap: number; label: string; rgb: number[] }>();
  for (const [label, p] of Object.entries(handles)) {
    const [x, y] = await hook<[number, number]>(`h.project(${JSON.stringify(p)})`);
    const rgb = meanColour(png, (x * cap.width) / cssWidth, (y * cap.width) / cssWidth);
    const swatch = colors[label]!;
    const want = hue([1, 3, 5].map((i) => Number.parseInt(swatch.slice(i, i + 2), 16)));
    // a grey (no hue) is as far as can be
    const raw = hueGap(hue(rgb), want);
    const gap = Number.isNaN(raw) ? 180 : raw;
    if (gap < (best.get(swatch)?.gap ?? Infinity)) best.set(swatch, { gap, label, rgb });
  }
  expect(best.size, "every kind of handle measured").toBe(6);
  for (const [swatch, { gap, label, rgb }] of best) {
    const seen = rgb.map((c) => Math.round(c)).join(", ");
    lines.push(`${label} handle: rendered rgb(${seen}), ${gap.toFixed(1)}° of hue from its swatch ${swatch}`);
    expect(gap, `${label}: the legend's colour (${swatch}), rendered rgb(${seen})`).toBeLessThan(HUE_TOLERANCE);
  }
}

interface Capsule {
  start: V;
  end: V;
  radius: number;
}

/**
 * The panel's body colliders (off by default): the left hand's target put inside the torso, 60 % of the way up
 * its capsule's axis. Off, the hand goes in (within the capsule); on, it stops on the capsule's surface, its radius
 * and the clearance from the axis.
 */
async function bodyColliders(
  hook: CheckContext["hook"],
  waitFor: CheckContext["waitFor"],
  page: CheckContext["page"],
  lines: string[],
): Promise<void> {
  type World = { leftHand: V; height: number; colliders: { on: boolean; torso: Capsule; clearance: number } };
  const w0 = await hook<World>("h.world()");
  expect(w0.colliders.on, "body colliders off by default").toBe(false);
  const t = w0.colliders.torso;
  const inside = [0, 1, 2].map((i) => t.start[i]! + 0.6 * (t.end[i]! - t.start[i]!)) as V;
  await hook(`(h.handles().find('left hand').mesh.position.set(${inside.join(", ")}), 0)`);
  const settle = async () => {
    const f = await hook<number>("h.frames");
    await waitFor(`h.frames > ${f + 10}`, 20_000);
    const w = await hook<World>("h.world()");
    return { w, axis: segmentDistance(w.leftHand, w.colliders.torso.start, w.colliders.torso.end) };
  };
  const off = await settle();
  await page.click("#free-colliders");
  const on = await settle();
  const h = off.w.height;
  const surface = on.w.colliders.torso.radius + on.w.colliders.clearance;
  lines.push(
    `left hand's target inside the torso: the hand ${pct(off.axis, h)} from the torso's axis with body colliders off, ${pct(on.axis, h)} on (radius + clearance ${pct(surface, h)})`,
  );
  expect(on.w.colliders.on).toBe(true);
  expect(off.axis, "colliders off: the hand inside the torso").toBeLessThan(off.w.colliders.torso.radius);
  expect(on.axis / h, "colliders on: the hand on the torso's surface").toBeGreaterThan(surface / h - 0.005);
  await page.click("#free-colliders");
}

/** The left arm as the free scenario's `world()` gives it: world rotations `[x, y, z, w]`, elbow and wrist. */
interface LeftArm {
  upper: number[];
  forearm: number[];
  hand: number[];
  elbow: V;
  wrist: V;
}

/** The twist turn of the left hand's handle (degrees) about the forearm. */
const TWIST_TURN = 90;

/**
 * Twist of `child` about the forearm's axis relative to `parent` (degrees) in `now`, measured from `ref`: a
 * direction across the forearm in `ref`, carried by each bone's rotation, flattened across the axis now.
 */
function twistFrom(ref: LeftArm, now: LeftArm, parent: "upper" | "forearm", child: "forearm" | "hand"): number {
  const rot = (q: number[]) => Matrix.FromQuaternionToRef(Quaternion.FromArray(q), new Matrix());
  const axis = (a: LeftArm) => Vector3.FromArray(a.wrist).subtract(Vector3.FromArray(a.elbow)).normalize();
  const a0 = axis(ref);
  const across = Vector3.Cross(a0, Math.abs(a0.y) < 0.9 ? Vector3.Up() : Vector3.Right()).normalize();
  const a = axis(now);
  const carried = (bone: "upper" | "forearm" | "hand") => {
    const local = Vector3.TransformNormal(across, rot(ref[bone]).invert());
    const v = Vector3.TransformNormal(local, rot(now[bone]));
    return v.subtract(a.scale(Vector3.Dot(v, a)));
  };
  const p = carried(parent);
  const c = carried(child);
  return (Math.atan2(Vector3.Dot(a, Vector3.Cross(p, c)), Vector3.Dot(p, c)) * 180) / Math.PI;
}

/**
 * The angle between two rotations `[x, y, z, w]` (degrees), from the chord between them (acos of their dot product
 * loses 0.05° to float32 matrices).
 */
function turnBetween(a: number[], b: number[]): number {
  const sign = a.reduce((s, x, i) => s + x * b[i]!, 0) < 0 ? -1 : 1;
  const chord = Math.hypot(...a.map((x, i) => x - sign * b[i]!));
  return (4 * Math.asin(Math.min(1, chord / 2)) * 180) / Math.PI;
}

/**
 * The panel's "relax forearms" (on by default, TwistRelaxer on both forearms): the clip paused, the left elbow held
 * by its bend goal (the panel's "bend goal weight" at 1, as a dragged green box gives it), the left hand's handle
 * turned {@link TWIST_TURN}° about the forearm. On, the forearm takes half of the turn (its twist about the upper
 * arm); off, none of it, the wrist all; the hand turns the same either way. Without the held elbow the arm's plane
 * follows the turned hand and the wrist twisted 2° of the 90° (UAL).
 */
async function relaxedForearms(
  hook: CheckContext["hook"],
  waitFor: CheckContext["waitFor"],
  page: CheckContext["page"],
  setRange: (id: string, v: number) => Promise<unknown>,
  lines: string[],
): Promise<void> {
  type World = { leftArm: LeftArm; relaxed: boolean };
  const settle = async () => {
    const f = await hook<number>("h.frames");
    await waitFor(`h.frames > ${f + 10}`, 20_000);
    return hook<World>("h.world()");
  };
  await hook("(h.setPaused(true), 0)");
  await page.selectOption("#chain", "0");
  await setRange("c-bendWeight", 1);
  // each setting measured from its own pose before the turn: the relaxer also turns the paused clip's forearm
  const refOn = await settle();
  expect(refOn.relaxed, "relax forearms on by default").toBe(true);
  await page.click("#free-relax");
  const refOff = await settle();
  expect(refOff.relaxed, "relax forearms off once clicked").toBe(false);
  // the handle turned in world space about the elbow-to-wrist line (the handle has no parent)
  const turn = (deg: number) =>
    hook(
      "(() => { const m = h.handles().find('left hand').mesh; const w = h.world().leftArm; " +
        "const V = m.position.constructor; " +
        "const a = new V(w.wrist[0] - w.elbow[0], w.wrist[1] - w.elbow[1], w.wrist[2] - w.elbow[2]).normalize(); " +
        `m.rotate(a, ${(deg * Math.PI) / 180}, 1); return 0; })()`,
    );
  await turn(TWIST_TURN);
  const off = await settle();
  await page.click("#free-relax");
  const on = await settle();
  const figures = (ref: World, w: World) => ({
    forearm: twistFrom(ref.leftArm, w.leftArm, "upper", "forearm"),
    wrist: twistFrom(ref.leftArm, w.leftArm, "forearm", "hand"),
  });
  const [a, b] = [figures(refOn, on), figures(refOff, off)];
  const handGap = turnBetween(on.leftArm.hand, off.leftArm.hand);
  lines.push(
    `left hand's handle turned ${TWIST_TURN}° about the held forearm: relax forearms on, the forearm twists ` +
      `${a.forearm.toFixed(2)}° about the upper arm, the wrist ${a.wrist.toFixed(2)}°; off, ` +
      `${b.forearm.toFixed(2)}° and ${b.wrist.toFixed(2)}° (tolerance 1°); the hand's world rotation on and off ` +
      `${handGap.toExponential(1)}° apart (tolerance 0.01°)`,
  );
  expect(Math.abs(a.forearm - TWIST_TURN / 2), "on: the forearm takes half of the turn").toBeLessThan(1);
  expect(Math.abs(a.wrist - TWIST_TURN / 2), "on: the wrist the other half").toBeLessThan(1);
  expect(Math.abs(b.forearm), "off: the forearm does not twist").toBeLessThan(1);
  expect(Math.abs(b.wrist - TWIST_TURN), "off: the wrist takes the whole turn").toBeLessThan(1);
  expect(handGap, "the hand turns the same with and without the relaxer").toBeLessThan(0.01);
  await turn(-TWIST_TURN);
  await setRange("c-bendWeight", 0);
  await hook("(h.setPaused(false), 0)");
}
