import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Camera } from "@babylonjs/core/Cameras/camera.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { MeshLODLevel } from "@babylonjs/core/Meshes/meshLODLevel.js";
import type { Node } from "@babylonjs/core/node.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { BabylonRig } from "./babylon-rig.js";
import {
  BAKED_VERTEX_ANIMATION,
  bakedVertexAnimationMessage,
  playsBakedVertexAnimation,
} from "./baked-vertex-animation.js";
import { lodDrawsNothing, lodLevelsOf } from "./mesh-lod.js";

/**
 * Whether a character is shown, for the IK components to skip one that is not (nothing of it is rendered):
 * its root node disabled (`setEnabled(false)` on it or on any node above it: Babylon's `isEnabled()` checks
 * the ancestors, from a flag it keeps when an ancestor changes, so the test is O(1)) with no mesh outside it drawing
 * the character (an instance of its skinned mesh, `createInstance`, shares the skeleton and draws on), or every
 * mesh it has disabled or disposed (the meshes with vertices the skeleton skins or under the root, such as a prop on
 * a hand; a character that never had any is judged by its root alone, and looked for again while the scene's meshes
 * change: a container's meshes added after create). The meshes are looked for again once when every one known goes
 * off (an outfit skinned by the skeleton, or a prop parented under the root, since the last look), and after that
 * whenever a mesh is added to the scene. On hiding, the rig's output is taken off once, so the bones show the
 * animation alone until the character is back.
 */
export class RigVisibility {
  /** The meshes that show the character (found when built, and again when the scene's count changed). */
  private readonly meshes: AbstractMesh[] = [];
  /** Those of {@link meshes} outside the root's hierarchy: they draw on while the root is disabled. */
  private readonly outside: AbstractMesh[] = [];
  /**
   * Those of {@link meshes} the skeleton skins that can have instances (`createInstance`): each instance draws the
   * pose at its own world matrix, and Babylon keeps them in the mesh's `instances` (no scene scan to find them).
   */
  private readonly sources: Mesh[] = [];
  /**
   * The LOD level lists of {@link meshes} (Babylon's own arrays, kept current by `addLODLevel`), so that a frame of a
   * character none of whose meshes has levels reads none of them: a crowd's clones are slow-property objects in V8,
   * and each one read costs a cache miss (1,000 characters: 1.8 µs a character a frame for this test alone).
   */
  private readonly levelLists: (readonly MeshLODLevel[])[] = [];
  /** Whether a list of {@link levelLists} held a level when {@link lodCulledBy} last read them. */
  private levelled = false;
  /** `scene.meshes.length` and its last mesh when {@link instanced} last looked: Babylon adds every instance there. */
  private instanceMeshCount = -1;
  private instanceLastMesh: AbstractMesh | undefined = undefined;
  /** Whether a source had an instance at that look. */
  private hasInstance = false;
  /** The skeleton's scene (read once: the skeleton is one of those slow-property objects). */
  private readonly scene: Scene;
  /** `scene.meshes.length` when {@link meshes} was gathered. */
  private meshCount = -1;
  /**
   * The scene's last mesh when {@link meshes} was gathered: Babylon adds meshes at the end of `scene.meshes`, so
   * one added since changes it or the count, even when as many were disposed (an outfit put on, the body taken off).
   */
  private lastMesh: AbstractMesh | undefined = undefined;
  /** True once the meshes were looked for again since every one known went off (cleared when one shows). */
  private lookedSinceOff = false;
  /** True while hidden: the output was taken off when it hid. */
  private hiding = false;
  /** True once a mesh that draws was found: with all of them disposed since, nothing of the character shows. */
  private hadMeshes = false;
  /** True when, at the last look, every mesh that shows the character played baked vertex animation. */
  private baked = false;

  /**
   * Watches the character of `rig` (its `characterRoot`, and the meshes skinned by `skeleton`); `warn` hears when
   * every mesh of it that shows plays baked vertex animation, so that nothing the IK writes shows: now (at create),
   * and each time that becomes so later (a manager assigned or enabled, the last mesh without one hidden).
   */
  constructor(
    private readonly rig: BabylonRig,
    private readonly skeleton: Skeleton,
    private readonly warn: (cause: string, message: string) => void,
  ) {
    this.scene = skeleton.getScene();
    this.gather();
    this.lookForBakedAnimation();
  }

  /**
   * True while the character is not shown; the first time, the rig's output comes off its bones. While it is
   * shown, warns as baked vertex animation takes over every mesh (O(1) while the first mesh is skinned by its bones).
   */
  hidden(): boolean {
    if (this.shown()) {
      this.hiding = false;
      this.lookForBakedAnimation();
      return false;
    }
    if (!this.hiding) {
      this.hiding = true;
      this.rig.restoreAnimatedPose();
    }
    return true;
  }

  /** Warns when every mesh that shows the character plays baked vertex animation and did not at the last look. */
  private lookForBakedAnimation(): void {
    const baked = playsBakedVertexAnimation(this.meshes, this.skeleton);
    if (baked && !this.baked)
      this.warn(BAKED_VERTEX_ANIMATION, bakedVertexAnimationMessage(this.meshes, this.skeleton));
    this.baked = baked;
  }

  /**
   * True when the root node is enabled (on it and above it), or there is none, or a mesh known outside its hierarchy
   * is enabled: the cheap test, without looking for meshes added since.
   */
  rootShown(): boolean {
    const root = this.rig.characterRoot;
    return root === null || root.isEnabled() || this.outsideEnabled() || this.instanceEnabled();
  }

  /** The meshes the skeleton skins that are not instances: their `instances` draw the character elsewhere. */
  skinnedSources(): readonly Mesh[] {
    return this.sources;
  }

  /**
   * True when one of {@link skinnedSources} has an instance. O(1) while the scene's meshes are unchanged (every
   * instance is added to them, and leaves them when disposed), so a crowd without instances reads none of its meshes.
   */
  instanced(): boolean {
    const all = this.scene.meshes;
    const n = all.length;
    if (n !== this.instanceMeshCount || all[n - 1] !== this.instanceLastMesh) {
      this.instanceMeshCount = n;
      this.instanceLastMesh = all[n - 1];
      this.hasInstance = false;
      const sources = this.sources;
      for (let i = 0; i < sources.length; i++) if (sources[i]!.instances.length > 0) this.hasInstance = true;
    }
    return this.hasInstance;
  }

  /** True when the root node is enabled and a mesh that draws is (or none draws). Allocation-free, no side effect. */
  shown(): boolean {
    const root = this.rig.characterRoot;
    if (root !== null && !root.isEnabled()) {
      // Babylon still draws an enabled instance of the root's skinned mesh placed elsewhere, with this skeleton
      if (this.meshAdded()) this.gather();
      return this.outsideEnabled();
    }
    // none known yet (created before its container's addAllToScene): look again when the scene's meshes change
    if (this.meshes.length === 0 && this.meshAdded()) this.gather();
    if (this.anyMeshEnabled()) {
      if (this.lookedSinceOff) this.lookedSinceOff = false;
      return true;
    }
    // every mesh known is disabled or disposed: one that came since (clothes skinned by the skeleton, a prop put
    // on a hand) may show the character; looked for once as they go off, then only when a mesh is added
    if (!this.lookedSinceOff || this.meshAdded()) {
      this.lookedSinceOff = true;
      this.gather();
      return this.anyMeshEnabled();
    }
    return false;
  }

  /** True when a mesh may have been added to the scene since the last {@link gather}. O(1). */
  private meshAdded(): boolean {
    const all = this.scene.meshes;
    return all.length !== this.meshCount || all[all.length - 1] !== this.lastMesh;
  }

  /**
   * True when a camera with this `layerMask` draws the character: a mesh of it that draws something shares a bit
   * with the mask (Babylon's test), or none draws anything.
   */
  drawnBy(layerMask: number): boolean {
    const meshes = this.meshes;
    let drawn = false;
    for (let i = 0; i < meshes.length; i++) {
      const m = meshes[i]!;
      if (m.isDisposed()) continue;
      if ((m.layerMask & layerMask) !== 0) return true;
      drawn = true;
    }
    return !drawn;
  }

  /**
   * True when Babylon's mesh level of detail draws none of the character's enabled meshes for `camera` (each past a
   * null level: `addLODLevel(distance, null)`); false when one of them draws, or none is enabled. Not `fresh` (a
   * resting character between two looks), whether any mesh has levels is the last fresh call's answer. Allocation-free
   * unless the scene has a `customLODSelector` that allocates.
   */
  lodCulledBy(camera: Camera, fresh: boolean): boolean {
    if (fresh) this.levelled = anyLevel(this.levelLists);
    if ((this.scene.customLODSelector ?? null) === null && !this.levelled) return false;
    const meshes = this.meshes;
    let culled = false;
    for (let i = 0; i < meshes.length; i++) {
      const m = meshes[i]!;
      if (m.isDisposed() || m.isBlocked || !m.isEnabled()) continue;
      if (!lodDrawsNothing(m, camera)) return false;
      culled = true;
    }
    return culled;
  }

  /**
   * True when a mesh of the character that draws something is enabled, or none ever drew anything (every one
   * disposed since is a character nothing of which shows).
   */
  private anyMeshEnabled(): boolean {
    const meshes = this.meshes;
    for (let i = 0; i < meshes.length; i++) {
      const m = meshes[i]!;
      // a level of another mesh's LOD (isBlocked) draws only in its master's place, when the master draws
      if (!m.isDisposed() && !m.isBlocked && m.isEnabled()) return true;
    }
    return !this.hadMeshes;
  }

  /**
   * True when a mesh known outside the root's hierarchy is enabled (none: false); not a level of another mesh's LOD
   * (a lower mesh loaded on its own, unparented): it draws only in its master's place.
   */
  private outsideEnabled(): boolean {
    const outside = this.outside;
    for (let i = 0; i < outside.length; i++) {
      const m = outside[i]!;
      if (!m.isDisposed() && !m.isBlocked && m.isEnabled()) return true;
    }
    return false;
  }

  /** True when an instance of a skinned source is enabled: made since the last look, it is not in {@link outside}. */
  private instanceEnabled(): boolean {
    const sources = this.sources;
    for (let i = 0; i < sources.length; i++) {
      const instances = sources[i]!.instances;
      for (let j = 0; j < instances.length; j++) if (instances[j]!.isEnabled()) return true;
    }
    return false;
  }

  /** The meshes the skeleton skins (instances of them too) and the meshes under the character root. */
  private gather(): void {
    const all = this.scene.meshes;
    const root: Node | null = this.rig.characterRoot;
    this.meshCount = all.length;
    this.lastMesh = all[all.length - 1];
    this.meshes.length = 0;
    this.outside.length = 0;
    this.sources.length = 0;
    this.levelLists.length = 0;
    this.instanceMeshCount = -1;
    for (const m of all) {
      // an empty mesh (glTF's __root__, a bare skinned mesh built in code) draws nothing either way; only the
      // ones that draw are kept, so a frame's test reads as few Babylon objects as it can (a crowd has 1,000)
      if (!(m.getTotalVertices() > 0)) continue;
      const under = root !== null && (m === root || m.isDescendantOf(root));
      if (m.skeleton === this.skeleton || under) {
        this.meshes.push(m);
        this.levelLists.push(lodLevelsOf(m));
        if (root !== null && !under) this.outside.push(m);
        // a Mesh keeps its instances (an InstancedMesh has none)
        if (m.skeleton === this.skeleton && Array.isArray((m as Mesh).instances)) this.sources.push(m as Mesh);
      }
    }
    if (this.meshes.length > 0) this.hadMeshes = true;
  }
}

/** True when one of `lists` holds a level. */
function anyLevel(lists: readonly (readonly MeshLODLevel[])[]): boolean {
  for (let i = 0; i < lists.length; i++) if (lists[i]!.length > 0) return true;
  return false;
}
