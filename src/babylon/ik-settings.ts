/**
 * Saving and loading an IK's settings: each component declares its settings once, as groups of properties on the
 * objects that hold them ({@link IKSettingsGroup}), and {@link serializeSettings} / {@link applySettings} walk that
 * list both ways.
 * @module
 */

/** What a saved setting may hold, and how a loaded one is checked. */
export interface IKSettingField {
  /** A number (finite), an integer, a boolean, or one string of {@link choices}. */
  readonly kind: "number" | "integer" | "boolean" | "choice";
  /** Least value a loaded number may have. */
  readonly min?: number;
  /** Greatest value a loaded number may have. */
  readonly max?: number;
  /** The strings a `choice` may be. */
  readonly choices?: readonly string[];
  /** A number that may be Infinity ("none"), saved as `null` (JSON has no Infinity). */
  readonly unbounded?: boolean;
}

/**
 * Settings of one object, saved under `key` (dot-separated, nested objects in the saved form; "" for the top
 * level): each field of `fields` is the object's property of that name, read and written as such.
 */
export interface IKSettingsGroup {
  /** Where the group's fields go in the saved object ("solver", "effectors.leftHand"; "" at the top). */
  readonly key: string;
  /** The object holding the settings (the component, its solver, an effector…). */
  readonly target: object;
  /** The settings, by property name, in the saved order. */
  readonly fields: Readonly<Record<string, IKSettingField>>;
}

/** A value in saved settings: a setting (`null`: an unbounded one's Infinity), or a nested group. */
export type IKSettingValue = number | boolean | string | null | { [key: string]: IKSettingValue };

/**
 * An IK's saved settings: plain JSON, versioned (`version` first), the component's class name (`customType`,
 * Babylon's type tag), then the settings in a fixed order.
 */
export interface IKSettingsObject {
  /** The version of the saved form ({@link IK_SETTINGS_VERSION} when saved by this library). */
  version: number;
  /** The class that saved them ("FullBodyBipedIK", "LimbIK"…): loaded onto another kind, nothing is loaded. */
  customType: string;
  /** The settings and nested groups. */
  [key: string]: IKSettingValue;
}

/** The version of the saved form this library writes. */
export const IK_SETTINGS_VERSION = 1;

/** A [0, 1] weight. */
export const WEIGHT: IKSettingField = { kind: "number", min: 0, max: 1 };
/** A [−1, 1] weight. */
export const SIGNED_WEIGHT: IKSettingField = { kind: "number", min: -1, max: 1 };
/** A number ≥ 0 (seconds, lengths, tolerances). */
export const NON_NEGATIVE: IKSettingField = { kind: "number", min: 0 };
/** Any finite number. */
export const NUMBER: IKSettingField = { kind: "number" };
/** A boolean. */
export const FLAG: IKSettingField = { kind: "boolean" };
/** An integer in [min, max]. */
export function integerField(min: number, max: number): IKSettingField {
  return { kind: "integer", min, max };
}
/** A number in [min, max]. */
export function rangeField(min: number, max: number): IKSettingField {
  return { kind: "number", min, max };
}
/** One of the given strings. */
export function choiceField(choices: readonly string[]): IKSettingField {
  return { kind: "choice", choices };
}

type Bag = Record<string, IKSettingValue>;

/**
 * The settings of `groups` as a plain object: `version`, `customType` (`type`, the component's class name), then
 * each group's fields nested under its key.
 */
export function serializeSettings(groups: readonly IKSettingsGroup[], type: string): IKSettingsObject {
  const out: IKSettingsObject = { version: IK_SETTINGS_VERSION, customType: type };
  for (const g of groups) {
    const bag = branch(out, g.key);
    const target = g.target as Record<string, IKSettingValue>;
    for (const [name, field] of Object.entries(g.fields)) {
      const v = target[name]!;
      bag[name] = field.unbounded === true && v === Infinity ? null : v;
    }
  }
  return out;
}

/** The nested object at `key` in `root`, made where missing. */
function branch(root: Bag, key: string): Bag {
  let bag = root;
  if (key === "") return bag;
  for (const part of key.split(".")) {
    const next = bag[part];
    if (next !== undefined && next !== null && typeof next === "object") bag = next;
    else bag = bag[part] = {};
  }
  return bag;
}

/**
 * Writes the settings found in `parsed` (as {@link serializeSettings} made them, whole or in part) into the
 * objects of `groups`, a `type` component's. Settings left out keep their values. Settings of another type
 * (`customType`) load nothing, warned once; an unknown key, a value of the wrong kind or out of range, a missing
 * or newer version: warned through `warn` (once per cause there; messages without the owner's name) and
 * skipped, never thrown.
 */
export function applySettings(
  groups: readonly IKSettingsGroup[],
  parsed: unknown,
  warn: (cause: string, message: string) => void,
  type: string,
): void {
  if (!isBag(parsed)) {
    // the JSON text itself is the likely slip: `applySettings(text)` for `applySettings(JSON.parse(text))`
    const what = typeof parsed === "string" ? "a string (JSON text? JSON.parse it first)" : "not an object";
    warn("settings:not-an-object", `the settings to load are ${what}; nothing was loaded.`);
    return;
  }
  const saved = parsed.customType;
  if (saved !== undefined && saved !== type) {
    warn("settings:type", `the settings to load are a ${show(saved)}'s, not a ${type}'s; nothing was loaded.`);
    return;
  }
  const version = parsed.version;
  if (typeof version !== "number") {
    const what = version === undefined ? "have no version" : `have version ${show(version)}, not a number`;
    warn("settings:version", `the settings to load ${what}; loading the settings it knows.`);
  } else if (version > IK_SETTINGS_VERSION) {
    warn(
      "settings:version",
      `the settings to load are version ${version}, newer than ${IK_SETTINGS_VERSION}; loading the settings it knows.`,
    );
  }
  const leaves = new Map<string, [IKSettingsGroup, string]>();
  const branches = new Set<string>();
  for (const g of groups) {
    const prefix = g.key === "" ? "" : `${g.key}.`;
    for (const name of Object.keys(g.fields)) leaves.set(prefix + name, [g, name]);
    for (let i = g.key.indexOf("."); ; i = g.key.indexOf(".", i + 1)) {
      branches.add(i < 0 ? g.key : g.key.slice(0, i));
      if (i < 0) break;
    }
  }
  const visit = (bag: Bag, prefix: string): void => {
    for (const key of Object.keys(bag)) {
      const path = prefix + key;
      if (path === "version" || path === "customType") continue;
      const value = bag[key];
      const leaf = leaves.get(path);
      if (leaf !== undefined) {
        const [g, name] = leaf;
        const field = g.fields[name]!;
        if (field.unbounded === true && value === null) (g.target as Record<string, unknown>)[name] = Infinity;
        else if (fits(field, value)) (g.target as Record<string, unknown>)[name] = value;
        else warn(`settings:bad:${path}`, `setting ${path} = ${show(value)} is not ${expected(field)}; skipped.`);
      } else if (branches.has(path)) {
        if (isBag(value)) visit(value, `${path}.`);
        else warn(`settings:bad:${path}`, `settings ${path} = ${show(value)} are not an object of settings; skipped.`);
      } else {
        warn(`settings:unknown:${path}`, `no setting ${path} here; skipped.`);
      }
    }
  };
  visit(parsed, "");
}

function isBag(v: unknown): v is Bag {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** True when `value` is one `field` accepts. */
function fits(field: IKSettingField, value: unknown): boolean {
  switch (field.kind) {
    case "boolean":
      return typeof value === "boolean";
    case "choice":
      return typeof value === "string" && (field.choices ?? []).includes(value);
    default:
      return (
        typeof value === "number" &&
        Number.isFinite(value) &&
        (field.kind === "number" || Number.isInteger(value)) &&
        !(value < (field.min ?? -Infinity)) &&
        !(value > (field.max ?? Infinity))
      );
  }
}

/** What `field` accepts, for a warning. */
function expected(field: IKSettingField): string {
  if (field.kind === "boolean") return "a boolean";
  if (field.kind === "choice") return `one of ${(field.choices ?? []).map((c) => JSON.stringify(c)).join(", ")}`;
  const what = field.kind === "integer" ? "an integer" : "a finite number";
  const min = field.min ?? -Infinity;
  const max = field.max ?? Infinity;
  const none = field.unbounded === true ? " or null (none)" : "";
  if (max === Infinity) return (min === -Infinity ? what : `${what} ≥ ${min}`) + none;
  return `${what} in [${min}, ${max}]${none}`;
}

/** A loaded value as a warning shows it. */
function show(value: unknown): string {
  // JSON would show NaN and Infinity as null
  if (typeof value === "number") return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
