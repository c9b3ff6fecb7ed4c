/**
 * The ghost: a translucent second instance of the model that shows the first character's animation-only pose
 * (its nodes, or its bones when they have none, copy the character's local transforms after the animations,
 * before the IK solves). Not a character: no IK, no shadow, not in `ctx.characters`.
 */
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion } from "@babylonjs/core/Maths/math.vector";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Node } from "@babylonjs/core/node";
import type { AssetContainer } from "@babylonjs/core/assetContainer";
import type { Scene } from "@babylonjs/core/scene";
import type { Character } from "./kit";
import { modelMeshes } from "./model-meshes";

const isTransform = (n: Node): boolean => n instanceof TransformNode;

export class Ghost {
  /** [character's node, ghost's node], parents first. */
  private readonly pairs: [TransformNode, TransformNode][] = [];
  private readonly meshes: AbstractMesh[];
  private readonly material: StandardMaterial;
  private readonly roots: TransformNode[];
  private readonly skeletons: Skeleton[];

  constructor(
    scene: Scene,
    container: AssetContainer,
    private readonly of: Character,
  ) {
    const entries = container.instantiateModelsToScene((n) => `${n}#ghost`, false, { doNotInstantiate: true });
    for (const g of entries.animationGroups) g.dispose();
    this.roots = entries.rootNodes as TransformNode[];
    this.skeletons = entries.skeletons;
    // the instance has the model's hierarchy: walk both trees side by side
    const walk = (a: TransformNode, b: TransformNode) => {
      this.pairs.push([a, b]);
      const ca = a.getChildren(isTransform, true) as TransformNode[];
      const cb = b.getChildren(isTransform, true) as TransformNode[];
      for (let i = 0; i < Math.min(ca.length, cb.length); i++) walk(ca[i]!, cb[i]!);
    };
    walk(of.root, this.roots[0]!);
    this.material = new StandardMaterial("ghost", scene);
    this.material.diffuseColor = new Color3(0.55, 0.8, 1);
    this.material.emissiveColor = new Color3(0.25, 0.4, 0.55);
    this.material.specularColor = Color3.Black();
    this.material.alpha = 0.3;
    // only the nearest surface shows: a clean silhouette rather than overlapping shells
    this.material.needDepthPrePass = true;
    this.meshes = modelMeshes(this.roots[0]!);
    for (const m of this.meshes) {
      m.material = this.material;
      m.isPickable = false;
      m.receiveShadows = false;
    }
  }

  /** Copies the character's local transforms (call after the animations, before the IK solves). */
  copy(): void {
    for (const [a, b] of this.pairs) {
      b.position.copyFrom(a.position);
      b.scaling.copyFrom(a.scaling);
      if (a.rotationQuaternion !== null) (b.rotationQuaternion ??= new Quaternion()).copyFrom(a.rotationQuaternion);
      else b.rotation.copyFrom(a.rotation);
    }
    // a skeleton without linked nodes (.babylon) carries its pose in the bones themselves
    const bones = this.skeletons[0]?.bones ?? [];
    this.of.skeleton.bones.forEach((a, i) => {
      const b = bones[i];
      if (b === undefined || a.getTransformNode() !== null) return;
      b.position = a.position;
      b.rotationQuaternion = a.rotationQuaternion;
      b.scaling = a.scaling;
    });
  }

  setEnabled(on: boolean): void {
    for (const r of this.roots) r.setEnabled(on);
  }

  /** The character it follows. */
  get character(): Character {
    return this.of;
  }

  dispose(): void {
    for (const r of this.roots) r.dispose();
    for (const s of this.skeletons) s.dispose();
    this.material.dispose();
  }
}
