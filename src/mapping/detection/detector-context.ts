/**
 * The state one reference-detection run shares between its stages (the skeleton, the parsed names, the
 * problems and warnings so far, which evidence was used) and the small helpers they all call.
 * @module
 */
import {
  type BoneNameInfo,
  type BoneRole,
  type BoneSide,
  ROLE_WORDS,
  SIDED_CENTRAL_ROLES,
  parseBoneName,
} from "./bone-naming.js";
import { type BodyAxes, type LimbBones, bodyAxes } from "./detect-topology.js";
import { type P3, type RigBoneInfo, RigSkeleton, v3, vadd, vdot, vscale } from "./rig-skeleton.js";

/** An arm or a leg. */
export type LimbKind = "arm" | "leg";
/** Upper, middle and end bone of a limb (-1 where unknown). */
export type Triple = [number, number, number];

/** The roles of a limb's upper, middle and end bone. */
export const LIMB_ROLES: Readonly<Record<LimbKind, readonly [BoneRole, BoneRole, BoneRole]>> = {
  arm: ["upperArm", "forearm", "hand"],
  leg: ["thigh", "calf", "foot"],
};
/** Both sides, left first (the order problems are reported in). */
export const SIDES: readonly BoneSide[] = ["left", "right"];
/** The opposite side. */
export const other = (side: BoneSide): BoneSide => (side === "left" ? "right" : "left");

/** The outcome for one limb slot (e.g. the left arm). */
export interface Slot {
  /** The limb, once found. */
  limb: LimbBones | null;
  /** Best-known bones (-1 where unknown), for the partial result. */
  partial: Triple;
  /** Why the limb is not (yet) found, in words. */
  problem: string | null;
  /** The names contradict each other (duplicates, several candidates): the hierarchy may not overrule them. */
  conflict: boolean;
}

/** The four limb slots. */
export type LimbSlots = Record<LimbKind, Record<BoneSide, Slot>>;

/** A slot with nothing found and nothing wrong yet. */
export const emptySlot = (): Slot => ({ limb: null, partial: [-1, -1, -1], problem: null, conflict: false });
/** A slot holding `limb`. */
export const found = (limb: LimbBones): Slot => ({ limb, partial: [...limb.bones], problem: null, conflict: false });
/** A slot the names contradict: the hierarchy may not fill it. */
export const conflict = (problem: string): Slot => ({ ...emptySlot(), problem, conflict: true });

/** "a calf", "an upper arm". */
export const an = (word: string): string => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
/** The centroid of `points` (the origin for none). */
export const mean = (points: readonly P3[]): P3 =>
  vscale(points.reduce(vadd, v3(0, 0, 0)), 1 / Math.max(1, points.length));

/**
 * A bone named like a clavicle right above a forearm (helpers between passed over) is the upper arm: Synty
 * names its arms `Clavicle_L` → `Shoulder_L` → `Elbow_L`, where Mixamo's `LeftShoulder` is the clavicle.
 */
function upperArmsNamedLikeClavicles(rig: RigSkeleton, info: BoneNameInfo[]): BoneNameInfo[] {
  for (let f = 0; f < info.length; f++) {
    if (info[f]!.role !== "forearm") continue;
    let p = rig.parent(f);
    while (p >= 0 && info[p]!.excludedBy !== null) p = rig.parent(p);
    if (p >= 0 && info[p]!.role === "clavicle") info[p] = { ...info[p]!, role: "upperArm" };
  }
  return info;
}

/**
 * A bone named like a calf right above another one (helpers between passed over), with no thigh by name above it on
 * its side, is the thigh: MMD's English names run `leg_L` → `knee_L` → `ankle_L` (its `左足` → `左ひざ` → `左足首`),
 * where Mixamo's `LeftLeg` is the calf.
 */
function thighsNamedLikeCalves(rig: RigSkeleton, info: BoneNameInfo[]): BoneNameInfo[] {
  const named = (b: number, role: BoneRole, side: BoneSide | null): boolean =>
    info[b]!.role === role && info[b]!.side === side;
  for (let c = 0; c < info.length; c++) {
    const { role, side } = info[c]!;
    if (role !== "calf") continue;
    let p = rig.parent(c);
    while (p >= 0 && info[p]!.excludedBy !== null) p = rig.parent(p);
    if (p < 0 || !named(p, "calf", side)) continue;
    let thighAbove = false;
    for (let a = rig.parent(p); a >= 0 && !thighAbove; a = rig.parent(a)) thighAbove = named(a, "thigh", side);
    if (!thighAbove) info[p] = { ...info[p]!, role: "thigh" };
  }
  return info;
}

/**
 * A bone named for a central role but with a side (bone-naming's `SIDED_CENTRAL_ROLES`: `Hip_L`) is the limb bone
 * the table names when a middle bone of that limb and side hangs below it with no bone so named between:
 * AdvancedSkeleton's `Hip_L` → `HipPart1_L` → `Knee_L` and SMPL's `L_Hip` → `L_Knee` make it the thigh, where
 * Rigify's `pelvis.L` is a leaf.
 */
function limbRootsNamedLikeCentre(rig: RigSkeleton, info: BoneNameInfo[]): BoneNameInfo[] {
  const named = (b: number, role: BoneRole, side: BoneSide): boolean =>
    info[b]!.role === role && info[b]!.side === side;
  for (let u = 0; u < info.length; u++) {
    const { ignoredRole, side } = info[u]!;
    const role = ignoredRole === null ? undefined : SIDED_CENTRAL_ROLES[ignoredRole];
    const limb = Object.values(LIMB_ROLES).find((roles) => roles[0] === role);
    if (side === null || role === undefined || limb === undefined) continue;
    const below = info.some(
      (_, m) => named(m, limb[1], side) && rig.isAncestor(u, m) && !rig.between(u, m).some((b) => named(b, role, side)),
    );
    if (below) info[u] = { ...info[u]!, role, ignoredRole: null };
  }
  return info;
}

/** One detection run's shared state; each stage is a function of it. */
export class DetectorContext {
  readonly rig: RigSkeleton;
  /** What each bone's name says (role, side, helper), by bone index. */
  readonly info: BoneNameInfo[];
  /** Problems so far, in the order the result reports them. */
  readonly problems: string[] = [];
  /** Warnings so far, in the order the result reports them. */
  readonly warnings: string[] = [];
  /** Some reference came from a bone's name. */
  byNames = false;
  /** Some reference came from the hierarchy or geometry rather than a name. */
  byShape = false;
  /** The positions are in a left-handed frame. */
  readonly leftHanded: boolean;
  /** The handedness was given (by the caller, or from the scene), not assumed. */
  readonly handednessGiven: boolean;
  /** Complete name triples of every side, for the frame (set by the names stage). */
  readonly allTriples: Record<LimbKind, LimbBones[]> = { arm: [], leg: [] };
  private nameFrame: BodyAxes | null | undefined;

  constructor(bones: readonly RigBoneInfo[], leftHanded: boolean | undefined) {
    this.rig = new RigSkeleton(bones);
    const info = bones.map((b) => parseBoneName(b.name));
    const named = thighsNamedLikeCalves(this.rig, upperArmsNamedLikeClavicles(this.rig, info));
    this.info = limbRootsNamedLikeCentre(this.rig, named);
    this.leftHanded = leftHanded === true;
    this.handednessGiven = leftHanded !== undefined;
  }

  /** The bone is not a helper (twist, roll, end marker, IK target). */
  readonly keep = (b: number): boolean => this.info[b]!.excludedBy === null;

  /** Shallowest first, then in list order. */
  readonly byDepth = (a: number, b: number): number => this.rig.depth[a]! - this.rig.depth[b]! || a - b;

  /** Bones named like `role` (any side), in list order. */
  withRole(role: BoneRole): number[] {
    const out: number[] = [];
    this.info.forEach((n, i) => {
      if (n.role === role) out.push(i);
    });
    return out;
  }

  /** "A → B → C" for the bones that are set. */
  chain(bones: readonly number[]): string {
    return this.rig.names(
      bones.filter((b) => b >= 0),
      " → ",
    );
  }

  /** A side for messages ("unsided" for none). */
  sideWord(side: BoneSide | null): string {
    return side ?? "unsided";
  }

  /** Bones named like `role` (any side), listed with their sides, for messages. */
  considered(role: BoneRole): string {
    const list = this.withRole(role).map((b) => `${this.rig.name(b)} (${this.sideWord(this.info[b]!.side)})`);
    return `${ROLE_WORDS[role]}-like bones: ${list.length === 0 ? "(none)" : list.join(", ")}`;
  }

  /** The toe after a foot: a child named like a toe, else the foot's main-chain child, else -1. */
  toeOf(foot: number): number {
    const kids = this.rig.children[foot]!;
    const named = kids.find((k) => this.info[k]!.role === "toe");
    if (named !== undefined) return named;
    return kids.length > 0 ? this.rig.mainChain(foot, this.keep)[1]! : -1;
  }

  /** Adds a warning unless it was already given (the assumed facing is told once, not per limb pair). */
  warnOnce(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  /** The frame from the name-found legs and arms (cached: call after the names stage has filled allTriples). */
  frameFromNames(): BodyAxes | null {
    if (this.nameFrame === undefined) {
      const arms = this.allTriples.arm;
      const upper = arms.length >= 2 ? mean(arms.map((a) => this.rig.pos(a.bones[0]))) : null;
      this.nameFrame = bodyAxes(this.rig, this.allTriples.leg, upper, this.leftHanded);
    }
    return this.nameFrame;
  }

  /** How the frame tells left from right, for messages. */
  describeFrame(frame: BodyAxes): string {
    const axis = (p: P3): string => `(${p.x.toFixed(2)}, ${p.y.toFixed(2)}, ${p.z.toFixed(2)})`;
    if (frame.source !== "assumed") {
      const forward = axis(frame.forward!);
      return `the ${frame.source} point forward along ${forward}, so the character's left is along ${axis(frame.left)}`;
    }
    const taken = this.leftHanded
      ? "−X was taken as the character's left (facing +Z in a left-handed frame)"
      : "+X was taken as the character's left (glTF convention)";
    return `facing unknown (neither toes nor bent knees), so ${taken}`;
  }

  /** Sorts two limbs into left and right by position; null when no frame can be found. */
  sidesByGeometry(pair: readonly [LimbBones, LimbBones], frame: BodyAxes | null): Record<BoneSide, LimbBones> | null {
    if (frame === null) return null;
    const lateral = (l: LimbBones): number => vdot(mean(l.bones.map((b) => this.rig.pos(b))), frame.left);
    this.byShape = true;
    if (frame.source === "assumed") this.warnOnce(`Left and right: ${this.describeFrame(frame)}.`);
    return lateral(pair[0]) >= lateral(pair[1]) ? { left: pair[0], right: pair[1] } : { left: pair[1], right: pair[0] };
  }
}
