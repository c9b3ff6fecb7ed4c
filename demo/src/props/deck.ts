/** A deck prop: a wooden top on a hull, with railings and a crate, all carried by one pivot the scenario moves. */
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Scene } from "@babylonjs/core/scene";
import { cylinderBetween, mat } from "../kit";

/** A side of the deck, seen from its `forward`. */
export type DeckSide = "left" | "right" | "back" | "front";

/** Sizes (world units) and dressing of a {@link createDeck}. */
export interface DeckOptions {
  /** Across `forward`. */
  width: number;
  /** Along `forward`. */
  length: number;
  /** The top's thickness. */
  thick: number;
  /** The hull's depth under the top (0: none). */
  hull: number;
  /** The deck's length axis and its right (horizontal, unit). */
  forward: Vector3;
  right: Vector3;
  /** Sides with a railing, and its height. */
  rails: DeckSide[];
  railHeight: number;
  /** A crate's edge (0: none), lashed in the back-right corner. */
  crate: number;
}

/** The deck: move and turn `pivot` (on the top's centre); `top` is the walkable mesh. */
export interface Deck {
  pivot: TransformNode;
  top: Mesh;
  meshes: Mesh[];
}

/** Builds a deck at the origin (its top at y = 0); the caller places and moves `pivot`. */
export function createDeck(scene: Scene, shadows: ShadowGenerator, name: string, o: DeckOptions): Deck {
  const pivot = new TransformNode(`${name} pivot`, scene);
  pivot.rotationQuaternion = Quaternion.Identity();
  const meshes: Mesh[] = [];
  // the layout: x toward `right`, z toward `forward`, in the pivot's space (boxes turned along forward)
  const local = (x: number, y: number, z: number): Vector3 =>
    o.right
      .scale(x)
      .add(o.forward.scale(z))
      .add(new Vector3(0, y, 0));
  const along = Quaternion.FromLookDirectionRH(o.forward, Vector3.Up());
  const add = (m: Mesh, at?: Vector3): Mesh => {
    m.parent = pivot;
    if (at !== undefined) {
      m.position.copyFrom(at);
      m.rotationQuaternion = along.clone();
    }
    meshes.push(m);
    return m;
  };
  const top = add(
    CreateBox(name, { width: o.width, height: o.thick, depth: o.length }, scene),
    local(0, -o.thick / 2, 0),
  );
  top.material = mat(scene, `${name} planks`, new Color3(0.62, 0.45, 0.28));
  if (o.hull > 0) {
    const hull = CreateBox(`${name} hull`, { width: 0.92 * o.width, height: o.hull, depth: 0.92 * o.length }, scene);
    add(hull, local(0, -o.thick - o.hull / 2, 0)).material = mat(scene, `${name} hull`, new Color3(0.3, 0.34, 0.42));
  }
  const wood = mat(scene, `${name} rail`, new Color3(0.45, 0.3, 0.18));
  const x = o.width / 2 - 0.02 * o.width;
  const z = o.length / 2 - 0.02 * o.length;
  const sides: Record<DeckSide, [number, number, number, number]> = {
    left: [-x, -z, -x, z],
    right: [x, -z, x, z],
    back: [-x, -z, x, -z],
    front: [-x, z, x, z],
  };
  const post = 0.06 * o.railHeight;
  for (const side of o.rails) {
    const [x0, z0, x1, z1] = sides[side];
    const a = local(x0, 0, z0);
    const b = local(x1, 0, z1);
    const n = Math.max(2, Math.round(Vector3.Distance(a, b) / (0.8 * o.railHeight)) + 1);
    for (let i = 0; i < n; i++) {
      const p = Vector3.Lerp(a, b, i / (n - 1));
      const m = cylinderBetween(scene, `${name} post`, p, p.add(new Vector3(0, o.railHeight, 0)), post);
      add(m).material = wood;
    }
    for (const k of [0.55, 1]) {
      const up = new Vector3(0, k * o.railHeight, 0);
      const m = cylinderBetween(scene, `${name} rail`, a.add(up), b.add(up), 0.8 * post, post);
      add(m).material = wood;
    }
  }
  if (o.crate > 0) {
    const crate = CreateBox(`${name} crate`, { size: o.crate }, scene);
    add(crate, local(o.width / 2 - 0.75 * o.crate, o.crate / 2, -o.length / 2 + 0.75 * o.crate));
    crate.material = mat(scene, `${name} crate`, new Color3(0.72, 0.55, 0.3));
    crate.rotationQuaternion!.multiplyInPlace(Quaternion.RotationAxis(Vector3.Up(), 0.25));
  }
  for (const m of meshes) {
    m.receiveShadows = true;
    shadows.addShadowCaster(m, false);
  }
  return { pivot, top, meshes };
}
