/**
 * Geometry and hierarchy rules for biped detection when names do not decide: finding the pelvis, legs,
 * arms and head from the shape of the hierarchy, splitting a limb chain into its three bones, and the
 * character's frame (up, forward, left) from where the feet, toes and knees point.
 * @module
 */
import {
  type P3,
  type RigSkeleton,
  vadd,
  vcross,
  vdot,
  vlen,
  vnorm,
  vreject,
  vscale,
  vsub,
  v3,
} from "./rig-skeleton.js";

/** A limb as three bones plus, for legs, the toe after the foot (-1 when none). */
export interface LimbBones {
  bones: [number, number, number];
  toe: number;
}

/** What the hierarchy alone says about the biped. */
export interface TopologyBiped {
  /** Where both legs and the spine meet. */
  pelvis: number;
  /** The spine bone both arms hang from. */
  armBranch: number;
  /** The two legs, sides not yet known. */
  legs: [LimbBones, LimbBones];
  /** The two arms, sides not yet known. */
  arms: [LimbBones, LimbBones];
  /** Up: from the pelvis toward the arms' branch point. */
  up: P3;
}

/** Fewest bones in a chain for it to be a limb (upper, middle, end). */
const LIMB_BONES = 3;
/** A leg must end this far below the pelvis (cosine to -up of the pelvis → leg end direction). */
const LEG_DOWN_COSINE = 0.5;
/** An arm must reach this far sideways (lateral share of the branch → arm end vector). */
const ARM_LATERAL_SHARE = 0.2;
/**
 * Two arms must reach this much to opposite sides (cosine between their lateral directions); legs only need opposite
 * half-spaces.
 */
const OPPOSITE_COSINE = -0.5;

const mean = (points: readonly P3[]): P3 => vscale(points.reduce(vadd, v3(0, 0, 0)), 1 / Math.max(1, points.length));

/**
 * Splits an arm chain (from the arm's branch bone's child down) into upper arm, forearm and hand. The
 * hand is the first bone from the third on where fingers branch (two or more children with a chain
 * below them); without fingers, the upper arm and forearm are the consecutive pair of segments that
 * are longest and most alike. Bones before the upper arm are clavicles.
 */
export function armFromChain(rig: RigSkeleton, chain: readonly number[]): LimbBones | null {
  if (chain.length < LIMB_BONES) return null;
  const last = Math.min(2, chain.length - LIMB_BONES);
  for (let k = 2; k <= last + 2; k++) {
    const fingers = rig.children[chain[k]!]!.filter((c) => rig.height[c]! >= 2);
    if (fingers.length >= 2) return { bones: [chain[k - 2]!, chain[k - 1]!, chain[k]!], toe: -1 };
  }
  let best = 0;
  let bestScore = -Infinity;
  for (let i = 0; i <= last; i++) {
    const a = rig.distance(chain[i]!, chain[i + 1]!);
    const b = rig.distance(chain[i + 1]!, chain[i + 2]!);
    const score = a > 0 && b > 0 ? (a + b) * Math.min(a / b, b / a) : -1;
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return { bones: [chain[best]!, chain[best + 1]!, chain[best + 2]!], toe: -1 };
}

/**
 * Splits a leg chain (from the pelvis's child down) into thigh, calf and foot: of the first two bones,
 * the thigh is the one from which two segments drop the furthest along -up (a short hip helper before
 * the thigh drops little; the foot → toe segment is mostly horizontal). The toe is the bone after the foot.
 */
export function legFromChain(rig: RigSkeleton, chain: readonly number[], up: P3): LimbBones | null {
  if (chain.length < LIMB_BONES) return null;
  let best = 0;
  let bestDrop = -Infinity;
  for (let i = 0; i <= Math.min(1, chain.length - LIMB_BONES); i++) {
    const drop = vdot(vsub(rig.pos(chain[i]!), rig.pos(chain[i + 2]!)), up);
    if (drop > bestDrop) {
      bestDrop = drop;
      best = i;
    }
  }
  return { bones: [chain[best]!, chain[best + 1]!, chain[best + 2]!], toe: chain[best + 3] ?? -1 };
}

/** The pair of `items` whose lateral directions are most opposite (cosine below `limit`). */
function oppositePair<T extends { lateral: P3 }>(items: readonly T[], limit = OPPOSITE_COSINE): [T, T] | null {
  let best: [T, T] | null = null;
  let bestCos = limit;
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const c = vdot(vnorm(items[i]!.lateral), vnorm(items[j]!.lateral));
      if (c < bestCos) {
        bestCos = c;
        best = [items[i]!, items[j]!];
      }
    }
  }
  return best;
}

/**
 * Finds the biped from the hierarchy's shape. The pelvis is a bone with child chains of three or more
 * bones: one (the spine) leads to a bone from which two long chains reach out to opposite sides (the
 * arms), two others run down from the pelvis to opposite sides (the legs), directly or from one bone
 * between (DAZ Genesis: hip → pelvis → thighs). Among several such bones, the one whose legs point most
 * straight down wins. `keep` rejects helper bones (twist, end markers…) from the chains. Returns the
 * reason when nothing fits.
 */
export function detectTopology(rig: RigSkeleton, keep: (bone: number) => boolean): TopologyBiped | string {
  const isLong = (b: number): boolean => keep(b) && rig.height[b]! >= LIMB_BONES;
  // a child that forks into two long chains is where legs hang, never a leg's first bone
  const legStarts = (k: number): number[] => {
    const forks = rig.children[k]!.filter(isLong);
    return forks.length >= 2 ? forks : [k];
  };
  let best: (TopologyBiped & { score: number }) | null = null;
  let closest = "";
  for (let x = 0; x < rig.bones.length; x++) {
    const kids = rig.children[x]!.filter(isLong);
    if (kids.length < 2) continue;
    for (const s of kids) {
      const legKids = kids.filter((k) => k !== s).flatMap(legStarts);
      if (legKids.length < 2) continue;
      for (let cur = s; ; ) {
        const arms = armPairAt(rig, cur, x, isLong, keep);
        if (arms !== null) {
          const legs = legPairAt(rig, x, legKids, arms.up, keep);
          if (legs === null) {
            closest ||=
              `${rig.name(x)} has a spine toward ${rig.name(cur)} with two arms, ` +
              "but not two leg chains running down";
          } else if (best === null || legs.score > best.score + 1e-9) {
            best = { pelvis: x, armBranch: cur, arms: arms.arms, legs: legs.legs, up: arms.up, score: legs.score };
          }
          break;
        }
        const next = rig.children[cur]!.filter(keep);
        if (next.length === 0) break;
        cur = next.reduce((a, b) => (rig.size[b]! > rig.size[a]! ? b : a));
      }
    }
  }
  if (best !== null)
    return { pelvis: best.pelvis, armBranch: best.armBranch, legs: best.legs, arms: best.arms, up: best.up };
  return (
    "no bone has two leg chains of at least 3 bones running down and a spine with two arm chains of at least 3 " +
    "bones reaching to opposite sides" +
    (closest ? ` (closest: ${closest})` : "")
  );
}

/** The two arms hanging from `branch`, with up taken from `pelvis` to `branch`, or null. */
function armPairAt(
  rig: RigSkeleton,
  branch: number,
  pelvis: number,
  isLong: (b: number) => boolean,
  keep: (b: number) => boolean,
): { arms: [LimbBones, LimbBones]; up: P3 } | null {
  const kids = rig.children[branch]!.filter(isLong);
  if (kids.length < 2) return null;
  const up = vnorm(vsub(rig.pos(branch), rig.pos(pelvis)));
  if (vlen(up) === 0) return null;
  const reaching = kids.flatMap((k) => {
    const chain = rig.mainChain(k, keep);
    const reach = vsub(rig.pos(chain[chain.length - 1]!), rig.pos(branch));
    const lateral = vreject(reach, up);
    return vlen(lateral) > ARM_LATERAL_SHARE * vlen(reach) ? [{ chain, lateral }] : [];
  });
  const pair = oppositePair(reaching);
  if (pair === null) return null;
  const a = armFromChain(rig, pair[0].chain);
  const b = armFromChain(rig, pair[1].chain);
  return a !== null && b !== null ? { arms: [a, b], up } : null;
}

/** The two legs among `kids` (the pelvis's, or one level below): chains that run down to opposite sides, or null. */
function legPairAt(
  rig: RigSkeleton,
  pelvis: number,
  kids: readonly number[],
  up: P3,
  keep: (b: number) => boolean,
): { legs: [LimbBones, LimbBones]; score: number } | null {
  const origin = rig.pos(pelvis);
  const down = kids.flatMap((k) => {
    const chain = rig.mainChain(k, keep);
    const cos = vdot(vnorm(vsub(rig.pos(chain[chain.length - 1]!), origin)), up);
    // the side of a leg is where its hip joint sits (the first joint off the pelvis's vertical): lower
    // joints would mix in the forward lean of a spine that is not quite vertical
    const offsets = chain.slice(0, LIMB_BONES).map((b) => vreject(vsub(rig.pos(b), origin), up));
    const lateral = offsets.find((o) => vlen(o) > 1e-3 * rig.extent) ?? offsets[0]!;
    return cos < -LEG_DOWN_COSINE ? [{ chain, cos, lateral }] : [];
  });
  const pair = oppositePair(down, 0);
  if (pair === null) return null;
  const a = legFromChain(rig, pair[0].chain, up);
  const b = legFromChain(rig, pair[1].chain, up);
  return a !== null && b !== null ? { legs: [a, b], score: -(pair[0].cos + pair[1].cos) / 2 } : null;
}

/** The character's axes, as far as the rig tells them. */
export interface BodyAxes {
  up: P3;
  /** Unit forward, or null when neither the feet nor the knees tell it. */
  forward: P3 | null;
  /** Unit vector toward the character's left. */
  left: P3;
  /** What gave the forward direction. */
  source: "toes" | "knees" | "assumed";
}

/**
 * The character's frame: up from the legs toward the arms; forward from the toes (foot → toe), else
 * from the knees (a knee sits in front of its hip → ankle line); left = up × forward in a right-handed
 * frame (glTF: facing +Z with +Y up puts the left at +X), forward × up in a left-handed one. When
 * neither toes nor knees tell forward, +X (right-handed) or −X (left-handed) is taken as the left.
 * Returns null when up cannot be found or left would be along up.
 */
export function bodyAxes(
  rig: RigSkeleton,
  legs: readonly LimbBones[],
  upperCenter: P3 | null,
  leftHanded: boolean,
): BodyAxes | null {
  if (legs.length === 0) return null;
  const hips = mean(legs.map((l) => rig.pos(l.bones[0])));
  const feet = mean(legs.map((l) => rig.pos(l.bones[2])));
  const up = vnorm(upperCenter !== null ? vsub(upperCenter, hips) : vsub(hips, feet));
  if (vlen(up) === 0) return null;
  let legLength = 0;
  for (const l of legs)
    legLength += (rig.distance(l.bones[0], l.bones[1]) + rig.distance(l.bones[1], l.bones[2])) / legs.length;

  const agreeing = (dirs: P3[], minShare: number): P3 | null => {
    if (dirs.length === 0) return null;
    const sum = dirs.reduce(vadd, v3(0, 0, 0));
    if (!(vlen(sum) > minShare * legLength * dirs.length)) return null;
    return dirs.every((d) => vdot(d, sum) > 0) ? vnorm(sum) : null;
  };
  const toes = legs.filter((l) => l.toe >= 0).map((l) => vreject(vsub(rig.pos(l.toe), rig.pos(l.bones[2])), up));
  const knees = legs.map((l) => {
    const hip = rig.pos(l.bones[0]);
    const line = vnorm(vsub(rig.pos(l.bones[2]), hip));
    const k = vsub(rig.pos(l.bones[1]), hip);
    return vreject(vreject(k, line), up);
  });
  let forward = agreeing(toes, 0.05);
  let source: BodyAxes["source"] = "toes";
  if (forward === null) {
    forward = agreeing(knees, 0.005);
    source = "knees";
  }
  let left: P3;
  if (forward !== null) {
    left = vnorm(leftHanded ? vcross(forward, up) : vcross(up, forward));
  } else {
    source = "assumed";
    const x = vreject(v3(leftHanded ? -1 : 1, 0, 0), up);
    if (vlen(x) < 0.5) return null;
    left = vnorm(x);
  }
  return { up, forward, left, source };
}
