/**
 * The demo's climb as a first-time visitor sees its hands: on their rungs, do they hold them? Per frame of a hand
 * holding, up to the top of the climb: the palm (the knuckles' centre, and the hand bone) against the rung's
 * axis and radius, the finger joints inside the rung, and how far the fingertips are from its surface. Before the
 * grip, the hands kept the clip's orientation and fingers: fists above the rungs, floating.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bonePos, worldPos } from "../../demo/src/kit.js";
import { fingerChains, fingerPoints } from "../../demo/src/props/grip.js";
import { climb } from "../../demo/src/scenarios/climb.js";
import { type LoadedModel, type ModelName, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { openScenario } from "../helpers/demo-scenario.js";

const report = (s: string) => process.env.FBBIK_REPORT && console.log(s);

/** A rung: a point on its axis, its unit direction, half its length and its radius. */
interface Rung {
  at: Vector3;
  dir: Vector3;
  half: number;
  radius: number;
}

/** The rung meshes (cylinders along their local Y) as axes. */
function rungsOf(meshes: AbstractMesh[]): Rung[] {
  return meshes
    .filter((m) => m.name === "rung")
    .map((m) => {
      const w = m.computeWorldMatrix(true);
      const y = Vector3.TransformNormal(Vector3.Up(), w);
      const x = Vector3.TransformNormal(Vector3.Right(), w);
      const box = m.getBoundingInfo().boundingBox;
      return {
        at: m.getAbsolutePosition().clone(),
        dir: y.normalize(),
        half: box.extendSize.y * y.length(),
        radius: box.extendSize.x * x.length(),
      };
    });
}

/** Distance of `p` from the rung's axis, and whether it lies along its length. */
function fromAxis(p: Vector3, r: Rung): { d: number; along: boolean } {
  const v = p.subtract(r.at);
  const t = Vector3.Dot(v, r.dir);
  return { d: v.subtract(r.dir.scale(t)).length(), along: Math.abs(t) <= r.half };
}

/** What the grip of one hand came to over the climb (distances as shares of the rung's radius). */
interface GripFigures {
  frames: number;
  /** Knuckles' centre to the axis: mean and worst (largest). */
  knuckles: { mean: number; worst: number };
  /** Hand bone (wrist) to the axis: mean. */
  wrist: number;
  /** The palm's middle (halfway from the wrist to the knuckles' centre) to the axis: mean and worst. */
  palm: { mean: number; worst: number };
  /** Joints and estimated tips inside the rung (frames × points), and the deepest (share of the radius). */
  inside: number;
  depth: number;
  /** Fingertips (not the thumb's) from the surface: mean and worst (largest) gap, share of the radius. */
  tips: { mean: number; worst: number };
}

/**
 * The climb's grips; `anyRung`: frames × finger points inside any rung once both hands first held (moving too),
 * `anyDepth` the deepest of them (share of the radius).
 */
async function measure(
  m: LoadedModel,
): Promise<{ h: number; radius: number; hands: Record<string, GripFigures>; anyRung: number; anyDepth: number }> {
  const { run, ctx, c } = await openScenario(m, climb, 1280, 800, { idle: false });
  const nodes = new Set(
    c.skeleton.bones.map((b: Bone) => b.getTransformNode()).filter((n): n is TransformNode => n !== null),
  );
  const rungs = rungsOf(ctx.scene.meshes);
  const r = c.ik.references;
  const hands = { leftHand: r.leftHand, rightHand: r.rightHand };
  type Acc = { n: number; k: number[]; w: number[]; p: number[]; inside: number; depth: number; tips: number[] };
  const acc: Record<string, Acc> = {};
  let anyRung = 0;
  let anyDepth = 0;
  let mounted = false;
  for (let f = 0; f < 1200 && !run.done; f++) {
    m.scene.render();
    const limbs = (run.world!() as { limbs: Record<string, { holding: boolean; hold: number[] | null }> }).limbs;
    mounted ||= limbs.leftHand!.holding && limbs.rightHand!.holding;
    for (const bone of mounted ? Object.values(hands) : [])
      for (const ch of fingerChains(bone.getTransformNode()!, nodes))
        for (const p of fingerPoints(ch))
          for (const rung of rungs) {
            const { d, along } = fromAxis(p, rung);
            if (!along || d >= rung.radius) continue;
            anyRung++;
            anyDepth = Math.max(anyDepth, 1 - d / rung.radius);
          }
    for (const [name, bone] of Object.entries(hands)) {
      const s = limbs[name]!;
      if (!s.holding || s.hold === null) continue;
      const hold = Vector3.FromArray(s.hold);
      const rung = rungs.reduce((a, b) => (fromAxis(hold, a).d <= fromAxis(hold, b).d ? a : b));
      const hand = bone.getTransformNode()!;
      const chains = fingerChains(hand, nodes);
      const thumb = chains.findIndex((ch) => /thumb/i.test(ch[0]!.name));
      const fingers = chains.filter((_, i) => i !== thumb);
      const a = (acc[name] ??= { n: 0, k: [], w: [], p: [], inside: 0, depth: 0, tips: [] });
      a.n++;
      if (fingers.length > 0) {
        const sum = fingers.map((ch) => worldPos(ch[0]!)).reduce((x, y) => x.add(y), Vector3.Zero());
        const knuckles = sum.scale(1 / fingers.length);
        a.k.push(fromAxis(knuckles, rung).d / rung.radius);
        a.p.push(fromAxis(knuckles.add(bonePos(bone)).scale(0.5), rung).d / rung.radius);
      }
      a.w.push(fromAxis(bonePos(bone), rung).d / rung.radius);
      for (const ch of chains)
        for (const p of fingerPoints(ch)) {
          const { d, along } = fromAxis(p, rung);
          if (!along || d >= rung.radius) continue;
          a.inside++;
          a.depth = Math.max(a.depth, 1 - d / rung.radius);
        }
      for (const ch of fingers) a.tips.push(fromAxis(fingerPoints(ch).at(-1)!, rung).d / rung.radius - 1);
    }
  }
  expect(run.done, "the climb reached the top").toBe(true);
  const mean = (v: number[]) => (v.length === 0 ? Number.NaN : v.reduce((x, y) => x + y, 0) / v.length);
  const out: Record<string, GripFigures> = {};
  for (const [name, a] of Object.entries(acc))
    out[name] = {
      frames: a.n,
      knuckles: { mean: mean(a.k), worst: Math.max(...a.k) },
      wrist: mean(a.w),
      palm: { mean: mean(a.p), worst: Math.max(...a.p) },
      inside: a.inside,
      depth: a.depth,
      tips: { mean: mean(a.tips), worst: Math.max(...a.tips) },
    };
  return { h: c.h, radius: rungs[0]!.radius, hands: out, anyRung, anyDepth };
}

const MODELS: ModelName[] = ["UAL", "Xbot"];

describe.each(MODELS)("the climb's hands on their rungs (%s)", (name) => {
  let m: LoadedModel;
  beforeAll(async () => {
    if (modelAvailable(name)) m = await loadModel(name, { clips: (clip) => clip === "Idle_Loop" });
  });
  afterAll(() => m?.dispose());

  it.skipIf(!modelAvailable(name))("grip them: palm on the rung, fingers around it, none inside", async () => {
    const { h, radius, hands, anyRung, anyDepth } = await measure(m);
    report(
      `${name} climb: frames × finger joints (and tips) inside a rung once both hands held: ${anyRung}, the ` +
        `deepest ${anyDepth.toFixed(2)} radius`,
    );
    const f = (v: number) => v.toFixed(2);
    for (const [hand, g] of Object.entries(hands))
      report(
        `${name} climb ${hand} (rung radius ${((radius / h) * 100).toFixed(2)} % of h), over ${g.frames} frames ` +
          `holding: palm's middle ${f(g.palm.mean)} (worst ${f(g.palm.worst)}) radii from the axis, knuckles' ` +
          `centre ${f(g.knuckles.mean)} (worst ${f(g.knuckles.worst)}), wrist ${f(g.wrist)}; ${g.inside} joint×frames inside the rung, deepest ${f(g.depth)} radius; ` +
          `fingertips ${f(g.tips.mean)} (worst ${f(g.tips.worst)}) radii off the surface`,
      );
    expect(Object.keys(hands).sort()).toEqual(["leftHand", "rightHand"]);
    // measured before the grip (the clip's hands): palm 3.4–5.1 radii from the axis, fingertips 4.0–9.1 radii off
    // the surface (worst 7.5–11.8), 7–178 joint×frames inside the rung holding it; once on the ladder 187 (UAL)
    // and 138 (Xbot) frames × points inside a rung, 0.83 radius deep. With it: 2.5 / 2.0, 0.65 / 1.16 (worst 1.26),
    // none; 0 and 6 (an estimated tip past Xbot's last index joint, 0.07 radius deep, as a hand leaves its hold)
    for (const [hand, g] of Object.entries(hands)) {
      expect(g.frames, `${hand} held its rungs`).toBeGreaterThan(100);
      expect(g.palm.mean, `${hand}: the palm on the rung (radii from its axis)`).toBeLessThan(3);
      expect(g.tips.mean, `${hand}: fingertips around the rung (radii off its surface)`).toBeLessThan(1.5);
      expect(g.tips.worst, `${hand}: every fingertip near the rung`).toBeLessThan(2);
      expect(g.inside, `${hand}: no finger inside the rung it holds`).toBe(0);
    }
    expect(anyDepth, "no finger into a rung on the ladder (share of its radius)").toBeLessThan(0.1);
  });
});
