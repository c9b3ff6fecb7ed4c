/**
 * GrounderIK's `characterForward` on the characters its own tests never used (QA round 23): Soldier, Superhero, the
 * Mannequin, RiggedFigure as glTF and as `.babylon`, a VRM 0.x avatar, and Xbot scaled ×0.01 and ×100, in left-
 * and right-handed scenes, on BipedIK's two LimbIK legs. Each stands on a bumpy slope rising ahead of it and to its
 * side, with the probes that read the forward (`quality` Simple, a `footCenterOffset`); the same character turned a
 * quarter and a half under its root (it then faces the root's ±x, or the other z; a `.babylon` character, whose root
 * is its mesh, turned with its root) on the slope turned alike stands the same, to 1e-6 h in the character's frame,
 * its feet at their animated height above the ground. A forward given 90° off moves the stand: the probes read it.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { BipedIK } from "../../src/babylon/biped-ik.js";
import { GrounderIK } from "../../src/effectors/grounding/grounder-ik.js";
import { GroundingQuality } from "../../src/effectors/grounding/grounding-common.js";
import type { GroundingHit, GroundingRaycast } from "../../src/effectors/grounding/grounding-common.js";
import type { ReadonlyVec3 } from "../../src/math/vec3.js";
import { type ModelName, modelAvailable } from "../helpers/babylon-scene.js";
import { type CharacterCase, characterCase, loadCaseModel, vrmAndScaledXbot } from "../helpers/character-cases.js";
import { bonePos, skinnedMesh } from "../helpers/model-limbs.js";
import { report } from "../helpers/modifier-scene.js";

const CASES: CharacterCase[] = [
  ...(["Soldier", "Superhero", "Mannequin", "RiggedFigure", "RiggedFigureBabylon"] as ModelName[]).map((name) =>
    characterCase(name, false),
  ),
  ...vrmAndScaledXbot(false),
  // right-handed: the ones that face −z, the VRM and a scaled one (each stand loads a model: the file's time)
  ...(["Soldier", "RiggedFigureBabylon"] as ModelName[]).map((name) => characterCase(name, true)),
  ...vrmAndScaledXbot(true).filter((c) => c.scale !== 0.01),
];

const QUARTER = Math.PI / 2;

interface Stand {
  /** Every bone's position in the character's frame (ahead, up, to its side, from the pelvis over the ground). */
  local: number[][];
  h: number;
  /** The grounder's characterForward. */
  forward: Vector3;
  /** The feet's heights above the ground under them, × h. */
  feet: number[];
  /** The feet's animated heights above the root's plane (y = 0), × h. */
  animated: number[];
}

/**
 * The case's character turned `turn` radians (under its root; a `.babylon` character, whose root is its mesh, with
 * it), its legs grounded by GrounderIK for 40 frames on bumps over a plane rising `rise` ahead and `rise` × 2/3 to its side.
 */
async function stand(c: CharacterCase, turn: number, rise: number, forward?: (f: Vector3) => Vector3): Promise<Stand> {
  const m = await loadCaseModel(c, true);
  // the .babylon file starts its clip at load
  m.scene.stopAllAnimations();
  const plain = c.name === "RiggedFigureBabylon";
  if (plain) m.root.rotation.y += turn;
  else if (turn !== 0) {
    const inner = new TransformNode("turned", m.scene);
    const children = m.root.getChildren();
    inner.parent = m.root;
    inner.rotation.y = turn;
    for (const child of children) (child as TransformNode).parent = inner;
  }
  m.scene.render();
  const ys = m.skeleton.bones.map((b) => bonePos(m, b).y);
  const h = Math.max(...ys) - Math.min(...ys);
  const mesh = plain ? skinnedMesh(m) : undefined;
  const ik = BipedIK.create(m.scene, m.skeleton, { mesh });
  const r = ik.references;
  // the character's frame from its pose: the way the toes point, its side, the ground under its pelvis
  const ahead = Vector3.Zero();
  for (const foot of [r.leftFoot, r.rightFoot]) {
    const d = bonePos(m, foot.children[0]!).subtract(bonePos(m, foot));
    d.y = 0;
    ahead.addInPlace(d.normalize());
  }
  ahead.normalize();
  const side = Vector3.Cross(Vector3.Up(), ahead);
  const origin = bonePos(m, r.pelvis);
  origin.y = 0;
  const ground = (x: number, z: number) => {
    const p = new Vector3(x - origin.x, 0, z - origin.z);
    const a = Vector3.Dot(p, ahead) / h;
    const s = Vector3.Dot(p, side) / h;
    // bumps ahead and aside: the probes ahead of the foot and beside it find other heights than under it
    const bumps = 0.03 * Math.sin(2 * Math.PI * (a / 0.4)) + 0.02 * Math.sin(2 * Math.PI * (s / 0.5) + 1);
    return h * (rise * (a + (2 / 3) * s) + bumps);
  };
  const animated = [r.leftFoot, r.rightFoot].map((b) => bonePos(m, b).y / h);
  const grounder = GrounderIK.create([ik.solvers.leftFoot, ik.solvers.rightFoot], r.pelvis, {
    raycast: exactGround(ground, h),
    quality: GroundingQuality.Simple,
    footCenterOffset: 0.05 * h,
    mesh,
  });
  if (forward !== undefined) grounder.characterForward.copyFrom(forward(grounder.characterForward));
  for (let f = 0; f < 40; f++) m.scene.render();
  const local = m.skeleton.bones.map((b) => {
    const p = bonePos(m, b).subtract(origin);
    return [Vector3.Dot(p, ahead), p.y, Vector3.Dot(p, side)];
  });
  const feet = [r.leftFoot, r.rightFoot].map((b) => {
    const p = bonePos(m, b);
    return (p.y - ground(p.x, p.z)) / h;
  });
  return { local, h, forward: grounder.characterForward.clone(), feet, animated };
}

/**
 * A raycast onto the ground y = `ground(x, z)` itself, not onto a mesh of it (a mesh's triangles would not turn with
 * the character): the first crossing along the ray by bisection, the normal from the slope there.
 */
function exactGround(ground: (x: number, z: number) => number, h: number): GroundingRaycast {
  const above = (o: ReadonlyVec3, d: ReadonlyVec3, t: number) => o.y + d.y * t - ground(o.x + d.x * t, o.z + d.z * t);
  return (o: ReadonlyVec3, d: ReadonlyVec3, max: number, out: GroundingHit): boolean => {
    if (above(o, d, 0) < 0 || above(o, d, max) > 0) return false;
    let lo = 0;
    let hi = max;
    for (let k = 0; k < 60; k++) {
      const mid = (lo + hi) / 2;
      if (above(o, d, mid) > 0) lo = mid;
      else hi = mid;
    }
    const t = (lo + hi) / 2;
    const x = o.x + d.x * t;
    const z = o.z + d.z * t;
    const e = 1e-5 * h;
    const gx = (ground(x + e, z) - ground(x - e, z)) / (2 * e);
    const gz = (ground(x, z + e) - ground(x, z - e)) / (2 * e);
    const n = Math.hypot(gx, 1, gz);
    out.point.x = x;
    out.point.y = ground(x, z);
    out.point.z = z;
    out.normal.x = -gx / n;
    out.normal.y = 1 / n;
    out.normal.z = -gz / n;
    out.distance = t;
    out.ground = null;
    return true;
  };
}

/** The largest difference of any bone between two stands, × h. */
function apart(a: Stand, b: Stand): number {
  let worst = 0;
  a.local.forEach((row, i) => {
    for (let j = 0; j < 3; j++) worst = Math.max(worst, Math.abs(row[j]! - b.local[i]![j]!));
  });
  return worst / a.h;
}

describe.each(CASES)("GrounderIK's forward on $label", (c) => {
  it.skipIf(!modelAvailable(c.name))("turned a quarter and a half: the same stand, the feet planted", async () => {
    const base = await stand(c, 0, 0.15);
    const axes: number[][] = [base.forward.asArray()];
    let worst = 0;
    for (const turn of [QUARTER, 2 * QUARTER]) {
      const s = await stand(c, turn, 0.15);
      axes.push(s.forward.asArray());
      worst = Math.max(worst, apart(base, s));
    }
    const planted = Math.max(...base.feet.map((v, i) => Math.abs(v - base.animated[i]!)));
    report(`${c.label}: worst bone apart (× h), feet's height above the ground − animated (× h)`, worst, planted);
    // measured: ≤ 2.5e-16 h apart; the feet at their animated height to 2.1e-7 h (glTF), 5.4e-6 h (.babylon)
    expect(worst).toBeLessThan(1e-6);
    expect(planted).toBeLessThan(1e-4);
    // under the root, the character faces the root's +z or −z (Soldier, the .babylon file), then ±x, the other z
    const plain = c.name === "RiggedFigureBabylon";
    const used = axes.map((a) => a.map((v) => Math.round(v)).join(","));
    expect(new Set(used).size).toBe(plain ? 1 : 3);
    for (const a of axes) expect(Math.abs(a[0]!) + Math.abs(a[2]!)).toBe(1);
  });
});

describe("a forward given 90° off", () => {
  for (const name of ["Soldier"] as ModelName[]) {
    it.skipIf(!modelAvailable(name))(`${name}: the probes read it, the stand changes`, async () => {
      const c = characterCase(name, false);
      const base = await stand(c, 0, 0.15);
      const off = await stand(c, 0, 0.15, (f) => new Vector3(f.z, 0, -f.x));
      const d = apart(base, off);
      report(`${name}: a forward 90° off moves the stand by (× h)`, d);
      expect(d).toBeGreaterThan(1e-3);
    });
  }
});
