/**
 * Automatic detection of a humanoid skeleton's biped references (FinalIK's
 * BipedReferences.AutoDetectReferences), engine-neutral: it reads bone names, the hierarchy and rest
 * positions, never an engine object.
 *
 * Order of evidence:
 * 1. **Names** ({@link parseBoneName}): each limb is the tightest upper → middle → end chain of bones
 *    named for those roles on one side; twist, roll, end and IK helpers are ignored. A limb with one
 *    bone unnamed is completed from the hierarchy (the only bone between, the only child, the parent).
 * 2. **Topology** ({@link detectTopology}) for limbs names do not give: the pelvis is where two leg chains
 *    and the spine meet, the arms branch from the upper spine; sides come from names on the limb's
 *    bones when they disagree, else from geometry (left = up × forward, forward from the toes or knees).
 * 3. **FinalIK's structural rules** for the rest: the pelvis is the deepest bone named like one above
 *    both thighs and the arms (else their common ancestor); the spine runs from the pelvis (excluded) to
 *    the first common ancestor of the upper arms; a clavicle is an upper arm's parent unless that is a
 *    spine bone; the head is named, else the spine's continuation above the arms.
 * @module
 */
import { BIPED_LIMB_KEYS, type BipedBones } from "../../solver/biped-bones.js";
import { type BoneNameInfo, type BoneRole, type BoneSide, ROLE_WORDS, parseBoneName } from "./bone-naming.js";
import { type CharacterFrame, type LimbBones, characterFrame, detectTopology } from "./detect-topology.js";
import {
  type P3,
  type RigBoneInfo,
  RigSkeleton,
  skeletonInputProblems,
  v3,
  vadd,
  vcross,
  vdot,
  vlen,
  vnorm,
  vscale,
  vsub,
} from "./rig-skeleton.js";

export type { RigBoneInfo } from "./rig-skeleton.js";

/**
 * Indices into the {@link RigBoneInfo} array: the solver's {@link BipedBones} without the character root
 * (detection does not choose it), plus clavicles and eyes. -1 marks an absent optional bone. The spine is
 * bottom to top, 1..n bones, up to the first common ancestor of the upper arms.
 */
export type DetectedBipedReferences = Omit<BipedBones, "root" | "spine"> & {
  spine: number[];
  /** The upper arm's parent unless that parent is a spine bone (FinalIK), -1 when absent. */
  leftClavicle: number;
  /** The upper arm's parent unless that parent is a spine bone (FinalIK), -1 when absent. */
  rightClavicle: number;
  /** Eye bones (left first), may be empty. */
  eyes: number[];
};

/** What {@link detectBipedReferences} found. */
export interface DetectionResult {
  /** The references, or null when anything required is missing or bad (then `problems` says what). */
  references: DetectedBipedReferences | null;
  /** Everything that was found, -1 / empty where nothing was (useful to complete by hand). */
  partial: DetectedBipedReferences;
  /** Every problem in words, naming what is missing or bad and the bones that were considered. */
  problems: string[];
  /** Things that worked but deserve a look: guesses, straight limbs, assumed facing, helpers used. */
  warnings: string[];
  /** What decided the references: bone names, the hierarchy's shape, or both. */
  method: "names" | "topology" | "mixed";
}

/** Options of {@link detectBipedReferences}. */
export interface DetectionOptions {
  /**
   * The positions are in a left-handed frame (Babylon's default scene space) rather than a
   * right-handed one (glTF; the default). Only matters when geometry has to tell left from right.
   * `FullBodyBipedIK.create` and `resolveBipedReferences` set it from the scene: the skeleton's frame is
   * left-handed when exactly one of the scene (not `useRightHandedSystem`) and the skeleton's parent space
   * (a negative determinant, as glTF's `__root__` in a left-handed scene) is mirrored.
   */
  leftHanded?: boolean;
}

/** Problems (the references cannot be used) and warnings (they can, but look). */
export interface ReferenceValidation {
  problems: string[];
  warnings: string[];
}

type LimbKind = "arm" | "leg";
/** The single-bone fields of the references. */
type BoneKey = Exclude<keyof DetectedBipedReferences, "spine" | "eyes">;
type Triple = [number, number, number];

const LIMB_ROLES: Readonly<Record<LimbKind, readonly [BoneRole, BoneRole, BoneRole]>> = {
  arm: ["upperArm", "forearm", "hand"],
  leg: ["thigh", "calf", "foot"],
};
const SIDES: readonly BoneSide[] = ["left", "right"];
const other = (side: BoneSide): BoneSide => (side === "left" ? "right" : "left");
/** Relative tolerance (× character size) under which two bones are at the same position. */
const SAME_POSITION = 1e-6;
/** A limb bent less than this (degrees) at its middle joint is reported as straight. */
const STRAIGHT_DEGREES = 0.5;

/** The outcome for one limb slot (e.g. the left arm). */
interface Slot {
  limb: LimbBones | null;
  /** Best-known bones (-1 where unknown), for the partial result. */
  partial: Triple;
  problem: string | null;
  /** The names contradict each other (duplicates, several candidates): the hierarchy may not overrule them. */
  conflict: boolean;
}

const emptySlot = (): Slot => ({ limb: null, partial: [-1, -1, -1], problem: null, conflict: false });
const found = (limb: LimbBones): Slot => ({ limb, partial: [...limb.bones], problem: null, conflict: false });
const conflict = (problem: string): Slot => ({ ...emptySlot(), problem, conflict: true });

/** An empty reference set (every bone -1). */
function emptyReferences(): DetectedBipedReferences {
  return {
    pelvis: -1,
    spine: [],
    head: -1,
    leftThigh: -1,
    leftCalf: -1,
    leftFoot: -1,
    rightThigh: -1,
    rightCalf: -1,
    rightFoot: -1,
    leftUpperArm: -1,
    leftForearm: -1,
    leftHand: -1,
    rightUpperArm: -1,
    rightForearm: -1,
    rightHand: -1,
    leftClavicle: -1,
    rightClavicle: -1,
    eyes: [],
  };
}

/** "a calf", "an upper arm". */
const an = (word: string): string => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
const mean = (points: readonly P3[]): P3 => vscale(points.reduce(vadd, v3(0, 0, 0)), 1 / Math.max(1, points.length));

/** One detection run. */
class Detector {
  readonly rig: RigSkeleton;
  readonly info: BoneNameInfo[];
  readonly problems: string[] = [];
  readonly warnings: string[] = [];
  /** Some reference came from a bone's name. */
  byNames = false;
  /** Some reference came from the hierarchy or geometry rather than a name. */
  byShape = false;
  private readonly leftHanded: boolean;
  /** The handedness was given (by the caller, or from the scene), not assumed. */
  private readonly handednessGiven: boolean;
  private nameFrame: CharacterFrame | null | undefined;
  /** Complete name triples of every side, for the frame. */
  private readonly allTriples: Record<LimbKind, LimbBones[]> = { arm: [], leg: [] };

  constructor(bones: readonly RigBoneInfo[], options: DetectionOptions) {
    this.rig = new RigSkeleton(bones);
    this.info = bones.map((b) => parseBoneName(b.name));
    this.leftHanded = options.leftHanded === true;
    this.handednessGiven = options.leftHanded !== undefined;
  }

  readonly keep = (b: number): boolean => this.info[b]!.excludedBy === null;

  private withRole(role: BoneRole): number[] {
    const out: number[] = [];
    this.info.forEach((n, i) => {
      if (n.role === role) out.push(i);
    });
    return out;
  }

  private byDepth = (a: number, b: number): number => this.rig.depth[a]! - this.rig.depth[b]! || a - b;

  private chain(bones: readonly number[]): string {
    return this.rig.names(bones.filter((b) => b >= 0), " → ");
  }

  private sideWord(side: BoneSide | null): string {
    return side ?? "unsided";
  }

  /** Bones named like `role` (any side), listed with their sides, for messages. */
  private considered(role: BoneRole): string {
    const list = this.withRole(role).map((b) => `${this.rig.name(b)} (${this.sideWord(this.info[b]!.side)})`);
    return `${ROLE_WORDS[role]}-like bones: ${list.length === 0 ? "(none)" : list.join(", ")}`;
  }

  /** The toe after a foot: a child named like a toe, else the foot's main-chain child, else -1. */
  private toeOf(foot: number): number {
    const kids = this.rig.children[foot]!;
    const named = kids.find((k) => this.info[k]!.role === "toe");
    if (named !== undefined) return named;
    return kids.length > 0 ? this.rig.mainChain(foot, this.keep)[1]! : -1;
  }

  // ---------------------------------------------------------------- names

  /** Complete upper → middle → end chains named for `kind` on `side` (tightest, in-line duplicates merged). */
  private namedTriples(kind: LimbKind, side: BoneSide | null): { limbs: LimbBones[]; ambiguous: string | null } {
    const [r0, r1, r2] = LIMB_ROLES[kind];
    const same = (b: number): boolean => this.info[b]!.side === side;
    const limbs: LimbBones[] = [];
    let ambiguous: string | null = null;
    for (const m of this.withRole(r1).filter(same).sort(this.byDepth)) {
      if (limbs.some((l) => this.rig.isAncestor(l.bones[1], m))) continue;
      const ups = this.withRole(r0).filter((u) => same(u) && this.rig.isAncestor(u, m)).sort(this.byDepth);
      const ends = this.withRole(r2).filter((e) => same(e) && this.rig.isAncestor(m, e)).sort(this.byDepth);
      if (ups.length === 0 || ends.length === 0) continue;
      const nearest = ends.filter((e) => this.rig.depth[e] === this.rig.depth[ends[0]!]);
      if (nearest.length > 1) {
        ambiguous ??=
          `the ${this.sideWord(side)} ${ROLE_WORDS[r2]} is ambiguous: ${this.chain([ups[0]!, m])} has ${nearest.length} ` +
          `${ROLE_WORDS[r2]}-like bones at the same depth below the ${ROLE_WORDS[r1]}: ${this.rig.names(nearest)} (no single ${ROLE_WORDS[r2]} bone)`;
        continue;
      }
      const end = nearest[0]!;
      limbs.push({ bones: [ups[0]!, m, end], toe: kind === "leg" ? this.toeOf(end) : -1 });
    }
    return { limbs, ambiguous };
  }

  /** The frame from the name-found legs and arms (cached). */
  private frameFromNames(): CharacterFrame | null {
    if (this.nameFrame === undefined) {
      const arms = this.allTriples.arm;
      const upper = arms.length >= 2 ? mean(arms.map((a) => this.rig.pos(a.bones[0]))) : null;
      this.nameFrame = characterFrame(this.rig, this.allTriples.leg, upper, this.leftHanded);
    }
    return this.nameFrame;
  }

  private describeFrame(frame: CharacterFrame): string {
    const f = frame.forward;
    const axis = (p: P3): string => `(${p.x.toFixed(2)}, ${p.y.toFixed(2)}, ${p.z.toFixed(2)})`;
    return frame.source === "assumed"
      ? `facing unknown (neither toes nor bent knees), so ${this.leftHanded ? "−X was taken as the character's left (facing +Z in a left-handed frame)" : "+X was taken as the character's left (glTF convention)"}`
      : `the ${frame.source} point forward along ${axis(f!)}, so the character's left is along ${axis(frame.left)}`;
  }

  /** Sorts two limbs into left and right by position; null when no frame can be found. */
  private sidesByGeometry(
    pair: readonly [LimbBones, LimbBones],
    frame: CharacterFrame | null,
  ): Record<BoneSide, LimbBones> | null {
    if (frame === null) return null;
    const lateral = (l: LimbBones): number => vdot(mean(l.bones.map((b) => this.rig.pos(b))), frame.left);
    this.byShape = true;
    if (frame.source === "assumed") this.warnOnce(`Left and right: ${this.describeFrame(frame)}.`);
    return lateral(pair[0]) >= lateral(pair[1]) ? { left: pair[0], right: pair[1] } : { left: pair[1], right: pair[0] };
  }

  private warnOnce(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  /** Name-based limbs of one kind: complete chains, sides from names (geometry when names cannot tell). */
  private limbsByName(kind: LimbKind): Record<BoneSide, Slot> {
    const slots: Record<BoneSide, Slot> = { left: emptySlot(), right: emptySlot() };
    const left = this.namedTriples(kind, "left");
    const right = this.namedTriples(kind, "right");
    const none = this.namedTriples(kind, null);
    this.allTriples[kind] = [...left.limbs, ...right.limbs, ...none.limbs];
    const list = (ls: readonly LimbBones[]): string => ls.map((l) => this.chain(l.bones)).join(" and ");

    const geometric = (pair: [LimbBones, LimbBones], why: string): void => {
      const frame = this.frameFromNames();
      const sorted = this.sidesByGeometry(pair, frame);
      if (sorted === null) {
        for (const s of SIDES) slots[s] = conflict(`${why}: ${list(pair)}, and the skeleton's geometry cannot tell which is the left ${kind}`);
        return;
      }
      this.warnings.push(`${why}: ${list(pair)}; the sides were taken from their positions (${this.describeFrame(frame!)}).`);
      for (const s of SIDES) slots[s] = found(sorted[s]);
    };

    const sided = { left, right };
    if (left.limbs.length > 1 || right.limbs.length > 1) {
      const pool = [...left.limbs, ...right.limbs, ...none.limbs];
      if (pool.length === 2) {
        geometric([pool[0]!, pool[1]!], `both ${kind}s are named ${left.limbs.length > 1 ? "left" : "right"}`);
      } else {
        for (const s of SIDES) {
          const ls = sided[s].limbs;
          if (ls.length > 1) slots[s] = conflict(`${ls.length} ${s} ${kind}s found by name (duplicates): ${list(ls)}`);
          else if (ls.length === 1) slots[s] = found(ls[0]!);
        }
      }
    } else {
      for (const s of SIDES) if (sided[s].limbs.length === 1) slots[s] = found(sided[s].limbs[0]!);
      const missing = SIDES.filter((s) => slots[s].limb === null);
      if (missing.length === 2 && none.limbs.length === 2) {
        geometric([none.limbs[0]!, none.limbs[1]!], `the ${kind}s' names carry no side`);
      } else if (missing.length === 1 && none.limbs.length === 1) {
        const s = missing[0]!;
        slots[s] = found(none.limbs[0]!);
        this.warnings.push(
          `the ${s} ${kind} ${list(none.limbs)} has no side in its names; it was taken as the ${s} one, opposite ${this.chain(slots[other(s)].limb!.bones)}.`,
        );
      } else if (none.limbs.length > 0) {
        for (const s of missing) {
          slots[s] = conflict(`the ${s} ${kind} is unclear: ${none.limbs.length} ${kind}s without a side in their names: ${list(none.limbs)}`);
        }
      }
    }
    for (const s of SIDES) {
      if (slots[s].limb === null) {
        const ambiguous = sided[s].ambiguous;
        if (slots[s].problem === null && ambiguous !== null) slots[s] = conflict(ambiguous);
        slots[s] = this.completeByHierarchy(kind, s, slots[s]);
      }
      if (slots[s].partial.some((b) => b >= 0)) this.byNames = true;
    }
    return slots;
  }

  /**
   * Completes a limb with one bone unnamed from the hierarchy: the only usable bone between a named
   * upper and end, the only child of a named middle (or a single end-marker leaf, with a warning), the
   * parent of a named middle. Otherwise explains what was considered.
   */
  private completeByHierarchy(kind: LimbKind, side: BoneSide, slot: Slot): Slot {
    const [r0, r1, r2] = LIMB_ROLES[kind];
    const [w0, w1, w2] = [ROLE_WORDS[r0], ROLE_WORDS[r1], ROLE_WORDS[r2]];
    const rig = this.rig;
    const ofSide = (role: BoneRole): number[] => this.withRole(role).filter((b) => this.info[b]!.side === side).sort(this.byDepth);
    const ups = ofSide(r0);
    const mids = ofSide(r1);
    const ends = ofSide(r2);
    const usable = (b: number): boolean => this.keep(b) && this.info[b]!.role === null;
    const why = (b: number): string => {
      const n = this.info[b]!;
      return `${rig.name(b)} (${n.excludedBy !== null ? n.excludedBy : `named like ${an(ROLE_WORDS[n.role!])}`})`;
    };
    const filled = (bones: Triple, note: string): Slot => {
      this.byNames = true;
      this.byShape = true;
      this.warnings.push(`the ${side} ${kind} ${this.chain(bones)}: ${note}.`);
      return found({ bones, toe: kind === "leg" ? this.toeOf(bones[2]) : -1 });
    };
    if (slot.problem !== null) {
      const m = mids.find((b) => ups.some((u) => rig.isAncestor(u, b)));
      if (m !== undefined) slot.partial = [ups.find((u) => rig.isAncestor(u, m))!, m, -1];
      return slot;
    }

    // a named upper and end with no named middle between them
    for (const u of ups) {
      for (const e of ends) {
        if (!rig.isAncestor(u, e) || mids.some((m) => rig.isAncestor(u, m) && rig.isAncestor(m, e))) continue;
        const between = rig.between(u, e);
        const pool = between.filter(usable);
        const ignored = between.filter((b) => !usable(b));
        if (pool.length === 1) return filled([u, pool[0]!, e], `the ${w1} is the only unnamed bone between the ${w0} and the ${w2}`);
        return {
          limb: null,
          conflict: false,
          partial: [u, -1, e],
          problem:
            `no ${side} ${w1} found: candidates between ${rig.name(u)} and ${rig.name(e)}: ${rig.names(pool)}` +
            (ignored.length > 0 ? ` (ignored: ${ignored.map(why).join(", ")})` : ""),
        };
      }
    }
    // a named upper and middle with nothing named below the middle
    for (const m of mids) {
      const u = ups.find((b) => rig.isAncestor(b, m));
      if (u === undefined) continue;
      const kids = rig.children[m]!;
      const pool = kids.filter(usable);
      if (pool.length === 1) return filled([u, m, pool[0]!], `the ${w2} is the ${w1}'s only unnamed child`);
      const markers = kids.filter((k) => this.info[k]!.excludedBy !== null && rig.children[k]!.length === 0);
      const elsewhere = ends.filter((e) => !rig.isAncestor(m, e));
      const hangs = elsewhere
        .map((e) => `${rig.name(e)} hangs from ${rig.parent(e) >= 0 ? rig.name(rig.parent(e)) : "nothing (a root bone)"}`)
        .join(", ");
      if (pool.length === 0 && markers.length === 1) {
        return filled(
          [u, m, markers[0]!],
          `there is no ${w2} bone below the ${w1}, so its end marker ${rig.name(markers[0]!)} stands in for the ${w2}: the IK places the ${w1}'s tip, ` +
            `but there is no ${w2} rotation to drive` +
            (hangs ? ` (${hangs} and will not follow the ${kind})` : ""),
        );
      }
      return {
        limb: null,
        conflict: false,
        partial: [u, m, -1],
        problem:
          `no ${side} ${w2} found: the ${side} ${kind} ${this.chain([u, m])} has no ${w2} below the ${w1}` +
          (kids.length > 0 ? ` (the ${w1}'s children: ${kids.map((k) => (usable(k) ? rig.name(k) : why(k))).join(", ")})` : "") +
          (hangs ? `; ${hangs} instead` : ""),
      };
    }
    // a named middle and end with nothing named above the middle
    for (const m of mids) {
      const e = ends.find((b) => rig.isAncestor(m, b));
      if (e === undefined) continue;
      const p = rig.parent(m);
      if (p >= 0 && usable(p)) return filled([p, m, e], `the ${w0} is the ${w1}'s unnamed parent`);
      return {
        limb: null,
        conflict: false,
        partial: [-1, m, e],
        problem: `no ${side} ${w0} found above ${rig.name(m)}: its parent is ${p >= 0 ? why(p) : "nothing (a root bone)"}`,
      };
    }
    return {
      limb: null,
      conflict: false,
      partial: [ups[0] ?? -1, mids[0] ?? -1, ends[0] ?? -1],
      problem: `no ${side} ${kind} found by name: ${[r0, r1, r2].map((r) => this.considered(r)).join("; ")}`,
    };
  }

  // ---------------------------------------------------------------- topology

  /** Majority side named in a limb's subtree (fingers and toes count), or null. */
  private sideHint(limb: LimbBones): BoneSide | null {
    let score = 0;
    const visit = (b: number): void => {
      const s = this.info[b]!.side;
      if (s !== null) score += s === "left" ? 1 : -1;
      for (const c of this.rig.children[b]!) visit(c);
    };
    visit(limb.bones[0]);
    return score > 0 ? "left" : score < 0 ? "right" : null;
  }

  /** Fills unresolved slots from the hierarchy's shape. */
  private fillFromTopology(slots: Record<LimbKind, Record<BoneSide, Slot>>): string | null {
    const topo = detectTopology(this.rig, this.keep);
    if (typeof topo === "string") {
      const what = (["leg", "arm"] as const).flatMap((k) => SIDES.filter((s) => slots[k][s].limb === null).map((s) => `${s} ${k}`));
      return `the hierarchy's shape does not give the missing limbs (${what.join(", ")}) either: ${topo}`;
    }
    const frame = characterFrame(this.rig, topo.legs, this.rig.pos(topo.armBranch), this.leftHanded);
    const used = new Set<number>();
    for (const k of ["leg", "arm"] as const) for (const s of SIDES) for (const b of slots[k][s].limb?.bones ?? []) used.add(b);

    for (const kind of ["leg", "arm"] as const) {
      const pair = kind === "leg" ? topo.legs : topo.arms;
      let sides: Record<BoneSide, LimbBones> | null = null;
      // a limb that names already placed keeps its side
      for (const s of SIDES) {
        const known = slots[kind][s].limb;
        const i = known === null ? -1 : pair.findIndex((l) => l.bones.some((b) => known.bones.includes(b)));
        if (i >= 0) sides = { [s]: pair[i]!, [other(s)]: pair[1 - i]! } as Record<BoneSide, LimbBones>;
      }
      if (sides === null) {
        const hints = [this.sideHint(pair[0]), this.sideHint(pair[1])];
        if (hints[0] !== null && hints[0] !== hints[1]) {
          sides = { [hints[0]]: pair[0], [other(hints[0])]: pair[1] } as Record<BoneSide, LimbBones>;
        } else if (hints[1] !== null && hints[0] === null) {
          sides = { [hints[1]]: pair[1], [other(hints[1])]: pair[0] } as Record<BoneSide, LimbBones>;
        } else {
          sides = this.sidesByGeometry(pair, frame);
          if (sides !== null && hints[0] !== null) {
            this.warnings.push(
              `the names in both ${kind}s say ${hints[0]} (${this.chain(pair[0].bones)}; ${this.chain(pair[1].bones)}); ` +
                `their sides were taken from their positions instead (${this.describeFrame(frame!)}).`,
            );
          }
        }
      }
      for (const s of SIDES) {
        const slot = slots[kind][s];
        if (slot.limb !== null) continue;
        const limb = sides?.[s];
        if (limb === undefined) {
          slot.problem = `${slot.problem ?? `no ${s} ${kind}`}; the hierarchy's shape gives two ${kind}s but cannot tell their sides`;
          continue;
        }
        if (slot.conflict) {
          slot.problem = `${slot.problem}; the hierarchy's shape suggests ${this.chain(limb.bones)}`;
          continue;
        }
        const clash = limb.bones.filter((b) => used.has(b));
        const misnamed = limb.bones.flatMap((b, i) => {
          const n = this.info[b]!;
          if (n.excludedBy !== null) return [`${this.rig.name(b)} is a helper bone (${n.excludedBy})`];
          const expected = LIMB_ROLES[kind][i]!;
          if (n.role === null || n.role === expected) return [];
          return [`${this.rig.name(b)} is named like ${an(ROLE_WORDS[n.role])}, not ${an(ROLE_WORDS[expected])}`];
        });
        if (misnamed.length > 0) {
          slot.problem = `${slot.problem ?? `no ${s} ${kind}`}; the hierarchy's shape suggests ${this.chain(limb.bones)}, but ${misnamed.join(", ")}`;
          continue;
        }
        if (clash.length > 0) {
          slot.problem =
            `${slot.problem ?? `no ${s} ${kind}`}; the hierarchy's ${s} ${kind} ${this.chain(limb.bones)} ` +
            `overlaps bones already used (${this.rig.names(clash)})`;
          continue;
        }
        if (slot.problem !== null && this.byNames) {
          this.warnings.push(`the ${s} ${kind} ${this.chain(limb.bones)} was found from the hierarchy's shape (by name: ${slot.problem}).`);
        }
        slots[kind][s] = found(limb);
        for (const b of limb.bones) used.add(b);
        this.byShape = true;
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- assembly

  /** Warns when the bones named left lie on the character's right as the feet tell it. */
  private checkNamedSides(slots: Record<LimbKind, Record<BoneSide, Slot>>): void {
    const frame = this.frameFromNames();
    if (frame === null || frame.source === "assumed") return;
    for (const kind of ["leg", "arm"] as const) {
      const l = slots[kind].left.limb;
      const r = slots[kind].right.limb;
      if (l === null || r === null) continue;
      const centre = (x: LimbBones): P3 => mean(x.bones.map((b) => this.rig.pos(b)));
      if (vdot(vsub(centre(l), centre(r)), frame.left) < 0) {
        this.warnings.push(
          `the ${kind} named left (${this.chain(l.bones)}) lies on the character's right as its ${frame.source} tell it (${this.describeFrame(frame)}): ` +
            (this.handednessGiven
              ? `the character is mirrored in its frame (${this.leftHanded ? "left" : "right"}-handed: the scene's handedness, turned by any mirror above the skeleton); ` +
                `the names were kept (give the limbs in \`references\` to choose otherwise).`
              : `the skeleton may be mirrored, or its positions left-handed (pass { leftHanded: true } to detectBipedReferences); the names were kept.`),
        );
      }
    }
  }

  run(): DetectionResult {
    const slots: Record<LimbKind, Record<BoneSide, Slot>> = { leg: this.limbsByName("leg"), arm: this.limbsByName("arm") };
    const anyMissing = (): boolean => (["leg", "arm"] as const).some((k) => SIDES.some((s) => slots[k][s].limb === null));
    let topologyFailure: string | null = null;
    if (anyMissing()) topologyFailure = this.fillFromTopology(slots);
    else this.checkNamedSides(slots);
    for (const k of ["leg", "arm"] as const) {
      for (const s of SIDES) {
        const slot = slots[k][s];
        if (slot.limb === null && slot.problem !== null) this.problems.push(slot.problem);
      }
    }
    if (topologyFailure !== null) this.problems.push(topologyFailure);

    const refs = emptyReferences();
    const put = (kind: LimbKind, side: BoneSide, keys: [BoneKey, BoneKey, BoneKey]): void => {
      const bones = slots[kind][side].partial;
      keys.forEach((key, i) => (refs[key] = bones[i]!));
    };
    put("leg", "left", ["leftThigh", "leftCalf", "leftFoot"]);
    put("leg", "right", ["rightThigh", "rightCalf", "rightFoot"]);
    put("arm", "left", ["leftUpperArm", "leftForearm", "leftHand"]);
    put("arm", "right", ["rightUpperArm", "rightForearm", "rightHand"]);
    this.assembleTrunk(refs);

    if (this.problems.length === 0) {
      const validation = validateBipedReferences(this.rig.bones, refs);
      this.problems.push(...validation.problems);
      this.warnings.push(...validation.warnings);
    }
    const method = !this.byNames ? "topology" : this.byShape ? "mixed" : "names";
    return { references: this.problems.length === 0 ? refs : null, partial: refs, problems: this.problems, warnings: this.warnings, method };
  }

  /** Pelvis, spine, head, clavicles and eyes from the limbs (FinalIK's rules). */
  private assembleTrunk(refs: DetectedBipedReferences): void {
    const rig = this.rig;
    const thighs = [refs.leftThigh, refs.rightThigh].filter((b) => b >= 0);
    const uppers = [refs.leftUpperArm, refs.rightUpperArm].filter((b) => b >= 0);
    const limbRoots = [...thighs, ...uppers];
    if (limbRoots.length === 0) return;

    // pelvis: the deepest bone named like one above both thighs and both upper arms, else their common ancestor
    const named = this.withRole("pelvis");
    const above = named.filter((p) => limbRoots.every((b) => rig.isAncestor(p, b))).sort(this.byDepth);
    if (above.length > 0) {
      refs.pelvis = above[above.length - 1]!;
      this.byNames = true;
    } else if (thighs.length === 2) {
      const common = rig.commonAncestor(uppers.length === 2 ? limbRoots : thighs);
      if (common < 0 || limbRoots.includes(common)) {
        this.problems.push(`no pelvis found: the thighs ${rig.names(thighs)} and upper arms ${rig.names(uppers)} have no common ancestor above them all`);
        return;
      }
      refs.pelvis = common;
      if (this.info[common]!.role !== "pelvis") {
        this.byShape = true;
        if (this.byNames) {
          this.warnings.push(
            `no bone named like a pelvis is above both thighs and the arms (considered: ${rig.names(named)}); ` +
              `the pelvis is their common ancestor ${rig.name(common)}.`,
          );
        }
      }
    } else {
      this.problems.push(`no pelvis found: it needs both thighs (found: ${rig.names(thighs)}); ${this.considered("pelvis")}`);
      return;
    }

    // spine: from the pelvis (excluded) to the first common ancestor of the upper arms
    if (uppers.length < 2) return;
    const branch = rig.commonAncestor(uppers);
    if (branch < 0 || !rig.isAncestor(refs.pelvis, branch)) {
      this.problems.push(
        `no spine found: the upper arms' common ancestor ${branch >= 0 ? rig.name(branch) : "(none)"} is not below the pelvis ${rig.name(refs.pelvis)}`,
      );
      return;
    }
    refs.spine = [...rig.between(refs.pelvis, branch), branch];
    this.warnings.push(...dropZeroLengthSpineBones(rig, refs));

    // clavicles: the upper arm's parent unless it is a spine bone
    const clavicle = (upper: number): number => {
      const p = upper >= 0 ? rig.parent(upper) : -1;
      return p >= 0 && p !== refs.pelvis && !refs.spine.includes(p) ? p : -1;
    };
    refs.leftClavicle = clavicle(refs.leftUpperArm);
    refs.rightClavicle = clavicle(refs.rightUpperArm);

    // head: named (the shallowest below the arms' branch, outside the arms), else the spine's continuation
    const armTops = [refs.leftClavicle, refs.rightClavicle, ...uppers].filter((b) => b >= 0);
    const outsideArms = (b: number): boolean => !armTops.some((a) => rig.isAncestorOrSelf(a, b));
    const heads = this.withRole("head").filter((h) => rig.isAncestor(branch, h) && outsideArms(h)).sort(this.byDepth);
    if (heads.length > 0) {
      refs.head = heads[0]!;
    } else {
      refs.head = this.headByShape(refs.pelvis, branch, outsideArms);
      if (refs.head >= 0) {
        this.byShape = true;
        if (this.byNames) this.warnings.push(`no bone named like a head; the head is ${rig.name(refs.head)}, the spine's continuation above the arms.`);
      } else {
        this.warnings.push(`no head found above ${rig.name(branch)}: it has no child besides the arms (${this.considered("head")}).`);
      }
    }

    // eyes: named, below the head, left first
    if (refs.head >= 0) {
      const eyes = this.withRole("eye").filter((e) => rig.isAncestor(refs.head, e)).sort(this.byDepth);
      const first = (side: BoneSide | null): number[] => eyes.filter((e) => this.info[e]!.side === side).slice(0, side === null ? 2 : 1);
      refs.eyes = [...first("left"), ...first("right")];
      if (refs.eyes.length === 0) refs.eyes = first(null);
    }
  }

  /**
   * The head by shape: the child of the arms' branch that goes most upward, followed up its single-child
   * chain to the first bone that branches (eyes, jaw) or ends. Helpers (end markers…) are not followed.
   */
  private headByShape(pelvis: number, branch: number, outsideArms: (b: number) => boolean): number {
    const rig = this.rig;
    const up = vnorm(vsub(rig.pos(branch), rig.pos(pelvis)));
    const kids = rig.children[branch]!.filter((k) => outsideArms(k) && this.keep(k));
    if (kids.length === 0) return -1;
    const upness = (k: number): number => {
      const chain = rig.mainChain(k, this.keep);
      return vdot(vnorm(vsub(rig.pos(chain[chain.length - 1]!), rig.pos(branch))), up);
    };
    let cur = kids.reduce((a, b) => (upness(b) > upness(a) ? b : a));
    for (;;) {
      const next = rig.children[cur]!.filter(this.keep);
      if (next.length !== 1) return cur;
      cur = next[0]!;
    }
  }
}

/**
 * Detects the biped references of a humanoid skeleton from bone names, the hierarchy and rest
 * positions. `references` is null when anything required is missing or bad; `problems` then names every
 * issue and the bones that were considered, and `partial` holds what was found.
 */
export function detectBipedReferences(bones: readonly RigBoneInfo[], options: DetectionOptions = {}): DetectionResult {
  const inputProblems = skeletonInputProblems(bones);
  if (inputProblems.length > 0) {
    return { references: null, partial: emptyReferences(), problems: inputProblems, warnings: [], method: "names" };
  }
  return new Detector(bones, options).run();
}

/**
 * Leaves out of `refs.spine` each spine bone at the same position as the bone below it in the spine (the
 * pelvis or the previous spine bone, within 1e-6 × the character's size), as VRM 0.x rigs place their first
 * spine bone on the pelvis; the last spine bone (the arms' branch) is kept, so a pair ending with it drops
 * the lower one. Such a bone has no length for the spine to bend, and the IK leaves its rotation to the
 * animation. Returns one warning per bone dropped; a spine left with a zero-length bone (the last one on the
 * pelvis) stays a problem for {@link validateBipedReferences}.
 */
export function dropZeroLengthSpineBones(bones: readonly RigBoneInfo[] | RigSkeleton, refs: DetectedBipedReferences): string[] {
  const rig = bones instanceof RigSkeleton ? bones : new RigSkeleton(bones);
  const valid = (b: number): boolean => Number.isInteger(b) && b >= 0 && b < rig.bones.length;
  const warnings: string[] = [];
  if (!valid(refs.pelvis) || refs.spine.length < 2 || !refs.spine.every(valid)) return warnings;
  const tolerance = SAME_POSITION * rig.extent;
  const chain = [refs.pelvis, ...refs.spine];
  for (let i = 1; i < chain.length; ) {
    const below = chain[i - 1]!;
    const bone = chain[i]!;
    const last = i === chain.length - 1;
    if (!rig.isAncestor(below, bone) || rig.distance(below, bone) > tolerance || (last && i === 1)) {
      i++;
      continue;
    }
    // drop the spine bone of the pair that is neither the pelvis nor the arms' branch
    const drop = last ? i - 1 : i;
    const kept = chain[drop === i ? i - 1 : i]!;
    warnings.push(
      `zero-length bone in the spine: ${rig.name(chain[drop]!)} is at the same position as ${rig.name(kept)}; it was left out of the spine ` +
        `(the IK leaves its rotation to the animation).`,
    );
    chain.splice(drop, 1);
    if (drop < i) i = Math.max(1, i - 1);
  }
  if (chain.length - 1 !== refs.spine.length) refs.spine = chain.slice(1);
  return warnings;
}

/** The references' bones as [label, bone] pairs, optional ones only when set. */
function labelled(refs: DetectedBipedReferences): [string, number][] {
  const out: [string, number][] = [["pelvis", refs.pelvis]];
  refs.spine.forEach((b, i) => out.push([`spine[${i}]`, b]));
  if (refs.head >= 0) out.push(["head", refs.head]);
  for (const key of BIPED_LIMB_KEYS) out.push([key, refs[key]]);
  if (refs.leftClavicle >= 0) out.push(["leftClavicle", refs.leftClavicle]);
  if (refs.rightClavicle >= 0) out.push(["rightClavicle", refs.rightClavicle]);
  refs.eyes.forEach((b, i) => out.push([`eyes[${i}]`, b]));
  return out;
}

/**
 * Checks biped references against their skeleton. Problems: missing or out-of-range bones, a bone used
 * twice, a limb that is not a parent chain (upper above middle above end; twist bones between are
 * fine), a spine that is not a parent chain from the pelvis to a common ancestor of both upper arms,
 * thighs not below the pelvis, a clavicle not between the spine and its upper arm, and zero-length bones
 * (consecutive limb or spine bones at the same position, within 1e-6 × the character's size).
 * Warnings: a limb straight in this pose (bend direction unknown), a head not above the spine or inside
 * an arm, eyes not below the head.
 */
export function validateBipedReferences(bones: readonly RigBoneInfo[], refs: DetectedBipedReferences): ReferenceValidation {
  const problems = skeletonInputProblems(bones);
  const warnings: string[] = [];
  if (problems.length > 0) return { problems, warnings };
  const rig = new RigSkeleton(bones);
  const valid = (b: number): boolean => Number.isInteger(b) && b >= 0 && b < bones.length;
  const all = labelled(refs);

  for (const [label, b] of all) {
    if (!valid(b)) problems.push(b === -1 ? `${label} is missing` : `${label} is not a bone of the skeleton (index ${b})`);
  }
  if (refs.spine.length === 0) problems.push("there are no spine bones (at least one is needed between the pelvis and the arms)");
  for (const [key, label] of [
    ["head", "head"],
    ["leftClavicle", "leftClavicle"],
    ["rightClavicle", "rightClavicle"],
  ] as const) {
    if (refs[key] !== -1 && !valid(refs[key])) problems.push(`${label} is not a bone of the skeleton (index ${refs[key]})`);
  }
  const seen = new Map<number, string>();
  for (const [label, b] of all) {
    if (!valid(b)) continue;
    const first = seen.get(b);
    if (first !== undefined) problems.push(`${label} and ${first} are the same bone (${rig.name(b)})`);
    else seen.set(b, label);
  }
  if (problems.length > 0) return { problems, warnings };

  const name = (b: number): string => rig.name(b);
  const tolerance = SAME_POSITION * rig.extent;
  const zeroLength = (a: number, b: number, what: string): void => {
    if (rig.distance(a, b) <= tolerance) problems.push(`zero-length bone in the ${what}: ${name(a)} and ${name(b)} are at the same position`);
  };

  // spine
  const spine = [refs.pelvis, ...refs.spine];
  for (let i = 1; i < spine.length; i++) {
    if (!rig.isAncestor(spine[i - 1]!, spine[i]!)) {
      problems.push(`the spine is not a parent chain: ${name(spine[i]!)} (spine[${i - 1}]) is not below ${name(spine[i - 1]!)}`);
    } else {
      zeroLength(spine[i - 1]!, spine[i]!, "spine");
    }
  }
  const top = refs.spine[refs.spine.length - 1]!;
  for (const [label, b] of [
    ["leftUpperArm", refs.leftUpperArm],
    ["rightUpperArm", refs.rightUpperArm],
  ] as const) {
    if (!rig.isAncestor(top, b)) problems.push(`the spine does not lead to the arms: ${label} ${name(b)} is not below the last spine bone ${name(top)}`);
  }
  for (const [label, b] of [
    ["leftThigh", refs.leftThigh],
    ["rightThigh", refs.rightThigh],
  ] as const) {
    if (!rig.isAncestor(refs.pelvis, b)) problems.push(`${label} ${name(b)} is not below the pelvis ${name(refs.pelvis)}`);
  }

  // limbs
  const limbs: [string, number, number, number][] = [
    ["left arm", refs.leftUpperArm, refs.leftForearm, refs.leftHand],
    ["right arm", refs.rightUpperArm, refs.rightForearm, refs.rightHand],
    ["left leg", refs.leftThigh, refs.leftCalf, refs.leftFoot],
    ["right leg", refs.rightThigh, refs.rightCalf, refs.rightFoot],
  ];
  for (const [label, a, b, c] of limbs) {
    let chain = true;
    for (const [x, y] of [
      [a, b],
      [b, c],
    ] as const) {
      if (!rig.isAncestor(x, y)) {
        problems.push(`the ${label} is not a parent chain: ${name(y)} is not below ${name(x)}`);
        chain = false;
      } else {
        zeroLength(x, y, label);
      }
    }
    if (!chain) continue;
    const u = vsub(rig.pos(b), rig.pos(a));
    const v = vsub(rig.pos(c), rig.pos(b));
    if (vlen(u) > tolerance && vlen(v) > tolerance) {
      const bend = (Math.atan2(vlen(vcross(u, v)), vdot(u, v)) * 180) / Math.PI;
      if (bend < STRAIGHT_DEGREES) {
        warnings.push(
          `the ${label} ${name(a)} → ${name(b)} → ${name(c)} is straight in this pose (bent ${bend.toFixed(2)}°): the solver cannot read which way the ` +
            `${label.endsWith("arm") ? "elbow" : "knee"} bends and will assume it; set a bend goal if it bends the wrong way`,
        );
      }
    }
  }

  // clavicles, head, eyes
  for (const [label, clavicle, upper] of [
    ["leftClavicle", refs.leftClavicle, refs.leftUpperArm],
    ["rightClavicle", refs.rightClavicle, refs.rightUpperArm],
  ] as const) {
    if (clavicle < 0) continue;
    if (!rig.isAncestor(clavicle, upper) || !rig.isAncestor(top, clavicle)) {
      problems.push(`${label} ${name(clavicle)} is not between the last spine bone ${name(top)} and the upper arm ${name(upper)}`);
    }
  }
  if (refs.head >= 0) {
    const armTops = [refs.leftUpperArm, refs.rightUpperArm, refs.leftClavicle, refs.rightClavicle];
    const inArm = armTops.some((a) => a >= 0 && rig.isAncestorOrSelf(a, refs.head));
    if (!rig.isAncestor(top, refs.head) || inArm) warnings.push(`the head ${name(refs.head)} is not on the spine above ${name(top)}`);
  }
  for (const eye of refs.eyes) {
    if (refs.head < 0 || !rig.isAncestor(refs.head, eye)) warnings.push(`the eye ${name(eye)} is not below the head`);
  }
  return { problems, warnings };
}
