/**
 * crowd: 1 to 1,000 characters on the model's Idle_Loop (each at its own phase), each right hand on a wand
 * whose ball circles in front of it, under the library's IK level of detail (`IKLevelOfDetail.for(scene)`):
 * full quality near the camera, the cheap limbs-only mode further away, off when tiny, and a budget in ms
 * that lowers the farthest first. The ring at each character's feet shows its level.
 */
import type { Material } from "@babylonjs/core/Materials/material";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { BabylonEffector } from "../../../src/babylon/babylon-effector";
import { IKLevelOfDetail } from "../../../src/babylon/lod/ik-level-of-detail";
import { crowdPanel, setBudget } from "../crowd-panel";
import { disposeCharacter } from "../dispose-character";
import {
  type Character,
  type Ctx,
  type Json,
  type Scenario,
  type ScenarioRun,
  armLength,
  arr,
  bonePos,
  playClip,
} from "../kit";
import { frameBox } from "../frame-box";
import { visibleHeight, visibleReach } from "../framing";
import { useCheapMaterials } from "../props/crowd-material";
import { CrowdMarkers } from "../props/crowd-markers";
import { fistScale, isUnder, skinVertices } from "../props/skin";
import { wandCircle } from "../crowd-circle";
import { handReach, headBox, toCharacter, toWorld } from "../head-box";

const MAX = 1000;
/** The crowd the scenario opens with: the URL's `?count=N` (1 to MAX), else 100. */
const startCount = () =>
  Math.min(MAX, Math.max(1, Math.round(Number(new URLSearchParams(location.search).get("count"))) || 100));
/** Characters casting shadows (the front rows): a thousand shadow casters are slow on software GL. */
const SHADOW_CASTERS = 24;
/** Spawning goes on for at least this many ms a frame: a thousand arrive without freezing the page. */
const SPAWN_MS = 60;
const TAU = 2 * Math.PI;
/** The camera's polar angle on a crowd of more than two rows (from above): the hands' circle clears the heads. */
const STEEP = 1.05;

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const { scene, camera } = ctx;
  const lod = IKLevelOfDetail.for(scene); // every FullBodyBipedIK of the scene, those spawned later included
  /** Projected heights of the front and back rows (fractions of the view's height), set with the framing. */
  let sizes = [0, 0];
  const first = ctx.spawn(Vector3.Zero());
  const { h, forward, right } = first;
  const base = first.root.position.clone();
  const L = armLength(first, false);
  // the wands' balls above the fist, however big
  const hand = first.ik.references.rightHand;
  const fistSkin = skinVertices(first.skeleton, (b) => isUnder(b, hand));
  const fist = fistScale(fistSkin, h);
  const wand = CrowdMarkers.wandSize(h, fist);
  // the balls' circle, from a character's place: in front of the right shoulder, within the arm's reach, the
  // hand and the ball clear of the head seen from the crowd's steepest view
  const circle = wandCircle(
    toCharacter(first, bonePos(first.ik.references.rightUpperArm)),
    L,
    headBox(first),
    handReach(first, hand),
    wand.above,
    wand.radius,
    Math.PI / 2 - STEEP,
  );
  const centre = toWorld(first, circle.centre).subtract(base);
  const radius = circle.radius;
  // how far the meshes reach around a character (a chibi's head is wider than its shoulders); front and back
  // only: a skinned mesh's box is its bind pose's, arms out sideways in a T-pose
  const reach = Math.max(visibleReach(first, forward), visibleReach(first, forward.negate()));
  const tall = visibleHeight(first);
  // side by side, and rows apart (the arms reach forward)
  const [sx, sz] = [Math.max(0.75 * h, 2.2 * reach), Math.max(1.05 * h, 2.2 * reach)];
  // the rings under the pelvis (a model's root need not be between its feet)
  const pelvis = bonePos(first.ik.references.pelvis).subtract(base);
  const wandUp = toWorld(first, circle.up).subtract(first.root.getAbsolutePosition());
  const markers = new CrowdMarkers(scene, h, MAX, fist, wandUp);
  const cheap = new Map<Material, Material>();
  scene.skipPointerMovePicking = true; // nothing to hover: no picking through a thousand meshes
  const chars: Character[] = [];
  const hands: BabylonEffector[] = [];
  const slots = new Float32Array(MAX * 2);
  let cols = 1;
  let rows = 1;
  let wanted = startCount();
  /** What the panel's reset goes back to: the count the crowd opened with, the LOD's settings as built. */
  const built = { count: wanted, lod: lod.enabled, budget: lod.budgetMs };

  /** The grid for `n`: about as wide as deep, row 0 nearest the camera. */
  const layout = (n: number) => {
    cols = Math.ceil(Math.sqrt((n * sz) / sx));
    rows = Math.ceil(n / cols);
    for (let i = 0; i < MAX; i++) {
      const a = (i % cols) - (cols - 1) / 2;
      const b = Math.floor(i / cols) - (rows - 1) / 2;
      slots[i * 2] = right.x * a * sx - forward.x * b * sz;
      slots[i * 2 + 1] = right.z * a * sx - forward.z * b * sz;
    }
    chars.forEach(place);
    markers.ringsMoved();
  };
  // spawned in place: the LOD takes a new character's bounds when it first sees it
  const slotAt = (i: number) => new Vector3(slots[i * 2]!, 0, slots[i * 2 + 1]!);
  const place = (c: Character, i: number) => {
    c.root.position.set(base.x + slots[i * 2]!, base.y, base.z + slots[i * 2 + 1]!);
    // the whole hierarchy's world matrices now: the LOD takes a new character's bounds from its bones
    c.root.computeWorldMatrix(true);
    for (const n of c.root.getDescendants(false)) if (n instanceof TransformNode) n.computeWorldMatrix(true);
    markers.placeRing(i, base.x + pelvis.x + slots[i * 2]!, base.y + 0.01 * h, base.z + pelvis.z + slots[i * 2 + 1]!);
  };
  const add = (c: Character) => {
    const i = chars.length;
    chars.push(c);
    markers.setCount(chars.length);
    place(c, i);
    // the model's idle at its own phase (golden-ratio steps), or the procedural idle
    const clip = playClip(c, "Idle_Loop") ?? c.idle;
    clip?.goToFrame(clip.from + ((i * 0.618) % 1) * (clip.to - clip.from));
    // paused as the shell pauses: at speed 0, still writing its frame
    if (ctx.paused() && clip !== null) clip.speedRatio = 0;
    const hand = c.ik.solver.rightHandEffector;
    hand.positionWeight = 1;
    hands.push(hand);
    c.ik.enabled = first.ik.enabled; // the panel's IK on/off holds for the newcomers
    if (i >= SHADOW_CASTERS) for (const m of c.meshes) ctx.shadows.removeShadowCaster(m, false);
    useCheapMaterials(c.meshes, cheap);
  };
  /** Toward `wanted`: spawns for about the last frame's time (SPAWN_MS to 1 s), removes at once. */
  const grow = () => {
    const t0 = performance.now();
    const budget = Math.max(SPAWN_MS, Math.min(1000, ctx.engine.getDeltaTime()));
    const had = chars.length;
    while (chars.length < wanted && performance.now() - t0 < budget) add(ctx.spawn(slotAt(chars.length)));
    if (chars.length > had) markers.ringsMoved();
    while (chars.length > wanted) {
      disposeCharacter(ctx, chars.pop()!);
      hands.pop();
      markers.setCount(chars.length);
    }
  };
  const setCount = (n: number) => {
    wanted = Math.max(1, Math.min(MAX, Math.round(n)));
    layout(wanted);
    frame();
    samples.length = 0;
  };

  /** The camera on the whole crowd, from the front and above, in the right three quarters of the view. */
  const frame = () => {
    const lo = new Vector3(Infinity, 0, Infinity);
    const hi = new Vector3(-Infinity, 1.05 * tall, -Infinity);
    const pad = Math.max(0.3 * h, reach);
    for (let i = 0; i < wanted; i++) {
      lo.x = Math.min(lo.x, base.x + slots[i * 2]! - pad);
      lo.z = Math.min(lo.z, base.z + slots[i * 2 + 1]! - pad);
      hi.x = Math.max(hi.x, base.x + slots[i * 2]! + pad);
      hi.z = Math.max(hi.z, base.z + slots[i * 2 + 1]! + pad);
    }
    camera.target = lo.add(hi).scale(0.5);
    const dir = forward.add(right.scale(0.2));
    camera.alpha = Math.atan2(dir.z, dir.x);
    camera.beta = rows > 2 ? STEEP : 1.25;
    frameBox(camera, lo, hi);
    // full quality for the nearer half of the crowd: the threshold between the front and back rows' sizes
    const m = camera.getViewMatrix(true).multiply(camera.getProjectionMatrix(true)).m;
    let [near, far] = [Infinity, 0];
    for (let i = 0; i < wanted; i++) {
      const [x, z] = [base.x + slots[i * 2]!, base.z + slots[i * 2 + 1]!];
      const w = x * m[3]! + (base.y + 0.5 * h) * m[7]! + z * m[11]! + m[15]!;
      [near, far] = [Math.min(near, w), Math.max(far, w)];
    }
    sizes = [(h * m[5]!) / (2 * near), (h * m[5]!) / (2 * far)];
    lod.fullScreenSize = Math.min(0.5, Math.max(0.03, Math.sqrt(sizes[0]! * sizes[1]!)));
  };

  let time = 0;
  /** Scene seconds and frames since the crowd was complete. */
  let settled = 0;
  let settledFrames = 0;
  const moveTargets = () => {
    for (let i = 0; i < chars.length; i++) {
      // each ball at its own phase and pace (golden-ratio steps), on a vertical circle facing the character
      const a = time * (1.1 + 0.4 * ((i * 0.382) % 1)) + TAU * ((i * 0.618) % 1);
      const s = radius * Math.cos(a);
      const x = slots[i * 2]! + centre.x + right.x * s;
      const y = centre.y + radius * Math.sin(a);
      const z = slots[i * 2 + 1]! + centre.z + right.z * s;
      const p = hands[i]!.position;
      p.x = base.x + x;
      p.y = base.y + y;
      p.z = base.z + z;
      markers.placeGrip(i, p.x, p.y, p.z);
    }
    markers.wandsMoved();
  };

  // the test's key moments: 2.5 s after the crowd is complete (levels settled), then twice 0.7 s apart
  const samples: Json[] = [];
  let animated: Vector3[] = [];
  let sampleNow = false;
  const sample = (): Json =>
    chars.map((c, i) => ({
      level: lod.levelOf(c.ik),
      weight: lod.weightOf(c.ik),
      ring: markers.levelShown(i),
      hand: arr(bonePos(c.ik.references.rightHand)),
      grip: markers.wand(i).grip,
      animated: arr(animated[i]!),
      distance: Vector3.Distance(camera.globalPosition, c.root.position),
    }));

  const counts = [0, 0, 0];
  // what the LOD sees of the first and the last character (for the test's report)
  const seen = (): Json =>
    [chars[0]!, chars[chars.length - 1]!].map((c) => {
      const l = lod.viewOf(c.ik);
      return l === null ? null : { size: l.size, centre: arr(l.centre), node: l.node?.name ?? null };
    });
  let showLegend = (_: readonly number[]) => {};
  /** The counts the legend shows. */
  const shown = [0, 0, 0];
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      count: chars.length,
      wanted,
      height: h,
      levels: [...counts],
      demoted: lod.budgetDemotion,
      sizes,
      fullAt: lod.fullScreenSize,
      seen: seen(),
    }),
    update: (dt) => {
      time += dt;
      grow();
      moveTargets();
      // the LOD fades in scene time (scene.deltaTime), as this counts
      if (chars.length === wanted) {
        settled += dt;
        settledFrames++;
      } else {
        settled = 0;
        settledFrames = 0;
      }
      const k = samples.length;
      sampleNow = !run.done && chars.length === wanted && settled >= 2.5 + 0.7 * k && settledFrames >= 4 + 3 * k;
      // the hands as the animation put them (before the solve), for the Off characters' check
      if (sampleNow) animated = chars.map((c) => bonePos(c.ik.references.rightHand));
    },
    after: () => {
      counts.fill(0);
      let changed = false;
      for (let i = 0; i < chars.length; i++) {
        const level = lod.levelOf(chars[i]!.ik);
        counts[level]!++;
        if (markers.setLevel(i, level)) changed = true;
      }
      if (changed) markers.ringsRecoloured();
      // as soon as the counts change: a slow machine draws a crowd at a frame or two a second
      if (counts.some((n, l) => n !== shown[l])) {
        shown.splice(0, 3, ...counts);
        showLegend(counts);
      }
      if (!sampleNow) return;
      sampleNow = false;
      samples.push({ time, characters: sample() });
      if (samples.length === 3) {
        run.checks = { samples: [...samples], count: chars.length, height: h, budget: lod.budgetMs };
        run.done = true;
      }
    },
    panel: (el) => {
      showLegend = crowdPanel(el, lod, () => wanted, setCount);
      showLegend(counts);
    },
    reset: () => {
      lod.enabled = built.lod;
      lod.budgetMs = built.budget;
      // the camera on the crowd again, and its full-quality threshold from it
      setCount(built.count);
    },
    control: (cmd, arg) => {
      if (cmd === "count" && typeof arg === "number") setCount(arg);
      if (cmd === "budget") setBudget(lod, typeof arg === "number" ? arg : Number.POSITIVE_INFINITY);
      if (cmd === "resample") {
        // new key moments from now (the test's, with the budget off)
        samples.length = 0;
        run.done = false;
        settled = 0;
        settledFrames = 0;
      }
      return wanted;
    },
    dispose: () => {
      lod.dispose();
      markers.dispose();
    },
  };
  add(first);
  layout(wanted);
  frame();
  moveTargets();
  return run;
}

export const crowd: Scenario = {
  name: "crowd",
  title: "Crowd: IK level of detail",
  help:
    "Each right hand follows its own ball; the ring at the feet shows the IK level (green full, orange " +
    "limbs only, grey off) set by size on screen and the ms budget. The slider spawns 1 to 1,000 characters.",
  build,
};
