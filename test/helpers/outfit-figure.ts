/**
 * RiggedFigure.babylon (a skeleton of plain Bones, living in the mesh it skins) with FullBodyBipedIK on its body and
 * clothes cloned from the body after create, under a node of their own away from the body: the mesh the rig solves
 * in shows where the held hand ends up, so a rig left in the wrong mesh is seen.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "./babylon-scene.js";

/** The figure, its IK, meshes and held hand's target. */
export interface OutfitFigure {
  m: LoadedModel;
  ik: FullBodyBipedIK;
  /** The mesh the IK was created on (at the origin). */
  body: Mesh;
  /** A clone of the body under a node 2 h aside, turned a quarter. */
  clothes: Mesh;
  /** Hand-to-foot span of the bones, the figure's size. */
  h: number;
  /** Warning causes the IK reported. */
  warnings: string[];
  /** The left hand's distance from its target as Babylon skins it in `mesh`, after `frames` frames, ÷ h. */
  handOff(mesh: Mesh, frames: number): number;
  /** Moves the hand's target from where `from` shows it to the same place on the bones as `to` shows them. */
  retarget(from: Mesh, to: Mesh): void;
}

/**
 * RiggedFigure.babylon loaded into `open`, its clip stopped (Babylon stops what targets a disposed mesh: a twin whose
 * body stays must not play it either); its body mesh and the hand-to-foot span of its bones there.
 */
export async function riggedFigure(open: LoadedModel[]): Promise<{ m: LoadedModel; body: Mesh; h: number }> {
  const m = await loadModel("RiggedFigureBabylon");
  open.push(m);
  m.scene.stopAllAnimations();
  const body = m.scene.meshes.find((x) => x.skeleton === m.skeleton) as Mesh;
  const ys = m.skeleton.bones.map((b) => b.getAbsolutePosition(body).y);
  return { m, body, h: Math.max(...ys) - Math.min(...ys) };
}

/** Babylon notifies a mesh added, and the IK scrubs a clone of its Inspector entries, on a later tick. */
export const nextTick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Loads the figure into `open`, its clip stopped, the left hand held 0.15 h above where the clothes show it. */
export async function outfitFigure(open: LoadedModel[]): Promise<OutfitFigure> {
  const { m, body, h } = await riggedFigure(open);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const warnings: string[] = [];
  ik.onWarningObservable.add((w) => warnings.push(w.cause));
  const holder = new TransformNode("holder", m.scene);
  holder.position.set(2 * h, 0.3 * h, h);
  holder.rotation.y = Math.PI / 2;
  const clothes = body.clone("clothes", holder)!;
  clothes.computeWorldMatrix(true);
  m.skeleton.computeAbsoluteMatrices(true);
  const hand = ik.references.leftHand;
  const effector = ik.solver.leftHandEffector;
  effector.position.copyFrom(hand.getAbsolutePosition(clothes).add(new Vector3(0.05 * h, 0.15 * h, 0.05 * h)));
  effector.positionWeight = 1;
  const handOff = (mesh: Mesh, frames: number): number => {
    for (let f = 0; f < frames; f++) m.scene.render();
    m.skeleton.computeAbsoluteMatrices(true);
    return Vector3.Distance(hand.getAbsolutePosition(mesh), effector.position) / h;
  };
  const retarget = (from: Mesh, to: Mesh): void => {
    const local = Vector3.TransformCoordinates(effector.position, from.computeWorldMatrix(true).clone().invert());
    effector.position.copyFrom(Vector3.TransformCoordinates(local, to.computeWorldMatrix(true)));
  };
  return { m, ik, body, clothes, h, warnings, handOff, retarget };
}

/** True when FullBodyBipedIK's settings are shown on `node` in Babylon's Inspector (an entry and its property). */
export function showsIK(node: { inspectableCustomProperties: { propertyName: string }[] | null }): boolean {
  const listed = (node.inspectableCustomProperties ?? []).some((e) => e.propertyName === "fbbik_ikPositionWeight");
  return listed && Object.getOwnPropertyDescriptor(node, "fbbik_ikPositionWeight") !== undefined;
}
