/** A table sized from the character, and a cup on it the user drags with the pointer (kept on the tabletop). */
import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import { CreateTorus } from "@babylonjs/core/Meshes/Builders/torusBuilder";
import type { Bone } from "@babylonjs/core/Bones/bone";
import { type Character, type Ctx, mat } from "../kit";
import { fistScale, isUnder, skinVertices } from "./skin";

/** The table and its cup. */
export interface Table {
  top: number;
  cup: Mesh;
  cupRadius: number;
  cupHeight: number;
  /** The pointer drag of the cup (disable it while the cup is in the hand). */
  drag: PointerDragBehavior;
  /** Moves the cup to table coordinates (u across, v along the character's forward; −1…1 of the free area). */
  place(u: number, v: number): void;
  meshes: Mesh[];
}

/**
 * A mug's height for its `width` on a character `height` tall: as tall as a mug for that height (6.5 %, 11.7 cm
 * for 1.8 m; a sixth of the table's), but no taller than 1.25 times its width nor squatter than 0.8 times it, so
 * that a mug widened for a big fist still reads as one (the Mannequin's grew with its width to 15.6 % of its height,
 * a vase as tall as its forearm).
 */
export function mugHeight(width: number, height: number): number {
  return Math.min(1.25 * width, Math.max(0.8 * width, 0.065 * height));
}

/**
 * A table in front of the character: top at 0.42 h, from 0.17 h to 0.5 h ahead of it, 0.6 h wide; moved away
 * (same size) as far as the body's skin (arms aside) at the board's height reaches past 0.17 h, with 3 % of h
 * to spare (a chibi's belly reached 0.7 cm into the board). The cup is sized for `hand`, the one that grips it:
 * its width from the height, and as many times bigger as its fist is bigger than a realistic one (`fistScale`);
 * its height a mug's for that width (`mugHeight`).
 */
export function makeTable(
  ctx: Ctx,
  c: Character,
  near = 0.17,
  far = 0.5,
  hand: Bone = c.ik.references.leftHand,
): Table {
  const { h, forward, right } = c;
  const scene = ctx.scene;
  const top = 0.42 * h;
  const width = 0.6 * h;
  const depth = (far - near) * h;
  const origin = c.root.getAbsolutePosition();
  const arms = [c.ik.references.leftUpperArm, c.ik.references.rightUpperArm];
  const belly = skinVertices(c.skeleton, (b) => !arms.some((a) => isUnder(b, a)))
    .filter((p) => p.y - origin.y > top - 0.1 * h && p.y - origin.y < top + 0.01 * h)
    .reduce((a, p) => Math.max(a, Vector3.Dot(p.subtract(origin), forward)), 0);
  const centre = forward.scale(Math.max(near * h, belly + 0.03 * h) + depth / 2);
  const turn = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  const wood = mat(scene, "table", new Color3(0.55, 0.38, 0.22));
  const board = CreateBox("table", { width, height: 0.03 * h, depth }, scene);
  board.rotationQuaternion = turn;
  board.position.set(centre.x, top - 0.015 * h, centre.z);
  board.material = wood;
  const meshes: Mesh[] = [board];
  for (const [a, b] of [
    [-1, -1],
    [-1, 1],
    [1, -1],
    [1, 1],
  ] as const) {
    const leg = CreateBox("table leg", { width: 0.03 * h, height: top - 0.03 * h, depth: 0.03 * h }, scene);
    const p = centre.add(right.scale(a * (width / 2 - 0.03 * h))).add(forward.scale(b * (depth / 2 - 0.03 * h)));
    leg.position.set(p.x, (top - 0.03 * h) / 2, p.z);
    leg.material = wood;
    meshes.push(leg);
  }
  // a mug: 9 cm wide for 1.8 m, a handle on the far side so the hand takes the body; grown with a fist bigger
  // than a realistic one (the Mannequin's, 2.4 times one, dwarfed a mug sized from the height: 0.31 of its thickness)
  const fist = fistScale(
    skinVertices(c.skeleton, (b) => isUnder(b, hand)),
    h,
  );
  const cupRadius = 0.026 * h * fist;
  const cupHeight = mugHeight(2 * cupRadius, h);
  const cup = CreateCylinder("cup", { height: cupHeight, diameter: 2 * cupRadius, tessellation: 24 }, scene);
  cup.rotationQuaternion = turn.clone();
  cup.material = mat(scene, "cup", new Color3(0.85, 0.2, 0.15));
  const handle = CreateTorus("cup handle", { diameter: 0.55 * cupHeight, thickness: 0.1 * cupHeight }, scene);
  handle.parent = cup;
  handle.rotation.z = Math.PI / 2;
  handle.position.z = cupRadius;
  handle.material = cup.material;
  handle.isPickable = false;
  meshes.push(cup, handle);
  for (const m of meshes) {
    ctx.shadows.addShadowCaster(m, false);
    m.receiveShadows = true;
  }
  const margin = 2.2 * cupRadius;
  const clampTo = (p: Vector3): Vector3 => {
    const d = p.subtract(centre);
    const u = Math.max(-1, Math.min(1, Vector3.Dot(d, right) / (width / 2 - margin)));
    const v = Math.max(-1, Math.min(1, Vector3.Dot(d, forward) / (depth / 2 - margin)));
    return new Vector3(u, v, 0);
  };
  const place = (u: number, v: number) => {
    const p = centre.add(right.scale(u * (width / 2 - margin))).add(forward.scale(v * (depth / 2 - margin)));
    cup.position.set(p.x, top + cupHeight / 2, p.z);
  };
  // drag on the tabletop's plane, the cup kept on the board
  const drag = new PointerDragBehavior({ dragPlaneNormal: Vector3.Up() });
  drag.moveAttached = false;
  drag.useObjectOrientationForDragging = false;
  drag.onDragObservable.add((e) => {
    const uv = clampTo(e.dragPlanePoint);
    place(uv.x, uv.y);
  });
  cup.addBehavior(drag);
  return { top, cup, cupRadius, cupHeight, drag, place, meshes };
}
