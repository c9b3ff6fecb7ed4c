/**
 * Stage 1 of reference detection: the limbs bone names give. Each limb is the tightest upper → middle → end
 * chain of bones named for those roles on one side; sides come from the names, from geometry when the names
 * cannot tell, and a limb with one bone unnamed is completed from the hierarchy.
 * @module
 */
import { type BoneSide, ROLE_WORDS } from "./bone-naming.js";
import { completeByHierarchy } from "./complete-by-hierarchy.js";
import type { LimbBones } from "./detect-topology.js";
import {
  type DetectorContext,
  LIMB_ROLES,
  type LimbKind,
  SIDES,
  type Slot,
  conflict,
  emptySlot,
  found,
  other,
} from "./detector-context.js";

/** Complete upper → middle → end chains named for `kind` on `side` (tightest, in-line duplicates merged). */
function namedTriples(
  ctx: DetectorContext,
  kind: LimbKind,
  side: BoneSide | null,
): { limbs: LimbBones[]; ambiguous: string | null } {
  const [r0, r1, r2] = LIMB_ROLES[kind];
  const rig = ctx.rig;
  const same = (b: number): boolean => ctx.info[b]!.side === side;
  const limbs: LimbBones[] = [];
  let ambiguous: string | null = null;
  for (const m of ctx.withRole(r1).filter(same).sort(ctx.byDepth)) {
    if (limbs.some((l) => rig.isAncestor(l.bones[1], m))) continue;
    const ups = ctx
      .withRole(r0)
      .filter((u) => same(u) && rig.isAncestor(u, m))
      .sort(ctx.byDepth);
    const ends = ctx
      .withRole(r2)
      .filter((e) => same(e) && rig.isAncestor(m, e))
      .sort(ctx.byDepth);
    if (ups.length === 0 || ends.length === 0) continue;
    const nearest = ends.filter((e) => rig.depth[e] === rig.depth[ends[0]!]);
    if (nearest.length > 1) {
      ambiguous ??=
        `the ${ctx.sideWord(side)} ${ROLE_WORDS[r2]} is ambiguous: ${ctx.chain([ups[0]!, m])} has ${nearest.length} ` +
        `${ROLE_WORDS[r2]}-like bones at the same depth below the ${ROLE_WORDS[r1]}: ${rig.names(nearest)} ` +
        `(no single ${ROLE_WORDS[r2]} bone)`;
      continue;
    }
    const end = nearest[0]!;
    limbs.push({ bones: [ups[0]!, m, end], toe: kind === "leg" ? ctx.toeOf(end) : -1 });
  }
  // two copies of one side's limb are one too many; unsided limbs may be the pair
  return { limbs: side === null ? limbs : deformingCopies(ctx, limbs), ambiguous };
}

/**
 * Of limbs the names give more than once (a Rigify export's ORG- and DEF- copies, MMD's legs and D legs), the ones
 * whose bones deform the mesh (skin weights), else the ones whose names say they deform (bone-naming's
 * `DEFORM_PREFIXES`, MMD's `D`); all when neither tells.
 */
function deformingCopies(ctx: DetectorContext, limbs: LimbBones[]): LimbBones[] {
  if (limbs.length < 2) return limbs;
  const weighted = (l: LimbBones): number => l.bones.filter((b) => ctx.rig.bones[b]!.deforms === true).length;
  const prefixed = (l: LimbBones): number => l.bones.filter((b) => ctx.info[b]!.deformPrefix).length;
  let kept = limbs;
  for (const [score, how] of [
    [weighted, "skin the mesh"],
    [prefixed, "are named to deform"],
  ] as const) {
    const best = Math.max(...kept.map(score));
    if (best === 0) continue;
    const better = kept.filter((l) => score(l) === best);
    if (better.length < kept.length) {
      // once per rig, not per limb: the references name the copies taken
      ctx.warnOnce(
        `limbs are named twice (a Rigify export's ORG- and DEF- copies, MMD's legs and D legs?): the copies that ` +
          `${how} were taken.`,
      );
    }
    kept = better;
  }
  return kept;
}

/**
 * Name-based limbs of one kind: complete chains, sides from names (geometry when names cannot tell),
 * a limb with one bone unnamed completed from the hierarchy. Records every named triple in
 * `ctx.allTriples` for the frame.
 */
export function limbsByName(ctx: DetectorContext, kind: LimbKind): Record<BoneSide, Slot> {
  const slots: Record<BoneSide, Slot> = { left: emptySlot(), right: emptySlot() };
  const left = namedTriples(ctx, kind, "left");
  const right = namedTriples(ctx, kind, "right");
  const none = namedTriples(ctx, kind, null);
  ctx.allTriples[kind] = [...left.limbs, ...right.limbs, ...none.limbs];
  const list = (ls: readonly LimbBones[]): string => ls.map((l) => ctx.chain(l.bones)).join(" and ");

  const geometric = (pair: [LimbBones, LimbBones], why: string): void => {
    const frame = ctx.frameFromNames();
    const sorted = ctx.sidesByGeometry(pair, frame);
    if (sorted === null) {
      const problem = `${why}: ${list(pair)}, and the skeleton's geometry cannot tell which is the left ${kind}`;
      for (const s of SIDES) slots[s] = conflict(problem);
      return;
    }
    const how = ctx.describeFrame(frame!);
    ctx.warnings.push(`${why}: ${list(pair)}; the sides were taken from their positions (${how}).`);
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
      ctx.warnings.push(
        `the ${s} ${kind} ${list(none.limbs)} has no side in its names; it was taken as the ${s} one, ` +
          `opposite ${ctx.chain(slots[other(s)].limb!.bones)}.`,
      );
    } else if (none.limbs.length > 0) {
      for (const s of missing) {
        slots[s] = conflict(
          `the ${s} ${kind} is unclear: ${none.limbs.length} ${kind}s without a side in their names: ` +
            list(none.limbs),
        );
      }
    }
  }
  for (const s of SIDES) {
    if (slots[s].limb === null) {
      const ambiguous = sided[s].ambiguous;
      if (slots[s].problem === null && ambiguous !== null) slots[s] = conflict(ambiguous);
      slots[s] = completeByHierarchy(ctx, kind, s, slots[s]);
    }
    if (slots[s].partial.some((b) => b >= 0)) ctx.byNames = true;
  }
  return slots;
}
