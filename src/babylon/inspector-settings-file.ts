import { Tools } from "@babylonjs/core/Misc/tools.js";

/**
 * What a component gives its {@link InspectorSettings} for the Inspector's "save settings" and "load settings"
 * buttons: its settings as `serialize()` writes them, `applySettings` to load them, and its warning channel.
 */
export interface InspectorSettingsFile {
  /** Put before "save settings" and "load settings" in the buttons' labels (as before the component's sliders). */
  readonly label: string;
  /** The character's name, for the file's (its skeleton's: a glTF names every root node `__root__`). */
  characterName(): string;
  /** The component's settings as a plain JSON object (its `serialize()`). */
  serialize(): object;
  /** Loads parsed settings into the component (its `applySettings`, which never throws). */
  applySettings(parsed: unknown): void;
  /** Warns once per cause on the component's warning channel. */
  warn(cause: string, message: string): void;
}

/** Characters a file name may not hold on some system, and control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it strips
const UNSAFE_FILE_CHARS = /[\\/:*?"<>|\u0000-\u001f]/g;

/**
 * `<tag>-<character name>.json`, the tag being the settings' property prefix without its last `_` (`fbbik`,
 * `ccdik_upperarm_l`), so two components on one skeleton save to two names.
 */
export function settingsFileName(prefix: string, characterName: string): string {
  const tag = prefix.replace(/_$/, "");
  const base = characterName !== "" ? `${tag}-${characterName}` : tag;
  return `${base.replace(UNSAFE_FILE_CHARS, "_")}.json`;
}

/**
 * Downloads the component's settings as {@link settingsFileName} through Babylon's download helper and copies
 * them to the clipboard where there is one; returns the JSON written. Nothing throws: a download that fails (no
 * DOM) is warned once, a clipboard that refuses (an unfocused page, no permission) is ignored, the file being the
 * record.
 */
export function saveSettingsFile(file: InspectorSettingsFile, prefix: string): string {
  const fileName = settingsFileName(prefix, file.characterName());
  const text = JSON.stringify(file.serialize(), null, 2);
  try {
    Tools.Download(new Blob([text], { type: "application/json" }), fileName);
  } catch (e) {
    file.warn("settings:download", `The settings could not be downloaded as ${fileName}: ${String(e)}`);
  }
  try {
    const clipboard = (globalThis as { navigator?: { clipboard?: Clipboard } }).navigator?.clipboard;
    clipboard?.writeText(text).catch(() => undefined);
  } catch {
    // (a clipboard that throws at once is as absent as none)
  }
  return text;
}

/**
 * Reads a settings file (the Inspector's file button gives a File) and loads it into the component; a file that
 * cannot be read or is not JSON is warned once (`settings:file`), never thrown: the Inspector does not wait on it.
 */
export async function loadSettingsFile(file: InspectorSettingsFile, blob: Blob): Promise<void> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await blob.text());
  } catch (e) {
    const name = (blob as { name?: unknown }).name;
    const what = typeof name === "string" ? `"${name}"` : "The settings file";
    file.warn("settings:file", `${what} is not settings JSON and was not loaded: ${String(e)}`);
    return;
  }
  file.applySettings(parsed);
}
