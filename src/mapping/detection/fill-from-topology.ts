/**
 * Stage 2 of reference detection: the limbs names did not give, from the hierarchy's shape
 * ({@link detectTopology}), sides from the names on the limb's bones when they disagree, else from
 * geometry; or, when the names gave every limb, a check of their sides against geometry.
 * @module
 */
import { type BoneSide, ROLE_WORDS } from "./bone-naming.js";
import { type LimbBones, bodyAxes, detectTopology } from "./detect-topology.js";
import { type DetectorContext, LIMB_ROLES, type LimbSlots, SIDES, an, found, mean, other } from "./detector-context.js";
import { type P3, vdot, vsub } from "./rig-skeleton.js";

/** Majority side named in a limb's subtree (fingers and toes count), or null. */
function sideHint(ctx: DetectorContext, limb: LimbBones): BoneSide | null {
  let score = 0;
  const visit = (b: number): void => {
    const s = ctx.info[b]!.side;
    if (s !== null) score += s === "left" ? 1 : -1;
    for (const c of ctx.rig.children[b]!) visit(c);
  };
  visit(limb.bones[0]);
  return score > 0 ? "left" : score < 0 ? "right" : null;
}

/**
 * Fills unresolved slots from the hierarchy's shape. A limb the names contradict, one whose bones are
 * named for other roles or are helpers, or one overlapping bones already used is not taken: its slot's
 * problem says so. Returns why the shape gives no limbs at all, else null.
 */
export function fillFromTopology(ctx: DetectorContext, slots: LimbSlots): string | null {
  const rig = ctx.rig;
  const topo = detectTopology(rig, ctx.keep);
  if (typeof topo === "string") {
    const what = (["leg", "arm"] as const).flatMap((k) =>
      SIDES.filter((s) => slots[k][s].limb === null).map((s) => `${s} ${k}`),
    );
    return `the hierarchy's shape does not give the missing limbs (${what.join(", ")}) either: ${topo}`;
  }
  const frame = bodyAxes(rig, topo.legs, rig.pos(topo.armBranch), ctx.leftHanded);
  const used = new Set<number>();
  for (const k of ["leg", "arm"] as const) {
    for (const s of SIDES) for (const b of slots[k][s].limb?.bones ?? []) used.add(b);
  }

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
      const hints = [sideHint(ctx, pair[0]), sideHint(ctx, pair[1])];
      if (hints[0] !== null && hints[0] !== hints[1]) {
        sides = { [hints[0]]: pair[0], [other(hints[0])]: pair[1] } as Record<BoneSide, LimbBones>;
      } else if (hints[1] !== null && hints[0] === null) {
        sides = { [hints[1]]: pair[1], [other(hints[1])]: pair[0] } as Record<BoneSide, LimbBones>;
      } else {
        sides = ctx.sidesByGeometry(pair, frame);
        if (sides !== null && hints[0] !== null) {
          ctx.warnings.push(
            `the names in both ${kind}s say ${hints[0]} (${ctx.chain(pair[0].bones)}; ${ctx.chain(pair[1].bones)}); ` +
              `their sides were taken from their positions instead (${ctx.describeFrame(frame!)}).`,
          );
        }
      }
    }
    for (const s of SIDES) {
      const slot = slots[kind][s];
      if (slot.limb !== null) continue;
      const limb = sides?.[s];
      if (limb === undefined) {
        slot.problem =
          `${slot.problem ?? `no ${s} ${kind}`}; the hierarchy's shape gives two ${kind}s ` +
          `but cannot tell their sides`;
        continue;
      }
      if (slot.conflict) {
        slot.problem = `${slot.problem}; the hierarchy's shape suggests ${ctx.chain(limb.bones)}`;
        continue;
      }
      const clash = limb.bones.filter((b) => used.has(b));
      const misnamed = limb.bones.flatMap((b, i) => {
        const n = ctx.info[b]!;
        if (n.excludedBy !== null) return [`${rig.name(b)} is a helper bone (${n.excludedBy})`];
        const expected = LIMB_ROLES[kind][i]!;
        if (n.role === null || n.role === expected) return [];
        return [`${rig.name(b)} is named like ${an(ROLE_WORDS[n.role])}, not ${an(ROLE_WORDS[expected])}`];
      });
      if (misnamed.length > 0) {
        slot.problem =
          `${slot.problem ?? `no ${s} ${kind}`}; the hierarchy's shape suggests ${ctx.chain(limb.bones)}, ` +
          `but ${misnamed.join(", ")}`;
        continue;
      }
      if (clash.length > 0) {
        slot.problem =
          `${slot.problem ?? `no ${s} ${kind}`}; the hierarchy's ${s} ${kind} ${ctx.chain(limb.bones)} ` +
          `overlaps bones already used (${rig.names(clash)})`;
        continue;
      }
      if (slot.problem !== null && ctx.byNames) {
        ctx.warnings.push(
          `the ${s} ${kind} ${ctx.chain(limb.bones)} was found from the hierarchy's shape (by name: ${slot.problem}).`,
        );
      }
      slots[kind][s] = found(limb);
      for (const b of limb.bones) used.add(b);
      ctx.byShape = true;
    }
  }
  return null;
}

/** Warns when the bones named left lie on the character's right as the feet tell it (names gave every limb). */
export function checkNamedSides(ctx: DetectorContext, slots: LimbSlots): void {
  const frame = ctx.frameFromNames();
  if (frame === null || frame.source === "assumed") return;
  for (const kind of ["leg", "arm"] as const) {
    const l = slots[kind].left.limb;
    const r = slots[kind].right.limb;
    if (l === null || r === null) continue;
    const centre = (x: LimbBones): P3 => mean(x.bones.map((b) => ctx.rig.pos(b)));
    if (vdot(vsub(centre(l), centre(r)), frame.left) < 0) {
      const advice = ctx.handednessGiven
        ? `the character is mirrored in its frame (${ctx.leftHanded ? "left" : "right"}-handed: the scene's ` +
          `handedness, turned by any mirror above the skeleton); the names were kept (give the limbs in ` +
          `\`references\` to choose otherwise).`
        : `the skeleton may be mirrored, or its positions left-handed (pass { leftHanded: true } to ` +
          `detectBipedReferences); the names were kept.`;
      ctx.warnings.push(
        `the ${kind} named left (${ctx.chain(l.bones)}) lies on the character's right as its ${frame.source} tell it ` +
          `(${ctx.describeFrame(frame)}): ${advice}`,
      );
    }
  }
}
