/**
 * The vr scenario's trackers (headset, controllers) dragged with Babylon's gizmos, with a world/local axes switch.
 * Trackers, not effector handles: each carries its effector's target at an offset (the grip in the palm, the
 * head behind the visor), and the headset drives FBBIKHeadEffector, not one of the nine effectors. The free
 * scenario's handles are the library's EffectorHandles.
 */
import { GizmoCoordinatesMode } from "@babylonjs/core/Gizmos/gizmo";
import { GizmoManager } from "@babylonjs/core/Gizmos/gizmoManager";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import type { Scene } from "@babylonjs/core/scene";
import { choice } from "../controls";

/** Puts a mesh in front of the character: drawn after it, over a cleared depth (always visible). */
export function onTop(mesh: AbstractMesh): void {
  mesh.renderingGroupId = 1;
  for (const m of mesh.getChildMeshes(false)) m.renderingGroupId = 1;
}

/** The gizmos over a set of trackers, and how the panel switches their axes. */
export interface TrackerGizmos {
  manager: GizmoManager;
  /** The panel's world/local switch. */
  axesControl(): HTMLElement;
  /** Back to world axes (the panel's reset). */
  resetAxes(): void;
}

/**
 * A position and a rotation gizmo on whichever tracker is clicked; `onDragStart` runs when a drag begins. World
 * axes by default: a tracker turned with the headset would otherwise show tilted arrows.
 */
export function trackerGizmos(scene: Scene, meshes: AbstractMesh[], onDragStart?: () => void): TrackerGizmos {
  const manager = new GizmoManager(scene);
  manager.usePointerToAttachGizmos = true;
  manager.attachableMeshes = meshes;
  manager.scaleRatio = 0.8;
  manager.positionGizmoEnabled = true;
  manager.rotationGizmoEnabled = true;
  let world = true;
  const setWorld = (w: boolean) => {
    world = w;
    manager.coordinatesMode = w ? GizmoCoordinatesMode.World : GizmoCoordinatesMode.Local;
  };
  setWorld(true);
  const started = () => {
    if (manager.attachedMesh !== null) onDragStart?.();
  };
  manager.gizmos.positionGizmo?.onDragStartObservable.add(started);
  manager.gizmos.rotationGizmo?.onDragStartObservable.add(started);
  return {
    manager,
    axesControl: () =>
      choice("gizmo axes", "gizmo-axes", ["world", "local"], world ? 0 : 1, (i) => setWorld(i === 0)).el,
    resetAxes: () => setWorld(true),
  };
}
