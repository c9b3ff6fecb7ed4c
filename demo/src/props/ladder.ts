/**
 * A ladder sized from the character in front of it, with hand and foot holds on its rungs: rung spacing a
 * third of the leg, rails a little wider than the shoulders, the top a few rungs above the head at the top
 * of the climb. Holds are where the hand and ankle bones go: the wrist behind the rung, the hand turned to
 * grip it (palm over it, fingers around: demo/src/props/grip.ts); the ankle above and behind it (the ball of the
 * foot on the rung).
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { meshExtent } from "../framing";
import { type Character, type Ctx, armLength, bonePos, cylinderBetween, mat } from "../kit";
import { type Grip, makeGrip } from "./grip";

/** How far the fingers point up from the ladder's forward as they grip (rad): the hand hooks over the rung. */
const GRIP_TILT = (30 * Math.PI) / 180;

/** The ladder: holds per rung (index 0: the feet's place on the ground), spacing and rung positions. */
export interface Ladder {
  spacing: number;
  /** Forward run per unit of height (0: upright): the climber moves forward by it as it rises. */
  lean: number;
  /** Rung index of the hands' first holds. */
  handStart: number;
  /** `hands[k]` / `feet[k]`: [left, right] holds on rung k. */
  hands: TransformNode[][];
  /** [left, right] hands' grips of a rung (their holds' places and rotations; their finger poses). */
  grips: Grip[];
  feet: TransformNode[][];
  meshes: Mesh[];
}

const hold = (ctx: Ctx, name: string, p: Vector3): TransformNode => {
  const n = new TransformNode(name, ctx.scene);
  n.position.copyFrom(p);
  n.rotationQuaternion = Quaternion.Identity();
  return n;
};

/** The corners of the ladder's meshes' world boxes (its top included): to frame it. */
export function ladderCorners(ladder: Ladder): Vector3[] {
  return ladder.meshes.flatMap((m) => {
    m.computeWorldMatrix(true);
    return m.getBoundingInfo().boundingBox.vectorsWorld.map((v) => v.clone());
  });
}

/** A ladder for `climb` rungs of climbing, in front of `c`. */
export function makeLadder(ctx: Ctx, c: Character, climb: number): Ladder {
  const { h, forward, right } = c;
  const r = c.ik.references;
  const leg =
    Vector3.Distance(bonePos(r.leftThigh), bonePos(r.leftCalf)) +
    Vector3.Distance(bonePos(r.leftCalf), bonePos(r.leftFoot));
  const spacing = leg / 3;
  const shoulders = Vector3.Distance(bonePos(r.leftUpperArm), bonePos(r.rightUpperArm));
  const hips = Vector3.Distance(bonePos(r.leftThigh), bonePos(r.rightThigh));
  const ankle = (bonePos(r.leftFoot).y + bonePos(r.rightFoot).y) / 2;
  const toe = r.leftFoot.children[0];
  const footLength = toe !== undefined ? Vector3.Distance(bonePos(toe), bonePos(r.leftFoot)) : 0.1 * h;
  // the rungs' plane: a foot's length ahead of the toes, leaning away as far as the meshes need (a chibi's
  // helmet): rung k is `lean` × its height further ahead
  const front = meshExtent(c, forward);
  const ahead = Vector3.Dot(bonePos(r.leftFoot), forward) + 1.6 * footLength;
  const headY = bonePos(r.head ?? r.spine[r.spine.length - 1]!).y;
  const lean = Math.max(0, Math.min(0.4, (front + 0.02 * h - ahead) / (0.8 * headY)));
  const halfWidth = Math.max(0.6 * shoulders, 0.12 * h);
  const at = (k: number, side: number, across: number) =>
    forward
      .scale(ahead + lean * k * spacing)
      .add(right.scale(side * across))
      .add(new Vector3(0, k * spacing, 0));
  // the hands' first rung: one rung below the highest they reach at rest (the hands lead by a rung)
  const shoulder = bonePos(r.leftUpperArm);
  const out = ahead + lean * shoulder.y - Vector3.Dot(shoulder, forward);
  const reach = Math.sqrt(Math.max(0, (0.85 * armLength(c, true)) ** 2 - out * out));
  const handStart = Math.max(1, Math.floor((shoulder.y + reach - 0.02 * h) / spacing) - 1);
  const rungs = Math.ceil(headY / spacing) + climb + 1;
  // each hand's grip from behind the rung: fingers forward and up over it, the palm on it, the pinky outward
  const radius = 0.011 * h;
  const up = Vector3.Up();
  const along = forward.scale(Math.cos(GRIP_TILT)).add(up.scale(Math.sin(GRIP_TILT)));
  const palm = forward.scale(Math.sin(GRIP_TILT)).subtract(up.scale(Math.cos(GRIP_TILT)));
  const nodes = new Set(
    c.skeleton.bones.map((b: Bone) => b.getTransformNode()).filter((n): n is TransformNode => n !== null),
  );
  const grips = [r.leftHand, r.rightHand].map((hand, i) =>
    makeGrip(hand, nodes, radius, along, palm, h, right.scale(i === 0 ? -1 : 1)),
  );
  const hands: TransformNode[][] = [];
  const feet: TransformNode[][] = [];
  for (let k = 0; k <= rungs; k++) {
    const pair = (label: string, across: number, offset: (p: Vector3, i: number) => Vector3) =>
      [-1, 1].map((side, i) => hold(ctx, `rung ${k} ${side < 0 ? "L" : "R"} ${label}`, offset(at(k, side, across), i)));
    // the wrist where its grip puts it, turned as it grips; the ankle above and behind the rung
    const handHolds = pair("hand", 0.55 * halfWidth, (p, i) => p.add(grips[i]!.wristOffset));
    for (const [i, n] of handHolds.entries()) n.rotationQuaternion = grips[i]!.rotation.clone();
    hands.push(handHolds);
    feet.push(pair("foot", 0.5 * hips, (p) => p.add(forward.scale(-0.6 * footLength)).add(new Vector3(0, ankle, 0))));
  }
  // the feet start where they stand
  feet[0]![0]!.position.copyFrom(bonePos(r.leftFoot));
  feet[0]![1]!.position.copyFrom(bonePos(r.rightFoot));
  const wood = mat(ctx.scene, "ladder", new Color3(0.62, 0.45, 0.26));
  const meshes: Mesh[] = [];
  for (const side of [-1, 1])
    meshes.push(
      cylinderBetween(ctx.scene, "rail", at(0, side, halfWidth), at(rungs + 0.6, side, halfWidth), 0.035 * h),
    );
  for (let k = 1; k <= rungs; k++)
    meshes.push(cylinderBetween(ctx.scene, "rung", at(k, -1, halfWidth), at(k, 1, halfWidth), 2 * radius));
  for (const m of meshes) {
    m.material = wood;
    ctx.shadows.addShadowCaster(m, false);
    m.receiveShadows = true;
  }
  return { spacing, lean, handStart, hands, grips, feet, meshes };
}
