/**
 * Loading the real models into Babylon's NullEngine for scenario tests. CC0 models are committed under
 * test/assets/models; the Mixamo ones (Xbot, Soldier) may not be committed and are read from
 * ../shared/assets/models when it exists (tests using them skip with a message otherwise).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import "@babylonjs/core/Animations/animatable.js";
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { FreeCamera } from "@babylonjs/core/Cameras/freeCamera.js";
import { NullEngine, NullEngineOptions } from "@babylonjs/core/Engines/nullEngine.js";
import { LoadAssetContainerAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import type { AssetContainer } from "@babylonjs/core/assetContainer.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Scene } from "@babylonjs/core/scene.js";
import "@babylonjs/core/Loading/Plugins/babylonFileLoader.js";
import "@babylonjs/loaders/glTF/2.0/index.js";
import { proceduralIdle as sharedIdle } from "../../demo/src/procedural-idle.js";
import { rewriteGlbJson } from "./glb-json.js";
import { repoRoot } from "./repo-root.js";

const root = repoRoot(import.meta.url);
/** Models committed with the repository (CC0). */
export const REPO_MODELS = resolve(root, "test/assets/models");
/** The shared model folder beside the repository (not on every machine). */
export const SHARED_MODELS = resolve(root, "../shared/assets/models");

/** The models the scenario tests know, with where they live. */
export const MODELS = {
  Mannequin: { file: "Mannequin.glb", dir: REPO_MODELS },
  Superhero: { file: "Superhero_Male_FullBody.gltf", dir: REPO_MODELS },
  RobotExpressive: { file: "RobotExpressive.glb", dir: REPO_MODELS },
  Xbot: { file: "Xbot.glb", dir: SHARED_MODELS },
  Soldier: { file: "Soldier.glb", dir: SHARED_MODELS },
  /** Quaternius's Universal Animation Library character (Rigify names, 46 clips). */
  UAL: { file: "AnimationLibrary_Godot_Standard.gltf", dir: REPO_MODELS },
  /** Khronos's RiggedFigure as glTF (linked TransformNodes). */
  RiggedFigure: { file: "RiggedFigure.gltf", dir: REPO_MODELS },
  /** The same character in Babylon's native format: plain Bones, `needInitialSkinMatrix`, mesh scaled ×100. */
  RiggedFigureBabylon: { file: "RiggedFigure.babylon", dir: REPO_MODELS },
} as const;

/** Name of a known model. */
export type ModelName = keyof typeof MODELS;

/** True when the model's file is present on this machine. */
export function modelAvailable(name: ModelName): boolean {
  const m = MODELS[name];
  return existsSync(resolve(m.dir, m.file));
}

/** A loaded model in its own NullEngine scene. */
export interface LoadedModel {
  engine: NullEngine;
  scene: Scene;
  container: AssetContainer;
  skeleton: Skeleton;
  /** The glTF __root__ node (the model's top node); for a .babylon file, the skinned mesh. */
  root: TransformNode;
  dispose(): void;
}

/**
 * Loads a model into a fresh NullEngine scene (left-handed unless `rightHanded`), with a camera. `highPrecision`:
 * Babylon's matrices in doubles (they are Float32Array otherwise; note that every engine created sets the precision
 * of the matrices made after it). `glb`: rewrites a glTF binary's bytes before loading (e.g. into a VRM).
 */
export async function loadModel(
  name: ModelName,
  options: {
    rightHanded?: boolean;
    highPrecision?: boolean;
    glb?: (bytes: Uint8Array) => Uint8Array;
    /**
     * The glTF clips to load, by name and index; none by default ({@link ALL_CLIPS}: every one). The loader
     * spends most of a model's load on its clips (UAL's 46: 310 ms of 410; Xbot's 7: 60 of 95), and most tests
     * play none, or one.
     */
    clips?: (name: string, index: number) => boolean;
    /** Loads into this scene (another model's) instead of a fresh one; `dispose` then disposes the model alone. */
    scene?: Scene;
    /** Given the file's glTF JSON, as the glTF loader's `onParsed` hands it to users (a .glb model). */
    gltfJson?: (json: object) => void;
  } = {},
): Promise<LoadedModel> {
  const m = MODELS[name];
  const shared = options.scene;
  const engine =
    (shared?.getEngine() as NullEngine | undefined) ??
    new NullEngine(Object.assign(new NullEngineOptions(), { useHighPrecisionMatrix: !!options.highPrecision }));
  const scene = shared ?? new Scene(engine);
  if (shared === undefined) {
    scene.useRightHandedSystem = options.rightHanded ?? false;
    scene.useConstantAnimationDeltaTime = true;
    new FreeCamera("camera", new Vector3(0, 1, -5), scene);
  }
  const path = resolve(m.dir, m.file);
  let container: AssetContainer;
  if (m.file.endsWith(".gltf")) {
    // the .gltf references its .bin by relative URL: give the loader a file URL base
    const json = readFileSync(path, "utf8");
    const bin = readFileSync(path.replace(/\.gltf$/, ".bin"));
    const parsed = JSON.parse(json) as GltfJson & {
      buffers: { uri?: string }[];
      images?: unknown;
      textures?: unknown;
      materials?: Record<string, unknown>[];
    };
    for (const b of parsed.buffers) b.uri = `data:application/octet-stream;base64,${bin.toString("base64")}`;
    // the texture images are not shipped with the model: drop them (the skeleton is what the tests need)
    delete parsed.images;
    delete parsed.textures;
    for (const mat of parsed.materials ?? []) stripTextures(mat);
    keepClips(parsed, options.clips);
    const dataUrl = `data:model/gltf+json;base64,${Buffer.from(JSON.stringify(parsed)).toString("base64")}`;
    container = await LoadAssetContainerAsync(dataUrl, scene, { pluginExtension: ".gltf" });
  } else if (m.file.endsWith(".babylon")) {
    const dataUrl = `data:application/json;base64,${readFileSync(path).toString("base64")}`;
    container = await LoadAssetContainerAsync(dataUrl, scene, { pluginExtension: ".babylon" });
  } else {
    const read = new Uint8Array(readFileSync(path));
    const bytes =
      options.clips === ALL_CLIPS ? read : rewriteGlbJson<GltfJson>(read, (j) => keepClips(j, options.clips));
    const onParsed = options.gltfJson;
    container = await LoadAssetContainerAsync(options.glb?.(bytes) ?? bytes, scene, {
      pluginExtension: ".glb",
      ...(onParsed && { pluginOptions: { gltf: { onParsed: (data) => onParsed(data.json) } } }),
    });
  }
  container.addAllToScene();
  // the glTF loader starts the first clip; tests start the clips they want themselves
  for (const g of container.animationGroups) g.stop();
  // in a shared scene, this model's own: the container's
  const skeleton = shared === undefined ? scene.skeletons[0]! : container.skeletons[0]!;
  const root =
    shared === undefined
      ? (scene.getTransformNodeByName("__root__") ??
        (scene.getMeshByName("__root__") as unknown as TransformNode | null) ??
        (scene.meshes.find((mesh) => mesh.skeleton === skeleton) as unknown as TransformNode))
      : ((container.rootNodes.find((n) => n.name === "__root__") as TransformNode | undefined) ??
        (container.meshes.find((mesh) => mesh.skeleton === skeleton) as unknown as TransformNode));
  return {
    engine,
    scene,
    container,
    skeleton,
    root,
    dispose: () => {
      if (shared !== undefined) {
        container.dispose();
        return;
      }
      scene.dispose();
      engine.dispose();
    },
  };
}

/** Every clip of the model (`loadModel`'s `clips`). */
export const ALL_CLIPS = (): boolean => true;

/** The part of a glTF's JSON the helpers edit. */
interface GltfJson {
  animations?: { name?: string }[];
}

/** Keeps the clips `keep` accepts (none without a filter). */
function keepClips(gltf: GltfJson, keep: ((name: string, index: number) => boolean) | undefined): void {
  if (gltf.animations === undefined) return;
  const kept = keep === undefined ? [] : gltf.animations.filter((a, i) => keep(a.name ?? "", i));
  // glTF forbids an empty array
  if (kept.length > 0) gltf.animations = kept;
  else delete gltf.animations;
}

function stripTextures(o: Record<string, unknown>): void {
  for (const k of Object.keys(o)) {
    if (k.endsWith("Texture")) delete o[k];
    else if (o[k] !== null && typeof o[k] === "object") stripTextures(o[k] as Record<string, unknown>);
  }
}

/**
 * A gentle procedural idle for models without clips (the demo's, shared: demo/src/procedural-idle.ts): the
 * spine sways and both arms swing, 0.15 rad over 60 frames.
 */
export function proceduralIdle(scene: Scene, nodes: TransformNode[], name = "idle"): AnimationGroup {
  return sharedIdle(scene, nodes, name, { amplitude: 0.15, frames: 60 });
}
