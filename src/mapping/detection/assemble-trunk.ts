/**
 * Stage 3 of reference detection: the trunk from the limbs, by FinalIK's structural rules. The pelvis is
 * the deepest bone named like one above both thighs and the arms (else their common ancestor); the spine
 * runs from the pelvis (excluded) to the first common ancestor of the upper arms; a clavicle is an upper
 * arm's parent unless that is a spine bone; the head is named, else the spine's continuation above the arms.
 * @module
 */
import type { BoneSide } from "./bone-naming.js";
import type { DetectedBipedReferences } from "./detect-references.js";
import type { DetectorContext } from "./detector-context.js";
import { vdot, vnorm, vsub } from "./rig-skeleton.js";
import { dropZeroLengthSpineBones } from "./validate-references.js";

/**
 * Pelvis, spine, head, clavicles and eyes from the limbs already in `refs` (FinalIK's rules), written into
 * `refs`. Stops at the first part it cannot find, with a problem in `ctx.problems`.
 */
export function assembleTrunk(ctx: DetectorContext, refs: DetectedBipedReferences): void {
  const rig = ctx.rig;
  const thighs = [refs.leftThigh, refs.rightThigh].filter((b) => b >= 0);
  const uppers = [refs.leftUpperArm, refs.rightUpperArm].filter((b) => b >= 0);
  const limbRoots = [...thighs, ...uppers];
  if (limbRoots.length === 0) return;

  // pelvis: the deepest bone named like one above both thighs and both upper arms, else their common ancestor
  const named = ctx.withRole("pelvis");
  const above = named.filter((p) => limbRoots.every((b) => rig.isAncestor(p, b))).sort(ctx.byDepth);
  if (above.length > 0) {
    refs.pelvis = above[above.length - 1]!;
    ctx.byNames = true;
  } else if (thighs.length === 2) {
    const common = rig.commonAncestor(uppers.length === 2 ? limbRoots : thighs);
    if (common < 0 || limbRoots.includes(common)) {
      ctx.problems.push(
        `no pelvis found: the thighs ${rig.names(thighs)} and upper arms ${rig.names(uppers)} ` +
          `have no common ancestor above them all` +
          (common < 0 ? separateRoots(ctx, uppers.length === 2 ? limbRoots : thighs) : ""),
      );
      return;
    }
    refs.pelvis = common;
    if (ctx.info[common]!.role !== "pelvis") {
      ctx.byShape = true;
      if (ctx.byNames) {
        ctx.warnings.push(
          `no bone named like a pelvis is above both thighs and the arms (considered: ${rig.names(named)}); ` +
            `the pelvis is their common ancestor ${rig.name(common)}.`,
        );
      }
    }
  } else {
    ctx.problems.push(
      `no pelvis found: it needs both thighs (found: ${rig.names(thighs)}); ${ctx.considered("pelvis")}`,
    );
    return;
  }

  // spine: from the pelvis (excluded) to the first common ancestor of the upper arms
  if (uppers.length < 2) return;
  const branch = rig.commonAncestor(uppers);
  if (branch < 0 || !rig.isAncestor(refs.pelvis, branch)) {
    ctx.problems.push(
      `no spine found: the upper arms' common ancestor ${branch >= 0 ? rig.name(branch) : "(none)"} ` +
        `is not below the pelvis ${rig.name(refs.pelvis)}`,
    );
    return;
  }
  // helpers in line (pivot nodes) are carried by the bones around them, as in the limbs
  refs.spine = [...rig.between(refs.pelvis, branch).filter(ctx.keep), branch];
  ctx.warnings.push(...dropZeroLengthSpineBones(rig, refs));

  refs.leftClavicle = clavicleOf(ctx, refs, refs.leftUpperArm);
  refs.rightClavicle = clavicleOf(ctx, refs, refs.rightUpperArm);

  // head: named (the shallowest below the arms' branch, outside the arms), else the spine's continuation
  const armTops = [refs.leftClavicle, refs.rightClavicle, ...uppers].filter((b) => b >= 0);
  const outsideArms = (b: number): boolean => !armTops.some((a) => rig.isAncestorOrSelf(a, b));
  const heads = ctx
    .withRole("head")
    .filter((h) => rig.isAncestor(branch, h) && outsideArms(h))
    .sort(ctx.byDepth);
  if (heads.length > 0) {
    refs.head = numberedHeadsTop(ctx, heads[0]!);
  } else {
    refs.head = headByShape(ctx, refs.pelvis, branch, outsideArms);
    if (refs.head >= 0) {
      ctx.byShape = true;
      if (ctx.byNames) {
        ctx.warnings.push(
          `no bone named like a head; the head is ${rig.name(refs.head)}, the spine's continuation above the arms.`,
        );
      }
    } else {
      ctx.warnings.push(
        `no head found above ${rig.name(branch)}: it has no child besides the arms (${ctx.considered("head")}).`,
      );
    }
  }

  // eyes: named, below the head, left first
  if (refs.head >= 0) {
    const eyes = ctx
      .withRole("eye")
      .filter((e) => rig.isAncestor(refs.head, e))
      .sort(ctx.byDepth);
    const first = (side: BoneSide | null): number[] =>
      eyes.filter((e) => ctx.info[e]!.side === side).slice(0, side === null ? 2 : 1);
    refs.eyes = [...first("left"), ...first("right")];
    if (refs.eyes.length === 0) refs.eyes = first(null);
  }
}

/**
 * The last of a run of head bones numbered in line below `head` (Tripo's `tripo::Head_0` → `Head_1`: the bones below
 * the last are the neck), or `head` itself. Only a numbered name continues a numbered one: `head` → `head.001`, a
 * bone extruded from the head in Blender, stays the head's child.
 */
function numberedHeadsTop(ctx: DetectorContext, head: number): number {
  const rig = ctx.rig;
  const numbered = (b: number): RegExpExecArray | null => /^(.*?)(\d+)$/.exec(rig.name(b));
  for (let cur = head; ; ) {
    const at = numbered(cur);
    const next =
      at === null
        ? undefined
        : rig.children[cur]!.find((k) => {
            const n = numbered(k);
            return n !== null && n[1] === at[1] && Number(n[2]) > Number(at[2]) && ctx.info[k]!.role === "head";
          });
    if (next === undefined) return cur;
    cur = next;
  }
}

/**
 * Why limbs have no common ancestor: the root bone each hangs from (the limbs in separate hierarchies), and for
 * Rigify's DEF- limbs the export that does it: "Deform Bones Only" drops the ORG- bones they hang from.
 */
function separateRoots(ctx: DetectorContext, limbs: readonly number[]): string {
  const rig = ctx.rig;
  const top = (b: number): number => (rig.parent(b) < 0 ? b : top(rig.parent(b)));
  const where = limbs
    .map((b) => (top(b) === b ? `${rig.name(b)} is a root bone` : `${rig.name(b)} hangs from root ${rig.name(top(b))}`))
    .join(", ");
  const rigify = limbs.every((b) => ctx.info[b]!.deformPrefix)
    ? ": a Rigify rig exported with only its deform bones? Rigify hangs each DEF- limb from an ORG- bone, which " +
      "that export leaves out, so each limb becomes a root of its own; give the deform bones one hierarchy " +
      "before exporting (see Rigify in docs/API.md)"
    : "";
  return ` (they are in separate hierarchies: ${where})${rigify}`;
}

/**
 * FinalIK's clavicle: the upper arm's parent unless that is the pelvis or a spine bone (-1 then); helpers between
 * (pivot nodes) are passed over.
 */
export function clavicleOf(ctx: DetectorContext, refs: DetectedBipedReferences, upper: number): number {
  let p = upper >= 0 ? ctx.rig.parent(upper) : -1;
  while (p >= 0 && !ctx.keep(p)) p = ctx.rig.parent(p);
  return p >= 0 && p !== refs.pelvis && !refs.spine.includes(p) ? p : -1;
}

/**
 * The head by shape: the child of the arms' branch that goes most upward, followed up its single-child
 * chain to the first bone that branches (eyes, jaw) or ends. Helpers (end markers…) are not followed.
 */
function headByShape(
  ctx: DetectorContext,
  pelvis: number,
  branch: number,
  outsideArms: (b: number) => boolean,
): number {
  const rig = ctx.rig;
  const up = vnorm(vsub(rig.pos(branch), rig.pos(pelvis)));
  const kids = rig.children[branch]!.filter((k) => outsideArms(k) && ctx.keep(k));
  if (kids.length === 0) return -1;
  const upness = (k: number): number => {
    const chain = rig.mainChain(k, ctx.keep);
    return vdot(vnorm(vsub(rig.pos(chain[chain.length - 1]!), rig.pos(branch))), up);
  };
  let cur = kids.reduce((a, b) => (upness(b) > upness(a) ? b : a));
  for (;;) {
    const next = rig.children[cur]!.filter(ctx.keep);
    if (next.length !== 1) return cur;
    cur = next[0]!;
  }
}
