import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { Node } from "@babylonjs/core/node.js";
import type { Scene } from "@babylonjs/core/scene.js";

/** Why a rig cannot be read or written this frame (`RigAttachment.state`). */
export const RigDetachment = {
  /** Everything the rig reads is in place. */
  Attached: 0,
  /** The skeleton is no longer in its scene (disposed, or removed with its asset container). */
  SkeletonRemoved: 1,
  /** A TransformNode the rig reads was disposed, or a Bone of it (`bone.dispose()` takes it out of the skeleton). */
  NodeDisposed: 2,
  /** The mesh whose space a bone-only skeleton lives in was disposed (and no other mesh skins the skeleton). */
  MeshDisposed: 3,
  /**
   * The bones no longer follow the TransformNodes the rig reads and writes (`bone.linkTransformNode(null)`, as
   * Babylon's `Ragdoll` does to every bone): whatever the IK wrote would not show.
   */
  Unlinked: 4,
} as const;
/** One of {@link RigDetachment}'s values. */
export type RigDetachment = (typeof RigDetachment)[keyof typeof RigDetachment];

/**
 * The fields of a Babylon skeleton read here beyond its public typings (internal in @babylonjs/core 9).
 * @internal
 */
export interface SkeletonContainerState {
  /** The asset container holding the skeleton; Skeleton.dispose sets it to null. */
  _parentContainer: unknown;
}

/**
 * True when a rig detached as `state` says (not Attached) will not come back: a node or the mesh disposed, or the
 * skeleton out of its scene and of any asset container (disposed). A skeleton only removed from the scene with its
 * asset container (`removeAllFromScene`, a level streamed out) may be added back, unlinked bones linked back.
 */
export function detachedForGood(state: RigDetachment, skeleton: Skeleton): boolean {
  if (state === RigDetachment.NodeDisposed || state === RigDetachment.MeshDisposed) return true;
  // Skeleton.dispose clears its asset container link; one only removed from the scene keeps it
  return (
    state === RigDetachment.SkeletonRemoved && (skeleton as unknown as SkeletonContainerState)._parentContainer == null
  );
}

/**
 * Whether the Babylon objects a rig reads are still there, checked every frame at no cost per node: every
 * field read each frame lives here, the scene's list aside (with many characters, each Babylon object
 * touched once per frame is a cache miss).
 */
export class RigAttachment {
  /** Index of the skeleton in its scene's `skeletons` when last found there. */
  private skeletonIndex = 0;
  /** True between watch and dispose. */
  private watching = false;
  /** Set when a node or bone the rig reads is disposed (from their onDisposeObservable). */
  private nodeDisposed = false;
  private readonly observers: { node: Node; observer: Observer<Node> }[] = [];
  /** The scene's observers of meshes removed and added (a watched bone-only rig's), or null. */
  private sceneObservers: { removed: Observer<AbstractMesh>; added: Observer<AbstractMesh> } | null = null;
  /** Set when the bone-only mesh left the scene undisposed; cleared when the rig moves or the mesh is back. */
  private meshOut = false;
  /** Set while the mesh is out and no other mesh skinned the skeleton: waits for one to be added. */
  private stranded = false;

  /**
   * @param scene the skeleton's scene (a skeleton never changes scene)
   * @param skeleton the skeleton
   * @param nodes the rig's TransformNodes (null entries ignored)
   * @param mesh the mesh a bone-only skeleton lives in, or null (linked skeletons)
   * @param linked a bone of the rig and the node it is linked to, or null (bone-only skeletons): one bone is
   *   asked each frame whether it still follows its node (an unlink is of every bone, as `Ragdoll`'s, or of none)
   * @param bones the rig's Bones (null entries ignored): a disposed one is out of the skeleton for good
   */
  constructor(
    private readonly scene: Scene,
    private readonly skeleton: Skeleton,
    private readonly nodes: readonly (TransformNode | null)[],
    private mesh: AbstractMesh | null,
    private readonly linked: { readonly bone: Bone; readonly node: TransformNode } | null = null,
    private readonly bones: readonly (Bone | null)[] = [],
  ) {}

  /**
   * Watches the nodes and bones for disposal through their onDisposeObservable, so that {@link state} need not
   * visit every one each frame. For a rig that lives on (the IK component's); remove with {@link dispose}.
   * Unwatched rigs (temporary ones) check them each call.
   */
  watch(): void {
    if (this.watching) return;
    this.watching = true;
    for (const list of [this.nodes, this.bones]) {
      for (const node of list) {
        if (node === null) continue;
        if (node.isDisposed()) this.nodeDisposed = true;
        const observer = node.onDisposeObservable.add(() => {
          this.nodeDisposed = true;
        });
        this.observers.push({ node, observer });
      }
    }
    if (this.mesh !== null) {
      const scene = this.scene;
      // events, not a scan: the mesh's membership is asked only when it is the one removed
      const removed = scene.onMeshRemovedObservable.add((m) => {
        if (m === this.mesh && !scene.meshes.includes(m)) {
          this.meshOut = true;
          this.stranded = false;
        }
      });
      // (Babylon notifies an addition on a later tick: the mesh may have been removed again since, as at a removal
      // in the tick it was loaded in)
      const added = scene.onNewMeshAddedObservable.add((m) => {
        if (m === this.mesh) {
          if (scene.meshes.includes(m)) this.meshOut = this.stranded = false;
        } else if (m.skeleton === this.skeleton) this.stranded = false;
      });
      this.sceneObservers = { removed, added };
    }
  }

  /** Removes the observers of {@link watch}. */
  dispose(): void {
    for (const { node, observer } of this.observers) node.onDisposeObservable.remove(observer);
    this.observers.length = 0;
    if (this.sceneObservers !== null) {
      this.scene.onMeshRemovedObservable.remove(this.sceneObservers.removed);
      this.scene.onNewMeshAddedObservable.remove(this.sceneObservers.added);
      this.sceneObservers = null;
    }
    this.watching = false;
  }

  /** The mesh a bone-only skeleton lives in is now `mesh` (the one before was disposed or left the scene). */
  meshMoved(mesh: AbstractMesh): void {
    if (this.mesh === null) return;
    this.mesh = mesh;
    this.meshOut = this.stranded = false;
  }

  /**
   * True when a watched bone-only rig's mesh left the scene undisposed (`scene.removeMesh`, an asset container's
   * `removeAllFromScene`) and the rig may move to another mesh the skeleton skins: not yet tried, or a mesh skinned
   * by it was added since. Allocation-free.
   */
  get meshLeft(): boolean {
    return this.meshOut && !this.stranded;
  }

  /**
   * True while the mesh is out and the rig waits for another mesh skinned by the skeleton: one given the skeleton
   * after it was added (`mesh.skeleton = skeleton`, as after `Mesh.MergeMeshes`) raises no event, so the rig looks.
   */
  get waitsForMesh(): boolean {
    return this.meshOut && this.stranded;
  }

  /**
   * After {@link meshLeft}: the mesh is in the scene after all (`back`: removed and added back between two frames),
   * or no other mesh skins the skeleton (the rig stays in the mesh, and waits for one to be added).
   */
  meshStays(back: boolean): void {
    if (back) this.meshOut = false;
    this.stranded = !back;
  }

  /** Why the rig cannot be used this frame, or Attached. Allocation-free. */
  state(): RigDetachment {
    const skeletons = this.scene.skeletons;
    // where the skeleton was last found: O(1) every frame, a search only when the scene's list changed
    // (a plain indexOf every frame made each character's cost grow with the number of characters)
    let k = this.skeletonIndex;
    if (skeletons[k] !== this.skeleton) {
      k = skeletons.indexOf(this.skeleton);
      if (k < 0) return RigDetachment.SkeletonRemoved;
      this.skeletonIndex = k;
    }
    if (this.watching) {
      if (this.nodeDisposed) return RigDetachment.NodeDisposed;
    } else {
      const nodes = this.nodes;
      for (let i = 1; i < nodes.length; i++) {
        const n = nodes[i];
        if (n?.isDisposed()) return RigDetachment.NodeDisposed;
      }
      const bones = this.bones;
      for (let i = 1; i < bones.length; i++) if (bones[i]?.isDisposed()) return RigDetachment.NodeDisposed;
    }
    if (this.mesh?.isDisposed()) return RigDetachment.MeshDisposed;
    const linked = this.linked;
    if (linked !== null && linked.bone.getTransformNode() !== linked.node) return RigDetachment.Unlinked;
    return RigDetachment.Attached;
  }
}
