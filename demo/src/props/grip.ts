/**
 * A hand's grip around a cylinder (a cup, a rung), worked out once from the rig: the wrist's place and turn
 * beside the cylinder, and a closed finger pose for the library's HandPoser, each finger wrapped joint by joint
 * until it touches the cylinder. Rig-independent: directions come from the finger bones' positions.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { HandPoser } from "../../../src/effectors/interaction/hand-poser";
import { bonePos, boneRotation, worldPos } from "../kit";
import { isUnder, skinVertices } from "./skin";

/** The grip, relative to a point on the cylinder's axis (world directions of the character at spawn). */
export interface Grip {
  /** Wrist (hand bone) minus the axis point. */
  wristOffset: Vector3;
  /** The hand bone's world rotation at the grip (Babylon's decomposition, as an effector's rotation). */
  rotation: Quaternion;
  /**
   * The hand's lowest point in the grip minus the axis point's height (negative: below it): its skin's lowest
   * vertex, or its lowest finger joint less a skin's depth, whichever is lower.
   */
  lowest: number;
  /** Closed finger pose (local rotations named like the fingers), to put under the hand's target; or null. */
  pose: TransformNode | null;
  /** The hand's finger chains (base to tip), thumb first when found; empty without fingers. */
  fingers: TransformNode[][];
  /** True when the first chain is the thumb. */
  thumb: boolean;
  /** The open hand's local rotations of `fingers`' joints (before the wrap), chain by chain. */
  open: Quaternion[][];
}

/** Linked skeleton nodes under `hand`: its finger chains, base to last joint (first linked child each step). */
export function fingerChains(hand: TransformNode, bones: Set<TransformNode>): TransformNode[][] {
  const kids = (n: TransformNode) => n.getChildTransformNodes(true).filter((k) => bones.has(k));
  return kids(hand).map((base) => {
    const chain = [base];
    for (let k = kids(base); k.length > 0; k = kids(k[0]!)) chain.push(k[0]!);
    return chain;
  });
}

/** Turns `node` about the world axis through its origin by `q` (the turn composed in world space). */
export function turnWorld(node: TransformNode, q: Quaternion): void {
  const w = node.computeWorldMatrix(true).clone();
  const p = w.getTranslation();
  const turn = Matrix.Translation(-p.x, -p.y, -p.z)
    .multiply(Matrix.FromQuaternionToRef(q, new Matrix()))
    .multiply(Matrix.Translation(p.x, p.y, p.z));
  const parent = node.parent as TransformNode | null;
  const inv = parent !== null ? parent.computeWorldMatrix(true).clone().invert() : Matrix.Identity();
  const local = w.multiply(turn).multiply(inv);
  const s = new Vector3();
  const r = new Quaternion();
  local.decompose(s, r, new Vector3());
  node.rotationQuaternion = r;
}

/**
 * How far the skin of the hand (the vertices `handBone` and its fingers carry) reaches below the height `y` as
 * the hand is posed now, less half a percent of `height` to spare (negative: below); 0 without skin.
 */
function skinBelow(handBone: Bone, y: number, height: number): number {
  const skin = skinVertices(handBone.getSkeleton(), (b) => isUnder(b, handBone));
  if (skin.length === 0) return 0;
  return Math.min(...skin.map((p) => p.y)) - y - 0.005 * height;
}

/**
 * How far from a cylinder's axis (along the unit `axis`, on the `palmSide` of the hand) the wrist must be for the
 * skin of `handBone`, posed as now with the wrist at `wrist`, to stay `r` off that axis: a skin vertex `u` toward
 * the cylinder and `v` across it from the wrist stays `r` off when the wrist is at least u + √(r² − v²) from it.
 * Only the vertices `band` (from the wrist along `axis`) counts, the cylinder's length: past its ends the skin
 * may overhang it. 0 without skin in reach.
 */
function clearOfWall(
  handBone: Bone,
  wrist: Vector3,
  r: number,
  palmSide: Vector3,
  axis: Vector3,
  band: readonly [number, number] = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
): number {
  const across = Vector3.Cross(axis, palmSide).normalize();
  let away = 0;
  for (const p of skinVertices(handBone.getSkeleton(), (b) => isUnder(b, handBone))) {
    const d = p.subtract(wrist);
    const v = Vector3.Dot(d, across);
    const s = Vector3.Dot(d, axis);
    if (Math.abs(v) < r && s >= band[0] && s <= band[1])
      away = Math.max(away, Vector3.Dot(d, palmSide) + Math.sqrt(r * r - v * v));
  }
  return away;
}

/**
 * A fingerless grip (`makeGrip`'s, `beside` a cylinder) brought against the cylinder's wall where the wall is:
 * its skin `band` along `axis` from the wrist (the cylinder's length once the grip's height is known) 0.25 % of
 * `height` off the wall; the skin past its ends may overhang it. A grip with fingers, or with no skin in that
 * band, is kept. (Clear of the whole skin, the Mannequin's fist stood 1.7 % of its height off its cup's wall,
 * its overhang above the rim nearer.)
 */
export function fitFistToWall(
  grip: Grip,
  handBone: Bone,
  radius: number,
  palmSide: Vector3,
  axis: Vector3,
  height: number,
  band: readonly [number, number],
): void {
  if (grip.fingers.length > 0) return;
  const away = clearOfWall(handBone, bonePos(handBone), radius + 0.0025 * height, palmSide, axis, band);
  if (away > radius) palmSide.scaleToRef(-away, grip.wristOffset);
}

/**
 * The grip of a hand without fingers to read its axes from (or whose bones have no nodes to pose): the wrist
 * 3 % of `height` off the cylinder's wall, turned as it is now (the arm lowered), and held as high as its skin
 * needs (the Mannequin's fist hangs a fifth of its height below). With `beside` (the cylinder's axis), farther
 * if the skin needs it to stay out of the cylinder: the fist beside a cup sized for it (at 3 %, 3 cm into it).
 */
function noFingers(
  handBone: Bone,
  wrist: Vector3,
  radius: number,
  palmSide: Vector3,
  beside: Vector3 | null,
  height: number,
): Grip {
  let away = radius + 0.03 * height;
  if (beside !== null) away = Math.max(away, clearOfWall(handBone, wrist, radius + 0.005 * height, palmSide, beside));
  return {
    wristOffset: palmSide.scale(-away),
    rotation: boneRotation(handBone),
    lowest: Math.min(-0.03 * height, skinBelow(handBone, wrist.y, height)),
    pose: null,
    fingers: [],
    thumb: false,
    open: [],
  };
}

/** From `p` to the line through `a` along the unit `axis`, across it. */
function acrossAxis(p: Vector3, a: Vector3, axis: Vector3): Vector3 {
  const v = a.subtract(p);
  return v.subtractInPlace(axis.scale(Vector3.Dot(v, axis)));
}

/** Points of a finger chain: its joints and an estimated tip past the last one. */
export function fingerPoints(chain: TransformNode[]): Vector3[] {
  const ps = chain.map(worldPos);
  const n = ps.length;
  const last = n >= 2 ? ps[n - 1]!.subtract(ps[n - 2]!).scale(0.8) : new Vector3(0, 0, 0);
  ps.push(ps[n - 1]!.add(last));
  return ps;
}

/**
 * The grip of `handBone` around a cylinder of `radius` along the unit `axis`, which points from the index's side
 * of the hand to the pinky's (default down: a standing cup, thumb up): fingers along `along`, palm toward the
 * cylinder on the `palmSide` (both ⟂ `axis`, and to each other). Poses the hand's nodes while it measures and
 * puts them back. `height`: the character's, for the skin's margins. `beside`: a hand without fingers stays
 * out of the cylinder (a fist beside a cup), else it may hold it in its skin (a fist around a rung).
 */
export function makeGrip(
  handBone: Bone,
  skeletonNodes: Set<TransformNode>,
  radius: number,
  along: Vector3,
  palmSide: Vector3,
  height: number,
  axis: Vector3 = new Vector3(0, -1, 0),
  beside = false,
): Grip {
  const hand = handBone.getTransformNode();
  const wrist = bonePos(handBone);
  const skin = 0.008 * height;
  if (hand === null) return noFingers(handBone, wrist, radius, palmSide, beside ? axis : null, height);
  const all = fingerChains(hand, skeletonNodes);
  const saved = [hand, ...all.flat()].map((n) => [n, n.rotationQuaternion?.clone() ?? null] as const);
  // the open hand, before the wrap
  const open = new Map(
    all.map((ch) => [ch, ch.map((n) => n.rotationQuaternion?.clone() ?? n.rotation.toQuaternion())]),
  );
  // the thumb: the chain whose name says so, else none (its wrap then only looks for contact)
  const thumbIndex = all.findIndex((ch) => /thumb/i.test(ch[0]!.name));
  const thumb = thumbIndex >= 0 ? all[thumbIndex]! : null;
  const fingers = all.filter((ch) => ch !== thumb);
  if (fingers.length < 2) return noFingers(handBone, wrist, radius, palmSide, beside ? axis : null, height);
  // the hand's axes now: wrist to the knuckles' middle, and across the knuckles from the thumb's side
  const bases = fingers.map((ch) => worldPos(ch[0]!));
  const knuckles = bases.reduce((a, b) => a.add(b), Vector3.Zero()).scale(1 / bases.length);
  const thumbBase = thumb !== null ? worldPos(thumb[0]!) : bases[0]!;
  const byThumb = [...bases].sort((a, b) => Vector3.Distance(a, thumbBase) - Vector3.Distance(b, thumbBase));
  const f0 = knuckles.subtract(wrist).normalize();
  const s0 = byThumb[byThumb.length - 1]!.subtract(byThumb[0]!);
  s0.subtractInPlace(f0.scale(Vector3.Dot(s0, f0))).normalize();
  // turn them onto the grip's axes: fingers along `along`, index to pinky along `axis` (a cup's: thumb up)
  const q1 = Quaternion.FromUnitVectorsToRef(f0, along, new Quaternion());
  const s1 = s0.applyRotationQuaternion(q1);
  const angle = Math.atan2(Vector3.Dot(Vector3.Cross(s1, axis), along), Vector3.Dot(s1, axis));
  const q = Quaternion.RotationAxis(along, angle).multiply(q1);
  turnWorld(hand, q);
  hand.computeWorldMatrix(true);
  const rotation = hand.absoluteRotationQuaternion.clone();
  // the axis point: the palm's middle, pushed toward the palm side by the cylinder's radius and the palm
  const palmLength = Vector3.Distance(wrist, knuckles);
  const centre = wrist
    .add(along.scale(0.5 * palmLength))
    .add(palmSide.scale(radius + 0.22 * palmLength))
    .add(axis.scale(0.1 * palmLength));
  // wrap: each joint turns toward the cylinder until its finger beyond touches it (or its limit)
  const contact = radius + skin;
  for (const ch of all) {
    const isThumb = ch === thumb;
    for (let j = 0; j < ch.length; j++) {
      const node = ch[j]!;
      const beyond = () => fingerPoints(ch).slice(j + 1);
      const near = () => Math.min(...beyond().map((p) => acrossAxis(p, centre, axis).length()));
      const turnAxis = (): Vector3 => {
        const p = worldPos(node);
        const to = acrossAxis(p, centre, axis);
        const seg = beyond()[0]!.subtract(p);
        return isThumb ? Vector3.Cross(seg, to).normalize() : s0.applyRotationQuaternion(q);
      };
      const step = (3 * Math.PI) / 180;
      const ax = turnAxis();
      if (ax.lengthSquared() < 1e-9) continue;
      // the sign that brings the finger toward the cylinder
      const before = near();
      turnWorld(node, Quaternion.RotationAxis(ax, step));
      const sign = near() < before ? 1 : -1;
      turnWorld(node, Quaternion.RotationAxis(ax, -step));
      const limit = isThumb ? 50 : j === 0 ? 75 : 95;
      // a finger the open hand already has inside the cylinder (a thumb under a rung) turns out of it first
      for (let deg = 0; deg < limit && near() < contact; deg += 3)
        turnWorld(node, Quaternion.RotationAxis(ax, -sign * step));
      for (let deg = 0; deg < limit && near() > contact; deg += 3)
        turnWorld(node, Quaternion.RotationAxis(ax, sign * step));
    }
  }
  let lowest = Infinity;
  for (const ch of all) for (const p of fingerPoints(ch)) lowest = Math.min(lowest, p.y);
  lowest = Math.min(lowest - 0.012 * height, centre.y + skinBelow(handBone, centre.y, height));
  const pose = HandPoser.capturePose(hand, `${hand.name} grip pose`);
  const wristOffset = wrist.subtract(centre);
  for (const [n, r] of saved) {
    if (r !== null) n.rotationQuaternion = r;
  }
  hand.computeWorldMatrix(true);
  return {
    wristOffset,
    rotation,
    lowest: lowest - centre.y,
    pose,
    fingers: thumb !== null ? [thumb, ...fingers] : fingers,
    thumb: thumb !== null,
    open: (thumb !== null ? [thumb, ...fingers] : fingers).map((ch) => open.get(ch)!),
  };
}

/** Curl of a finger chain: the angle (rad) between the hand's direction (wrist to base) and its last segment. */
export function curl(hand: Bone, chain: TransformNode[]): number {
  const ps = chain.map(worldPos);
  if (ps.length < 2) return 0;
  const a = ps[0]!.subtract(bonePos(hand)).normalize();
  const b = ps[ps.length - 1]!.subtract(ps[ps.length - 2]!).normalize();
  return Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(a, b))));
}
