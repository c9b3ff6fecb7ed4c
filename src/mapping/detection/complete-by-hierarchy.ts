/**
 * Part of stage 1 of reference detection: a limb the names give all but one bone of, completed from the
 * hierarchy; otherwise the problem says which bones were considered and why they were not taken.
 * @module
 */
import { type BoneRole, type BoneSide, ROLE_WORDS } from "./bone-naming.js";
import {
  type DetectorContext,
  LIMB_ROLES,
  type LimbKind,
  type Slot,
  type Triple,
  an,
  found,
} from "./detector-context.js";

/**
 * Completes a limb with one bone unnamed from the hierarchy: the only usable bone between a named
 * upper and end, the only child of a named middle (or a single end-marker leaf, with a warning), the
 * parent of a named middle. Otherwise explains what was considered. A slot that already has a problem
 * (the names contradict each other) only gets its partial bones.
 */
export function completeByHierarchy(ctx: DetectorContext, kind: LimbKind, side: BoneSide, slot: Slot): Slot {
  const [r0, r1, r2] = LIMB_ROLES[kind];
  const [w0, w1, w2] = [ROLE_WORDS[r0], ROLE_WORDS[r1], ROLE_WORDS[r2]];
  const rig = ctx.rig;
  const ofSide = (role: BoneRole): number[] =>
    ctx
      .withRole(role)
      .filter((b) => ctx.info[b]!.side === side)
      .sort(ctx.byDepth);
  const ups = ofSide(r0);
  const mids = ofSide(r1);
  const ends = ofSide(r2);
  const usable = (b: number): boolean => ctx.keep(b) && ctx.info[b]!.role === null;
  const why = (b: number): string => {
    const n = ctx.info[b]!;
    return `${rig.name(b)} (${n.excludedBy !== null ? n.excludedBy : `named like ${an(ROLE_WORDS[n.role!])}`})`;
  };
  const filled = (bones: Triple, note: string): Slot => {
    ctx.byNames = true;
    ctx.byShape = true;
    ctx.warnings.push(`the ${side} ${kind} ${ctx.chain(bones)}: ${note}.`);
    return found({ bones, toe: kind === "leg" ? ctx.toeOf(bones[2]) : -1 });
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
      if (pool.length === 1) {
        return filled([u, pool[0]!, e], `the ${w1} is the only unnamed bone between the ${w0} and the ${w2}`);
      }
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
    const markers = kids.filter((k) => ctx.info[k]!.excludedBy !== null && rig.children[k]!.length === 0);
    const elsewhere = ends.filter((e) => !rig.isAncestor(m, e));
    const hangs = elsewhere
      .map((e) => `${rig.name(e)} hangs from ${rig.parent(e) >= 0 ? rig.name(rig.parent(e)) : "nothing (a root bone)"}`)
      .join(", ");
    if (pool.length === 0 && markers.length === 1) {
      return filled(
        [u, m, markers[0]!],
        `there is no ${w2} bone below the ${w1}, so its end marker ${rig.name(markers[0]!)} stands in for the ${w2}: ` +
          `the IK places the ${w1}'s tip, but there is no ${w2} rotation to drive` +
          (hangs ? ` (${hangs} and will not follow the ${kind})` : ""),
      );
    }
    const children = kids.map((k) => (usable(k) ? rig.name(k) : why(k))).join(", ");
    return {
      limb: null,
      conflict: false,
      partial: [u, m, -1],
      problem:
        `no ${side} ${w2} found: the ${side} ${kind} ${ctx.chain([u, m])} has no ${w2} below the ${w1}` +
        (kids.length > 0 ? ` (the ${w1}'s children: ${children})` : "") +
        (hangs ? `; ${hangs} instead` : ""),
    };
  }
  // a named middle and end with nothing named above the middle
  for (const m of mids) {
    const e = ends.find((b) => rig.isAncestor(m, b));
    if (e === undefined) continue;
    const p = rig.parent(m);
    if (p >= 0 && usable(p)) return filled([p, m, e], `the ${w0} is the ${w1}'s unnamed parent`);
    const parent = p >= 0 ? why(p) : "nothing (a root bone)";
    return {
      limb: null,
      conflict: false,
      partial: [-1, m, e],
      problem: `no ${side} ${w0} found above ${rig.name(m)}: its parent is ${parent}`,
    };
  }
  return {
    limb: null,
    conflict: false,
    partial: [ups[0] ?? -1, mids[0] ?? -1, ends[0] ?? -1],
    problem: `no ${side} ${kind} found by name: ${[r0, r1, r2].map((r) => ctx.considered(r)).join("; ")}`,
  };
}
