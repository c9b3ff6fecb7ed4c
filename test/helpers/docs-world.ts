/**
 * The world the docs/API.md examples run in (test/scenario/docs-examples-run.test.ts): one Xbot loaded once
 * and put back in its rest pose after each example (IKs disposed, new nodes, meshes and scene observers
 * removed, globals deleted), a Mannequin for the examples that name its bones, and bare scenes for those that
 * load a model themselves.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { type Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import { Scene } from "@babylonjs/core/scene.js";
import { expect } from "vitest";
import { FullBodyBipedIK, type FullBodyBipedIKOptions } from "../../src/index.js";
import { type LoadedModel, MODELS, loadModel } from "./babylon-scene.js";
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

/** Xbot's rest pose: each bone node's local transform. */
interface NodePose {
  node: TransformNode;
  position: Vector3;
  rotation: Quaternion | null;
  scaling: Vector3;
}

/** Setup warnings every IK on Xbot raises: its arms are straight in its T-pose (documented, section 1). */
export const XBOT_SETUP = /^straight-limb:/;

export class DocsWorld {
  private xbotModel: LoadedModel | null = null;
  private mannequinModel: LoadedModel | null = null;
  private rest: NodePose[] = [];
  private baseNodes = new Set<unknown>();
  private baseObservers = new Map<unknown[], Set<unknown>>();
  private disposers: (() => void)[] = [];
  private globalNames: string[] = [];

  /** Xbot, loaded at the first call, in its rest pose. */
  async xbot(): Promise<LoadedModel> {
    if (this.xbotModel === null) {
      const m = await loadModel("Xbot");
      this.xbotModel = m;
      this.xbotHeight = height(m);
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
    return this.xbotModel;
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

  /** A new empty scene with a camera on Xbot's engine, disposed after the example. */
  async emptyScene(): Promise<Scene> {
    const m = await this.xbot();
    const scene = new Scene(m.engine);
    scene.useConstantAnimationDeltaTime = true;
    new FreeCamera("camera", new Vector3(0, 1, -5), scene);
    this.onCleanUp(() => scene.dispose());
    return scene;
  }

  /** A FullBodyBipedIK on Xbot, disposed after the example. */
  async xbotIk(options?: FullBodyBipedIKOptions): Promise<FullBodyBipedIK> {
    const m = await this.xbot();
    return this.own(FullBodyBipedIK.create(m.scene, m.skeleton, options));
  }

  /** Xbot's bone `mixamorig:<name>`. */
  bone(name: string): Bone {
    const b = this.xbotModel!.skeleton.bones.find((x) => x.name === `mixamorig:${name}`);
    if (b === undefined) throw new Error(`Xbot has no bone mixamorig:${name}`);
    return b;
  }

  /** World position of Xbot's bone `name` (or of a Bone with a linked node). */
  pos(bone: string | Bone): Vector3 {
    return worldPos(typeof bone === "string" ? this.bone(bone) : bone);
  }

  /**
   * A point `share` of the arm's length from Xbot's `side` shoulder along `dir` (world): reachable by the arm
   * alone. Xbot faces +Z with its left at −X (Babylon's left-handed scene).
   */
  armReach(side: "Left" | "Right", dir: Vector3, share = 0.8): Vector3 {
    return armReach([this.bone(`${side}Arm`), this.bone(`${side}ForeArm`), this.bone(`${side}Hand`)], dir, share);
  }

  /** Xbot's forward, horizontal: the way its toes point. */
  forward(): Vector3 {
    const toes = this.pos("LeftToeBase").subtract(this.pos("LeftFoot"));
    return new Vector3(toes.x, 0, toes.z).normalize();
  }

  /** World position of a node. */
  nodePos(n: TransformNode): Vector3 {
    return nodePos(n);
  }

  /** Xbot's height (joint extent), measured in its rest pose. */
  get h(): number {
    return this.xbotHeight ?? 0;
  }
  private xbotHeight: number | null = null;

  /** Renders Xbot's scene `n` times (16 ms a frame). */
  frames(n: number, scene?: Scene): void {
    const s = scene ?? this.xbotModel!.scene;
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
    const m = this.xbotModel;
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
    this.xbotModel?.dispose();
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

/** Expects an IK's warnings to be only `allowed` ones. */
export function expectNoWarnings(ik: { warningsRaised: readonly { cause: string }[] }, allowed = XBOT_SETUP): void {
  expect(ik.warningsRaised.map((w) => w.cause).filter((c) => !allowed.test(c))).toEqual([]);
}
