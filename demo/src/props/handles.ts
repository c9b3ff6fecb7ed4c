/**
 * Draggable handles shared by the free and vr scenarios: a gizmo manager over a set of meshes with a
 * world/local axes switch, handle materials, and a colour legend for the panel.
 */
import { GizmoCoordinatesMode } from "@babylonjs/core/Gizmos/gizmo";
import { GizmoManager } from "@babylonjs/core/Gizmos/gizmoManager";
import type { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { PointerEventTypes } from "@babylonjs/core/Events/pointerEvents";
import type { Color3 } from "@babylonjs/core/Maths/math.color";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import type { Scene } from "@babylonjs/core/scene";
import { choice } from "../controls";
import { signalMaterial } from "./signal";

/** One line of a legend: a coloured swatch (round for spheres, square for boxes) and what it stands for. */
export interface LegendItem {
  label: string;
  color: Color3;
  shape: "round" | "square";
}

/**
 * A glowing material in the legend's colour that reads over the character (handles draw in rendering group 1).
 * The colour as the swatch shows it: see {@link signalMaterial}.
 */
export function handleMaterial(scene: Scene, name: string, color: Color3): StandardMaterial {
  return signalMaterial(scene, name, color);
}

/** Puts a mesh in front of the character: drawn after it, over a cleared depth (always visible). */
export function onTop(mesh: AbstractMesh): void {
  mesh.renderingGroupId = 1;
  for (const m of mesh.getChildMeshes(false)) m.renderingGroupId = 1;
}

/**
 * Puts handles over every other handle, in picking as in drawing (a gizmo's handle is always in sight and under
 * the pointer where it shows): drawn in rendering group 2, after the others, over a cleared depth; and a press
 * where one is drawn takes it even where another handle lies nearer the camera. The free scenario's effectors:
 * a bend goal's box, kept off them in the starting view, covered a foot's handle once the user orbited.
 * Returns the remover of the picking rule.
 */
export function keepOnTop(scene: Scene, meshes: readonly AbstractMesh[]): () => void {
  for (const m of meshes) {
    m.renderingGroupId = 2;
    for (const child of m.getChildMeshes(false)) child.renderingGroupId = 2;
  }
  const own = scene.pointerDownPredicate;
  // the press picks after the pre-pointer observers: limited to the top handle under the pointer, for that pick
  const observer = scene.onPrePointerObservable.add((info) => {
    scene.pointerDownPredicate = own;
    if (info.type !== PointerEventTypes.POINTERDOWN) return;
    const top = topAt(scene, info.localPosition.x, info.localPosition.y, meshes);
    if (top !== null) scene.pointerDownPredicate = (m) => m === top;
  });
  return () => {
    scene.onPrePointerObservable.remove(observer);
    scene.pointerDownPredicate = own;
  };
}

/** The handle among `meshes` drawn at the pointer's `x`, `y` (the canvas's pixels), or null. */
export function topAt(scene: Scene, x: number, y: number, meshes: readonly AbstractMesh[]): AbstractMesh | null {
  const hit = scene.pick(x, y, (m) => meshes.includes(m) && m.isEnabled() && m.isVisible);
  return hit.hit ? hit.pickedMesh : null;
}

/** The legend's element: one swatch and label per item (`id` for the e2e test). */
export function legend(items: readonly LegendItem[], id = "legend"): HTMLElement {
  const box = document.createElement("div");
  box.id = id;
  box.style.cssText = "display:grid;grid-template-columns:1fr 1fr;gap:2px 8px;margin:4px 0;font-size:12px";
  for (const it of items) {
    const row = document.createElement("div");
    row.className = "legend-item";
    row.style.cssText = "display:flex;align-items:center;gap:5px;white-space:nowrap";
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.dataset.color = it.color.toHexString();
    const radius = it.shape === "round" ? "50%" : "2px";
    sw.style.cssText = `width:11px;height:11px;flex:none;border-radius:${radius};background:${it.color.toHexString()}`;
    row.append(sw, it.label);
    box.append(row);
  }
  return box;
}

/** The gizmos over a set of handles, and how the panel switches their axes. */
export interface HandleGizmos {
  manager: GizmoManager;
  /** The axes the gizmos show: the world's (default) or the handle's own. */
  setWorld(world: boolean): void;
  world(): boolean;
  /** The panel's world/local switch. */
  axesControl(): HTMLElement;
}

/**
 * A position gizmo on whichever handle is clicked, plus a rotation gizmo on those `rotatable` says so;
 * `onDragStart` runs when a drag begins (the handle being dragged). World axes by default: a handle turned
 * like its bone would otherwise show its bone's axes (the "up" arrow pointing down on a left hand).
 */
export function handleGizmos(
  scene: Scene,
  meshes: AbstractMesh[],
  rotatable: (m: AbstractMesh) => boolean,
  onDragStart?: (m: AbstractMesh) => void,
): HandleGizmos {
  const manager = new GizmoManager(scene);
  manager.usePointerToAttachGizmos = true;
  manager.attachableMeshes = meshes;
  manager.scaleRatio = 0.8;
  // both gizmos exist from the start so the axes mode reaches them; rotation stays off until a rotatable pick
  manager.positionGizmoEnabled = true;
  manager.rotationGizmoEnabled = true;
  manager.rotationGizmoEnabled = false;
  let world = true;
  const setWorld = (w: boolean) => {
    world = w;
    manager.coordinatesMode = w ? GizmoCoordinatesMode.World : GizmoCoordinatesMode.Local;
  };
  setWorld(true);
  manager.onAttachedToMeshObservable.add((m) => {
    manager.rotationGizmoEnabled = m !== null && rotatable(m);
  });
  const started = () => {
    const m = manager.attachedMesh;
    if (m !== null) onDragStart?.(m);
  };
  manager.gizmos.positionGizmo?.onDragStartObservable.add(started);
  manager.gizmos.rotationGizmo?.onDragStartObservable.add(started);
  return {
    manager,
    setWorld,
    world: () => world,
    axesControl: () =>
      choice("gizmo axes", "gizmo-axes", ["world", "local"], world ? 0 : 1, (i) => setWorld(i === 0)).el,
  };
}
