/**
 * The world the docs/API.md examples run in (test/scenario/docs-examples-run.test.ts): one character (UAL, in
 * the repository) loaded once and put back in its rest pose after each example (IKs disposed, new nodes,
 * meshes, bones and scene observers removed, globals deleted), a Mannequin for the examples that name its
 * bones, and bare scenes for those that load a model themselves.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Bone } from "@babylonjs/core/Bones/bone.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import { Scene } from "@babylonjs/core/scene.js";
import { expect } from "vitest";
import { FullBodyBipedIK, type FullBodyBipedIKOptions } from "../../src/index.js";
import { type LoadedModel, MODELS, loadModel } from "./babylon-scene.js";
import { type BoneRole, type DocsCharacter, FINGERS, type Side } from "./docs-character.js";
import { straightenLimb } from "./limb-bends.js";
import { height, nodePos, worldPos } from "./scene-probes.js";

/** An example's module: its exports, as the example declares them (the compile test checks their types). */
// biome-ignore lint/suspicious/noExplicitAny: each example's own signature is checked by the compile test
export type Example = Record<string, any>;

/** What an example's run gets: the world, its module (imported on demand) and the console lines it logged. */
export interface RunContext {
  world: DocsWorld;
  load: () => Promise<Example>;
  logs: () => unknown[][];
}

/** Runs one example and checks it. */
export type ExampleRun = (c: RunContext) => Promise<void>;

/** The character's rest pose: each bone node's local transform. */
interface NodePose {
  node: TransformNode;
  position: Vector3;
  rotation: Quaternion | null;
  scaling: Vector3;
}

export class DocsWorld {
  private loaded: LoadedModel | null = null;
  private mannequinModel: LoadedModel | null = null;
  private rest: NodePose[] = [];
  private baseNodes = new Set<unknown>();
  private baseObservers = new Map<unknown[], Set<unknown>>();
  private disposers: (() => void)[] = [];
  private globalNames: string[] = [];
  private height: number | null = null;

  /** `character`: the model the examples' IKs go on. */
  constructor(readonly character: DocsCharacter) {}

  /** The character, loaded at the first call, in its rest pose. */
  async model(): Promise<LoadedModel> {
    if (this.loaded === null) {
      const m = await loadModel(this.character.model);
      this.loaded = m;
      this.height = height(m);
      this.rest = m.skeleton.bones.map((b) => {
        const node = b.getTransformNode()!;
        return {
          node,
          position: node.position.clone(),
          rotation: node.rotationQuaternion?.clone() ?? null,
          scaling: node.scaling.clone(),
        };
      });
      for (const n of [...m.scene.transformNodes, ...m.scene.meshes]) this.baseNodes.add(n);
      for (const o of this.sceneObservables(m.scene)) this.baseObservers.set(o, new Set(o));
    }
    return this.loaded;
  }

  /** The Mannequin (its bones are named `hand.l`, `chest`…), loaded at the first call, in its own scene. */
  async mannequin(): Promise<LoadedModel> {
    this.mannequinModel ??= await loadModel("Mannequin");
    return this.mannequinModel;
  }

  /** The Mannequin's .glb as a data URL (for the examples that load "/models/character.glb"). */
  mannequinUrl(): string {
    const bytes = readFileSync(resolve(MODELS.Mannequin.dir, MODELS.Mannequin.file));
    return `data:model/gltf-binary;base64,${bytes.toString("base64")}`;
  }

  /** A new empty scene with a camera on the character's engine, disposed after the example. */
  async emptyScene(): Promise<Scene> {
    const m = await this.model();
    const scene = new Scene(m.engine);
    scene.useConstantAnimationDeltaTime = true;
    new FreeCamera("camera", new Vector3(0, 1, -5), scene);
    this.onCleanUp(() => scene.dispose());
    return scene;
  }

  /** A FullBodyBipedIK on the character, disposed after the example. */
  async ik(options?: FullBodyBipedIKOptions): Promise<FullBodyBipedIK> {
    const m = await this.model();
    return this.own(FullBodyBipedIK.create(m.scene, m.skeleton, options));
  }

  /** The character's bone of `role`. */
  bone(role: BoneRole): Bone {
    return this.named(this.character.bone(role));
  }

  /** The character's bone `name`. */
  private named(name: string): Bone {
    const b = this.loaded!.skeleton.bones.find((x) => x.name === name);
    if (b === undefined) throw new Error(`${this.character.model} has no bone ${name}`);
    return b;
  }

  /** The character's bone `role`'s node. */
  node(role: BoneRole): TransformNode {
    return this.bone(role).getTransformNode()!;
  }

  /** One side's fingers, thumb first, each from its root under the hand to its last joint. */
  fingers(side: Side): Bone[][] {
    return FINGERS.map((f) => this.character.finger(side, f).map((n) => this.named(n)));
  }

  /**
   * The character's eyes: its own, or (a model without eyes, as UAL) two bones added under the head for the
   * example, a little above its joint and in front of it, removed after it.
   */
  eyes(): { left: Bone; right: Bone } {
    const named = this.character.eyes;
    if (named !== null) return { left: this.named(named.left), right: this.named(named.right) };
    const head = this.bone("head");
    const headNode = head.getTransformNode()!;
    const forward = this.forward();
    const toLeft = Vector3.Cross(forward, Vector3.Up()); // left-handed: forward × up is the character's left
    const inHead = headNode.computeWorldMatrix(true).clone().invert();
    const eye = (side: Side, sign: number): Bone => {
      const at = this.pos("head")
        .add(new Vector3(0, 0.05 * this.h, 0))
        .add(forward.scale(0.05 * this.h))
        .add(toLeft.scale(sign * 0.02 * this.h));
      const node = new TransformNode(`eye.${side}`, headNode.getScene());
      node.parent = headNode;
      node.position.copyFrom(Vector3.TransformCoordinates(at, inHead));
      node.rotationQuaternion = Quaternion.Identity();
      const local = Matrix.Translation(node.position.x, node.position.y, node.position.z);
      const bone = this.own(new Bone(`eye.${side}`, head.getSkeleton(), head, local));
      bone.linkTransformNode(node);
      return bone;
    };
    return { left: eye("left", 1), right: eye("right", -1) };
  }

  /** Straightens the `side` arm (the hand on the line of the upper arm), as a Mixamo T-pose has them. */
  straightenArm(side: Side): void {
    straightenLimb(this.node(`${side}Forearm`), this.node(`${side}Hand`));
  }

  /** World position of the character's bone `role` (or of a Bone with a linked node). */
  pos(bone: BoneRole | Bone): Vector3 {
    return worldPos(typeof bone === "string" ? this.bone(bone) : bone);
  }

  /**
   * A point `share` of the arm's length from the character's `side` shoulder along `dir` (world): reachable by
   * the arm alone. The character faces +Z with its left at −X (Babylon's left-handed scene).
   */
  armReach(side: Side, dir: Vector3, share = 0.8): Vector3 {
    return armReach([this.bone(`${side}UpperArm`), this.bone(`${side}Forearm`), this.bone(`${side}Hand`)], dir, share);
  }

  /** The character's forward, horizontal: the way its toes point. */
  forward(): Vector3 {
    const toes = this.pos("leftToes").subtract(this.pos("leftFoot"));
    return new Vector3(toes.x, 0, toes.z).normalize();
  }

  /** World position of a node. */
  nodePos(n: TransformNode): Vector3 {
    return nodePos(n);
  }

  /** The character's height (joint extent), measured in its rest pose. */
  get h(): number {
    return this.height ?? 0;
  }

  /** Renders the character's scene `n` times (16 ms a frame). */
  frames(n: number, scene?: Scene): void {
    const s = scene ?? this.loaded!.scene;
    for (let i = 0; i < n; i++) s.render();
  }

  /** Sets globals for an example's `declare const`s; deleted after the example. */
  globals(values: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(values)) {
      (globalThis as Record<string, unknown>)[k] = v;
      this.globalNames.push(k);
    }
  }

  /** Registers something to dispose after the example and returns it. */
  own<T extends { dispose(): void }>(thing: T): T {
    this.disposers.push(() => thing.dispose());
    return thing;
  }

  /** Registers a clean-up step. */
  onCleanUp(step: () => void): void {
    this.disposers.push(step);
  }

  /** Puts everything back for the next example. */
  cleanUp(): void {
    for (const d of this.disposers.splice(0).reverse()) {
      try {
        d();
      } catch {
        // a component the example disposed itself
      }
    }
    for (const k of this.globalNames.splice(0)) delete (globalThis as Record<string, unknown>)[k];
    const m = this.loaded;
    if (m === null) return;
    for (const o of this.sceneObservables(m.scene)) {
      const base = this.baseObservers.get(o)!;
      for (const obs of [...o]) if (!base.has(obs)) (o as unknown[]).splice(o.indexOf(obs), 1);
    }
    for (const n of [...m.scene.meshes, ...m.scene.transformNodes]) if (!this.baseNodes.has(n)) n.dispose();
    for (const r of this.rest) {
      r.node.position.copyFrom(r.position);
      if (r.rotation !== null) r.node.rotationQuaternion!.copyFrom(r.rotation);
      r.node.scaling.copyFrom(r.scaling);
    }
  }

  dispose(): void {
    this.cleanUp();
    this.loaded?.dispose();
    this.mannequinModel?.dispose();
  }

  /** The scene observables the examples add to, as their observer arrays. */
  private sceneObservables(scene: Scene): Observer<unknown>[][] {
    return [scene.onBeforeRenderObservable, scene.onAfterRenderObservable].map(
      (o) => (o as unknown as { _observers: Observer<unknown>[] })._observers,
    );
  }
}

/** A point `share` of the arm's length from its upper bone along `dir` (world): reachable by the arm alone. */
export function armReach(arm: [Bone, Bone, Bone], dir: Vector3, share = 0.8): Vector3 {
  const [shoulder, elbow, hand] = arm.map(worldPos) as [Vector3, Vector3, Vector3];
  const length = Vector3.Distance(shoulder, elbow) + Vector3.Distance(elbow, hand);
  return shoulder.add(dir.normalizeToNew().scale(length * share));
}

/** Expects `a` within `tol` of `b` (world units), naming what is measured. */
export function expectNear(what: string, a: Vector3, b: Vector3, tol: number): void {
  const d = Vector3.Distance(a, b);
  expect(d, `${what}: ${d.toFixed(4)} from ${b.toString()} (at ${a.toString()}), tolerance ${tol}`).toBeLessThan(tol);
}

/** Expects an IK to have raised no warnings (UAL's limbs are bent enough at setup: none is straight). */
export function expectNoWarnings(ik: { warningsRaised: readonly { cause: string }[] }): void {
  expect(ik.warningsRaised.map((w) => w.cause)).toEqual([]);
}
