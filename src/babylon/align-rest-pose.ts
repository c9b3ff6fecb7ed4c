import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { BIPED_NAME_MAP_OPTION_KINDS, type BipedNameMapOptions } from "./biped-name-map.js";
import { checkLoggedOptions } from "./option-check.js";
import { type BipedReferences, resolveReferences } from "./biped-references.js";

/** The limb segments turned, each a bone and the joint it points at, parents before children. */
const SEGMENTS = [
  ["Clavicle", "UpperArm"],
  ["UpperArm", "Forearm"],
  ["Forearm", "Hand"],
  ["Thigh", "Calf"],
  ["Calf", "Foot"],
] as const;

/**
 * Each bone's rest pose in world space: its rest matrix on its parent's rest pose, up to the skeleton's first
 * bone, which stands on what holds it now (its TransformNode's parent in a glTF file, else the skinned mesh).
 */
function restWorld(skeleton: Skeleton): Map<Bone, Matrix> {
  const world = new Map<Bone, Matrix>();
  const mesh = skeleton.getScene().meshes.find((m) => m.skeleton === skeleton);
  const of = (bone: Bone): Matrix => {
    const known = world.get(bone);
    if (known !== undefined) return known;
    const parent = bone.getParent();
    const node = bone.getTransformNode();
    const base =
      parent !== null
        ? of(parent)
        : node !== null
          ? (node.parent?.computeWorldMatrix(true) ?? Matrix.IdentityReadOnly)
          : (mesh?.computeWorldMatrix(true) ?? Matrix.IdentityReadOnly);
    const m = bone.getRestMatrix().multiply(base);
    world.set(bone, m);
    return m;
  };
  for (const bone of skeleton.bones) of(bone);
  return world;
}

/**
 * Puts `skeleton`'s bones' TransformNodes in the rest pose, world matrices current, and returns a function that
 * puts back the pose they held (position, rotation, scaling, as they were set).
 */
function holdAtRest(skeleton: Skeleton): () => void {
  const held = skeleton.bones.flatMap((bone) => {
    const node = bone.getTransformNode();
    if (node === null) return [];
    const pose = {
      node,
      position: node.position.clone(),
      rotation: node.rotation.clone(),
      rotationQuaternion: node.rotationQuaternion?.clone() ?? null,
      scaling: node.scaling.clone(),
    };
    bone.returnToRest();
    return [pose];
  });
  // parents first: a node's world matrix is built on its parent's as it stands
  const update = (bone: Bone): void => {
    bone.getTransformNode()?.computeWorldMatrix(true);
    for (const child of bone.getChildren()) update(child);
  };
  for (const bone of skeleton.bones) if (bone.getParent() === null) update(bone);
  return () => {
    for (const p of held) {
      p.node.position.copyFrom(p.position);
      p.node.rotation.copyFrom(p.rotation);
      if (p.rotationQuaternion === null) p.node.rotationQuaternion = null;
      else if (p.node.rotationQuaternion === null) p.node.rotationQuaternion = p.rotationQuaternion;
      else p.node.rotationQuaternion.copyFrom(p.rotationQuaternion);
      p.node.scaling.copyFrom(p.scaling);
    }
  };
}

/** The unit direction from `from`'s origin to `to`'s in `world`. */
function direction(world: Map<Bone, Matrix>, from: Bone, to: Bone): Vector3 {
  return world.get(to)!.getTranslation().subtract(world.get(from)!.getTranslation()).normalize();
}

/** The segment's bones of `refs`, or null when the rig has no such bone (a clavicle). */
function segment(
  refs: BipedReferences,
  side: "left" | "right",
  [a, b]: (typeof SEGMENTS)[number],
): [Bone, Bone] | null {
  const from = refs[`${side}${a}`];
  const to = refs[`${side}${b}`];
  return from === null || to === null ? null : [from, to];
}

/**
 * Turns `target`'s rest pose so that its arms and legs (clavicle, upper arm, forearm, thigh, calf) point as
 * `source`'s do in its rest pose, holds `source`'s bones in their rest pose, and returns a function that puts
 * back the target's own rest pose and the pose the source's bones held.
 *
 * Babylon's `AnimatorAvatar.retargetAnimationGroup` gives each target bone the turn its source bone makes away
 * from the source's rest pose, starting from the target's rest pose. Between rigs resting alike that is the
 * clip's motion; a clip made on a T-posed character turns the arms of an A-posed one (or one whose arms hang)
 * from there, by as much as the rest poses differ: a walk's swinging arms go into the body. Retarget between
 * this call and the returned function's, so the clip is made against matching rest poses; the retargeted keys
 * hold whole rotations, so the clip plays the same once the rest pose is back:
 *
 * ```ts
 * const map = bipedNameMap(mixamoSkeleton, heroSkeleton);
 * const restore = alignRestPose(mixamoSkeleton, heroSkeleton);
 * const walk = avatar.retargetAnimationGroup(mixamoWalk, { mapNodeNames: map });
 * restore();
 * ```
 *
 * Each segment turns by the shortest arc about its bone's origin, parents first, so the twist about a limb is
 * the target's own. Directions are compared in world space, as AnimatorAvatar compares poses: load both
 * characters facing the same way. The target's bones keep the pose they hold (a bone without a TransformNode
 * that is at rest follows its rest pose meanwhile). AnimatorAvatar takes the source's nodes as they stand for its
 * rest pose, so a clip retargeted while the source plays another (a glTF file starts its first clip on load)
 * would carry that pose's difference: the source is held at rest until the returned function runs. A skeleton
 * whose references cannot be found throws the FBBIKError FullBodyBipedIK's `create` would; `options` overrides
 * them as for {@link bipedNameMap}.
 */
export function alignRestPose(source: Skeleton, target: Skeleton, options: BipedNameMapOptions = {}): () => void {
  checkLoggedOptions("alignRestPose", options, BIPED_NAME_MAP_OPTION_KINDS);
  const s = resolveReferences(source, options.sourceReferences ?? {}).references;
  const t = resolveReferences(target, options.targetReferences ?? {}).references;
  const saved = target.bones.map((b) => b.getRestMatrix().clone());
  const releaseSource = holdAtRest(source);
  const sourceWorld = restWorld(source);
  const turn = new Quaternion();
  for (const part of SEGMENTS) {
    for (const side of ["left", "right"] as const) {
      const from = segment(s, side, part);
      const to = segment(t, side, part);
      if (from === null || to === null) continue;
      // the segments above have turned: the target's rest pose is read anew
      const world = restWorld(target);
      const want = direction(sourceWorld, from[0], from[1]);
      const have = direction(world, to[0], to[1]);
      if (Vector3.Dot(want, have) > 1 - 1e-12) continue;
      Quaternion.FromUnitVectorsToRef(have, want, turn);
      const bone = to[0];
      const parent = bone.getParent();
      if (parent === null) continue;
      const boneWorld = world.get(bone)!;
      const o = boneWorld.getTranslation();
      // about the bone's origin: W · T(−o) · R · T(o), then back into its parent's space
      const turned = boneWorld
        .multiply(Matrix.Translation(-o.x, -o.y, -o.z))
        .multiply(Matrix.FromQuaternionToRef(turn, new Matrix()))
        .multiply(Matrix.Translation(o.x, o.y, o.z));
      bone.setRestMatrix(turned.multiply(Matrix.Invert(world.get(parent)!)));
    }
  }
  return () => {
    for (let i = 0; i < saved.length; i++) target.bones[i]!.setRestMatrix(saved[i]!);
    releaseSource();
  };
}
