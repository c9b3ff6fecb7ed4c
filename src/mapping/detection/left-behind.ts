/**
 * Bones that move the mesh where the IK cannot move them: outside the pelvis's hierarchy (and not above it), so
 * neither the body nor the limbs carry them. Their skin stays where the animation puts it and tears from the
 * limbs' as the IK moves the body: Blender's default glTF export of a Rigify rig hangs its DEF- trunk from `root`,
 * beside the ORG- trunk that carries the DEF- limbs.
 * @module
 */
import { parseBoneName } from "./bone-naming.js";
import type { RigSkeleton } from "./rig-skeleton.js";

/** How many of the bones a warning names. */
const LISTED = 6;

/**
 * The bones that skin weights tie to the mesh outside `pelvis`'s hierarchy and not above it, in list order (none
 * when no mesh was read: without skin nothing tears). A bone's `deforms` is read only for bones in that place, so a
 * rig without such bones costs no mesh read.
 */
export function deformingBonesLeftBehind(rig: RigSkeleton, pelvis: number): number[] {
  const out: number[] = [];
  for (let b = 0; b < rig.bones.length; b++) {
    if (rig.isAncestorOrSelf(pelvis, b) || rig.isAncestor(b, pelvis)) continue;
    if (rig.bones[b]!.deforms === true) out.push(b);
  }
  return out;
}

/** The warning for {@link deformingBonesLeftBehind}'s bones (null for none). */
export function leftBehindWarning(rig: RigSkeleton, pelvis: number): string | null {
  const left = deformingBonesLeftBehind(rig, pelvis);
  if (left.length === 0) return null;
  const names = rig.names(left.slice(0, LISTED)) + (left.length > LISTED ? ", …" : "");
  // a DEF- bone left beside an ORG- trunk: the export, not the rig, is at fault, and there is a known remedy
  const rigify =
    left.some((b) => parseBoneName(rig.name(b)).deformPrefix) && /^ORG-/.test(rig.name(pelvis))
      ? " This is a Rigify rig exported with every bone: its DEF- trunk hangs from root, beside the ORG- trunk that " +
        "carries the DEF- limbs. Give the deform bones one hierarchy before exporting (see Rigify in docs/API.md)."
      : "";
  return (
    `${left.length} bones that move the mesh are not below the pelvis ${rig.name(pelvis)} and do not follow the ` +
    `IK (${names}): their skin stays where the animation puts it and tears from the limbs' as the body moves.` +
    rigify
  );
}
