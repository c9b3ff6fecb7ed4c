/** Spawning a character: an instance of the loaded model, arms lowered, the IK attached, an idle. */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { DirectionalLight } from "@babylonjs/core/Lights/directionalLight";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik";
import { resolveBipedReferences } from "../../src/babylon/biped-references";
import { modelMeshes } from "./model-meshes";
import { jointOf, localRotation, parentWorldMatrix } from "./bone-world";
import { type Character, type Ctx, bonePos } from "./kit";
import { proceduralIdle } from "./procedural-idle";
import { lightFront } from "./key-light";

let spawned = 0;

/** Instantiates the loaded model at `position`, attaches the IK and starts a procedural idle. */
export function spawnCharacter(ctx: Ctx, position: Vector3): Character {
  const k = spawned++;
  const entries = ctx.container.instantiateModelsToScene((n) => `${n}#${k}`, false, { doNotInstantiate: true });
  for (const g of entries.animationGroups) g.stop();
  const root = entries.rootNodes[0] as TransformNode;
  root.position.addInPlace(position);
  const skeleton = entries.skeletons[0];
  if (skeleton === undefined) throw new Error("The model has no skeleton.");
  const meshes = modelMeshes(root);
  for (const m of meshes) {
    ctx.shadows.addShadowCaster(m, false);
    m.receiveShadows = true;
    m.isPickable = false;
    // the IK moves skinned vertices past the bind pose's bounds, by which Babylon would cull a visible character
    m.alwaysSelectAsActiveMesh = true;
  }
  const update = (n: TransformNode) => {
    n.computeWorldMatrix(true);
    for (const ch of n.getChildTransformNodes(true)) update(ch);
  };
  update(root);
  {
    // the IK stores the bones' default pose when it is created: lower the arms first (the references
    // detected without an IK)
    const r = resolveBipedReferences(skeleton).references;
    // arms down from the T-pose (a relaxed stance), checked numerically: a mirrored glTF root can flip the turn
    for (const [upper, lower] of [
      [r.leftUpperArm, r.leftForearm],
      [r.rightUpperArm, r.rightForearm],
    ] as const) {
      const n = jointOf(upper);
      const dirNow = () => bonePos(lower).subtract(bonePos(upper)).normalize();
      const d0 = dirNow();
      const down = new Vector3(0, -1, 0);
      const axis = Vector3.Cross(d0, down);
      if (axis.lengthSquared() < 1e-6) continue;
      axis.normalize();
      const angle = Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(d0, down)))) - 0.35;
      if (angle <= 0) continue;
      const before = localRotation(n);
      // the turn in the parent's coordinates (a mirrored parent is just other coordinates there)
      const parentInv = parentWorldMatrix(upper).clone().invert();
      const dp = Vector3.TransformNormal(d0, parentInv).normalize();
      const target = Vector3.TransformNormal(
        d0.scale(Math.cos(angle)).add(Vector3.Cross(axis, d0).scale(Math.sin(angle))),
        parentInv,
      ).normalize();
      const ax = Vector3.Cross(dp, target);
      if (ax.lengthSquared() < 1e-9) continue;
      const turn = Quaternion.RotationAxis(
        ax.normalize(),
        Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(dp, target)))),
      );
      let best = before;
      let bestDot = Vector3.Dot(d0, down);
      for (const q of [turn.multiply(before), before.multiply(turn)]) {
        n.rotationQuaternion = q;
        update(root);
        const dot = Vector3.Dot(dirNow(), down);
        if (dot > bestDot + 1e-3) {
          best = q;
          bestDot = dot;
        }
      }
      n.rotationQuaternion = best;
      update(root);
    }
  }
  const ik = FullBodyBipedIK.create(ctx.scene, skeleton);
  // world matrices, parents first (no render: a crowd spawns a hundred of these)
  update(root);
  const r = ik.references;
  let lo = Infinity;
  let hi = -Infinity;
  for (const b of skeleton.bones) {
    const y = bonePos(b).y;
    lo = Math.min(lo, y);
    hi = Math.max(hi, y);
  }
  const foot = bonePos(r.leftFoot);
  const toe = r.leftFoot.children[0];
  const forward = toe !== undefined ? bonePos(toe).subtract(foot) : new Vector3(0, 0, 1);
  forward.y = 0;
  forward.normalize();
  const right = bonePos(r.rightUpperArm).subtract(bonePos(r.leftUpperArm));
  right.y = 0;
  right.normalize();
  const nodes = [r.spine[0], r.leftUpperArm, r.rightForearm].filter((b) => b !== undefined).map((b) => jointOf(b!));
  const idle = proceduralIdle(ctx.scene, nodes, `idle#${k}`, { amplitude: 0.12, frames: 90 });
  idle.start(true, 1);
  if (ctx.paused()) idle.pause();
  const c: Character = {
    root,
    skeleton,
    ik,
    ikName: "FullBodyBipedIK",
    idle,
    clips: entries.animationGroups,
    clip: -1,
    extra: [],
    h: hi - lo,
    forward,
    right,
    meshes,
    animated: {},
  };
  // the first character: the sun on its front, whichever way its file faces
  const sun = ctx.shadows.getLight?.();
  if (ctx.characters.length === 0 && sun instanceof DirectionalLight) lightFront(ctx.scene, sun, forward);
  ctx.iks.push(ik);
  ctx.components.push(ik);
  ctx.characters.push(c);
  return c;
}
