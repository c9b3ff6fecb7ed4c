/**
 * The demo's models: the committed ones (served as `models/…`), the developer set's Mixamo ones (served in dev
 * as `shared-models/…` when ../shared is there) and a user's files (picked or dropped: .glb, .gltf with its
 * .bin and textures, .vrm, .babylon), loaded into an AssetContainer with readable errors.
 */
import { LoadAssetContainerAsync } from "@babylonjs/core/Loading/sceneLoader";
import { FilesInputStore } from "@babylonjs/core/Misc/filesInputStore";
import type { AssetContainer } from "@babylonjs/core/assetContainer";
import type { Scene } from "@babylonjs/core/scene";

/** A model of the menu. */
export interface ModelEntry {
  /** File name: the menu's value and `?model=`. */
  file: string;
  label: string;
  url: string;
  /** The glTF names textures that are not committed: load it with plain colours instead. */
  stripTextures?: boolean;
}

/** The committed models (CC0, CC-BY), the default first. RobotExpressive has no legs: not listed. */
export const COMMITTED: ModelEntry[] = [
  { file: "AnimationLibrary_Godot_Standard.gltf", label: "UAL character (CC0)", url: "models/" },
  { file: "Mannequin.glb", label: "KayKit Mannequin (CC0)", url: "models/" },
  { file: "Superhero_Male_FullBody.gltf", label: "Quaternius Superhero (CC0)", url: "models/", stripTextures: true },
  { file: "RiggedFigure.gltf", label: "Cesium RiggedFigure (CC-BY 4.0)", url: "models/" },
  { file: "RiggedFigure.babylon", label: "Cesium RiggedFigure, .babylon (CC-BY 4.0)", url: "models/" },
].map((m) => ({ ...m, url: m.url + m.file }));

/**
 * The developer set's models this server has (Mixamo: never in demo/dist); asked only of a local server, so a
 * hosted copy logs no failed request.
 */
export async function sharedModels(): Promise<ModelEntry[]> {
  if (!["127.0.0.1", "localhost"].includes(location.hostname)) return [];
  try {
    const res = await fetch("shared-models/index.json");
    if (!res.ok) return [];
    const files = (await res.json()) as string[];
    return files.map((file) => ({
      file,
      label: `${file.replace(/\.[^.]+$/, "")} (Mixamo, local)`,
      url: `shared-models/${file}`,
    }));
  } catch {
    return [];
  }
}

/** What to load: a menu entry, or a user's files (the model and whatever it refers to). */
export type ModelSource = { entry: ModelEntry } | { files: File[] };

const MODEL_EXTENSIONS = [".glb", ".gltf", ".vrm", ".babylon"];
const ext = (name: string) => name.slice(name.lastIndexOf(".")).toLowerCase();

/** The model file among a user's files; a readable error when there is none. */
export function mainFile(files: File[]): File {
  const f = files.find((x) => MODEL_EXTENSIONS.includes(ext(x.name)));
  if (f !== undefined) return f;
  const names = files.map((x) => x.name).join(", ");
  throw new Error(
    `Cannot load ${names}: pick or drop a .glb, a .gltf together with its .bin and textures, a .vrm or a .babylon.`,
  );
}

/** The display name of a source. */
export function sourceName(s: ModelSource): string {
  return "entry" in s ? s.entry.file : mainFile(s.files).name;
}

/** Loads a source into the scene (not added to it); errors name the file and what is wrong. */
export async function loadModel(scene: Scene, s: ModelSource): Promise<AssetContainer> {
  const name = sourceName(s);
  try {
    return "entry" in s ? await loadEntry(scene, s.entry) : await loadFiles(scene, s.files);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new Error(msg.includes(name) ? msg : `Could not load ${name}: ${msg}`);
  }
}

async function loadEntry(scene: Scene, m: ModelEntry): Promise<AssetContainer> {
  if (ext(m.file) === ".babylon") {
    await import("@babylonjs/core/Loading/Plugins/babylonFileLoader");
    return LoadAssetContainerAsync(m.url, scene, { pluginExtension: ".babylon" });
  }
  if (ext(m.file) !== ".gltf") return LoadAssetContainerAsync(m.url, scene, { pluginExtension: ".glb" });
  if (m.stripTextures !== true) return LoadAssetContainerAsync(m.url, scene, { pluginExtension: ".gltf" });
  const json = stripTextures(await (await fetch(m.url)).json());
  const rootUrl = m.url.slice(0, m.url.lastIndexOf("/") + 1);
  return LoadAssetContainerAsync(new File([JSON.stringify(json)], m.file), scene, {
    rootUrl,
    pluginExtension: ".gltf",
  });
}

/** A glTF without its images: each material keeps a plain colour. */
function stripTextures(g: Record<string, unknown>): Record<string, unknown> {
  delete g.images;
  delete g.textures;
  delete g.samplers;
  for (const m of (g.materials as Record<string, Record<string, unknown>>[] | undefined) ?? []) {
    for (const k of Object.keys(m)) if (k.endsWith("Texture")) delete m[k];
    const pbr = (m.pbrMetallicRoughness ??= {});
    for (const k of Object.keys(pbr)) if (k.endsWith("Texture")) delete pbr[k];
    // hair and eyes dark, the rest a light suit grey
    const dark = /hair|eye/i.test(String(m.name ?? ""));
    pbr.baseColorFactor ??= dark ? [0.12, 0.09, 0.07, 1] : [0.62, 0.66, 0.72, 1];
  }
  return g;
}

/** A user's files: the model found among them, the files it refers to resolved from the same selection. */
async function loadFiles(scene: Scene, files: File[]): Promise<AssetContainer> {
  const main = mainFile(files);
  const kind = ext(main.name);
  // Babylon reads `file:<name>` URLs from this store: the .gltf's buffers and images, the .babylon's textures
  FilesInputStore.FilesToLoad = {};
  for (const f of files) FilesInputStore.FilesToLoad[f.name.toLowerCase()] = f;
  if (kind === ".gltf") {
    let g: { buffers?: { uri?: string }[]; images?: { uri?: string }[] };
    try {
      g = JSON.parse(await main.text());
    } catch {
      throw new Error(`${main.name} is not a glTF JSON file.`);
    }
    const have = new Map(files.map((f) => [f.name.toLowerCase(), f]));
    const missing: string[] = [];
    for (const item of [...(g.buffers ?? []), ...(g.images ?? [])]) {
      if (item.uri === undefined || item.uri.startsWith("data:")) continue;
      const uri = decodeURIComponent(item.uri);
      const base = uri.slice(uri.lastIndexOf("/") + 1).toLowerCase();
      const f = have.get(base);
      if (f === undefined) missing.push(uri);
      else FilesInputStore.FilesToLoad[uri.toLowerCase()] = f;
    }
    if (missing.length > 0)
      throw new Error(`${main.name} needs ${missing.join(", ")}: pick or drop them together with it (all at once).`);
    return LoadAssetContainerAsync(main, scene, { rootUrl: "file:", pluginExtension: ".gltf" });
  }
  if (kind === ".babylon") {
    await import("@babylonjs/core/Loading/Plugins/babylonFileLoader");
    return LoadAssetContainerAsync(main, scene, { rootUrl: "file:", pluginExtension: ".babylon" });
  }
  // .glb and .vrm (a glTF binary: its VRM extensions are optional ones the loader skips)
  return LoadAssetContainerAsync(main, scene, { rootUrl: "file:", pluginExtension: ".glb" });
}
