/**
 * The ground scenario's course, sized from the character's height h: lane A has steps up and down (their
 * height adjustable) and a moving deck, lane B a ramped hump; the walker goes out on A and back on B.
 */
import type { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import type { Scene } from "@babylonjs/core/scene";
import { mat } from "../kit";
import { createDeck, type Deck } from "./deck";

/** Where the course lies: lane A starts at `origin` and runs along `forward`; lane B is to its left. */
export interface CourseFrame {
  origin: Vector3;
  forward: Vector3;
  right: Vector3;
  /** The character's height: every size is a fraction of it. */
  h: number;
}

/** The built course. */
export interface Course {
  /** Lane A's steps, then lane B's ramps and plateau: static ground. */
  statics: Mesh[];
  /** The deck (moving ground: `deck.top`). */
  deck: Deck;
  /** The lanes' length and the U-turns' radius (for the walker's loop). */
  length: number;
  radius: number;
  /** Raises the steps to 1, 2, 3, 2, 1 × `height` (the static ground must be baked again after). */
  setStepHeight(height: number): void;
  /** Heaves, rolls and pitches the deck at time `t` (seconds). */
  moveDeck(t: number): void;
}

/** Lane A's steps: start and end along the lane (× h) and height in step units. */
const STEPS: [number, number, number][] = [
  [0.5, 1.0, 1],
  [1.0, 1.5, 2],
  [1.5, 2.2, 3],
  [2.2, 2.7, 2],
  [2.7, 3.2, 1],
];
/** Lane A's deck, after the steps: start and end along the lane (× h). */
const DECK: [number, number] = [3.45, 4.65];

/** Builds the course (see {@link CourseFrame}) with steps of `stepHeight`. */
export function createCourse(scene: Scene, shadows: ShadowGenerator, f: CourseFrame, stepHeight: number): Course {
  const { h, forward, right } = f;
  const length = 5.0 * h;
  const radius = 0.4 * h;
  const laneWidth = 0.55 * h;
  const laneB = -2 * radius;
  const turn = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  const at = (s: number, lat: number, y: number): Vector3 =>
    f.origin
      .add(forward.scale(s))
      .add(right.scale(lat))
      .add(new Vector3(0, y, 0));
  const statics: Mesh[] = [];
  const stone = mat(scene, "step", new Color3(0.66, 0.64, 0.6));
  const moss = mat(scene, "ramp", new Color3(0.48, 0.6, 0.42));
  // a block on a lane from s0 to s1 (× h), its top at 1 (scaled by the step height later)
  const block = (name: string, s0: number, s1: number, lat: number, material = stone): Mesh => {
    const b = CreateBox(name, { width: laneWidth, height: 1, depth: (s1 - s0) * h }, scene);
    b.rotationQuaternion = turn.clone();
    b.position.copyFrom(at(((s0 + s1) / 2) * h, lat, 0));
    b.material = material;
    statics.push(b);
    return b;
  };
  const steps = STEPS.map(([s0, s1], i) => block(`step ${i + 1}`, s0, s1, 0));
  const setStepHeight = (height: number): void => {
    steps.forEach((b, i) => {
      const y = Math.max(0.002 * h, STEPS[i]![2] * height);
      b.scaling.y = y;
      b.position.y = f.origin.y + y / 2;
      b.computeWorldMatrix(true);
    });
  };
  setStepHeight(stepHeight);
  // lane B, walked from s = length back to 0: a hump (a ramp up, a plateau, a ramp down)
  const rise = 0.1 * h;
  const ramp = (name: string, sLow: number, sHigh: number): void => {
    // a thick slab whose top runs from the floor at sLow to the plateau's height at sHigh
    const low = at(sLow * h, laneB, 0);
    const high = at(sHigh * h, laneB, rise);
    const along = high.subtract(low);
    const thick = 0.3 * h;
    const b = CreateBox(name, { width: laneWidth, height: thick, depth: along.length() }, scene);
    b.rotationQuaternion = Quaternion.FromLookDirectionLH(along.normalizeToNew(), Vector3.Up());
    const up = Vector3.TransformNormal(Vector3.Up(), Matrix.FromQuaternionToRef(b.rotationQuaternion, new Matrix()));
    b.position.copyFrom(
      low
        .add(high)
        .scale(0.5)
        .subtract(up.scale(thick / 2)),
    );
    b.material = moss;
    b.computeWorldMatrix(true);
    statics.push(b);
  };
  ramp("ramp up", 3.9, 3.1);
  const plateau = block("plateau", 2.2, 3.1, laneB, moss);
  plateau.scaling.y = rise;
  plateau.position.y = f.origin.y + rise / 2;
  ramp("ramp down", 1.4, 2.2);
  const deckS = DECK;
  const deck = createDeck(scene, shadows, "deck", {
    width: laneWidth,
    length: (deckS[1] - deckS[0]) * h,
    thick: 0.04 * h,
    hull: 0.3 * h,
    forward,
    right,
    // the inside rail only: the camera, outside the loop, looks across the deck
    rails: ["left"],
    railHeight: 0.42 * h,
    crate: 0,
  });
  // the deck rides in a dark well in the floor
  const well = CreateBox("deck well", { width: 1.15 * laneWidth, height: 0.004 * h, depth: 1.4 * h }, scene);
  well.rotationQuaternion = turn.clone();
  well.position.copyFrom(at(((deckS[0] + deckS[1]) / 2) * h, 0, 0));
  well.material = mat(scene, "well", new Color3(0.12, 0.13, 0.15));
  const centre = at(((deckS[0] + deckS[1]) / 2) * h, 0, 0);
  const tilt = new Quaternion();
  const moveDeck = (t: number): void => {
    const p = deck.pivot;
    p.position.copyFrom(centre);
    p.position.y += 0.06 * h + 0.035 * h * Math.sin((2 * Math.PI * t) / 3.1);
    const roll = ((4 * Math.PI) / 180) * Math.sin((2 * Math.PI * t) / 4.3);
    const pitch = ((2 * Math.PI) / 180) * Math.sin((2 * Math.PI * t) / 5.3 + 1);
    Quaternion.RotationAxisToRef(forward, roll, p.rotationQuaternion!);
    p.rotationQuaternion!.multiplyInPlace(Quaternion.RotationAxisToRef(right, pitch, tilt));
  };
  moveDeck(0);
  for (const m of statics) {
    m.receiveShadows = true;
    shadows.addShadowCaster(m, false);
  }
  well.receiveShadows = true;
  return { statics, deck, length, radius, setStepHeight, moveDeck };
}
