/**
 * Walking saved IK settings in tests: their leaf paths, a value by path, every value changed to another valid one,
 * and the writable settings-like properties of an object (what a completeness test enumerates).
 */
import { expect } from "vitest";
import type { IKSettingsObject, IKSettingValue } from "../../src/babylon/ik-settings.js";

/** The names of an object's writable number, boolean and string properties (own and inherited, not `_…`). */
export function settingLike(o: object): string[] {
  const names = new Set<string>();
  for (let p: object | null = o; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const [n, d] of Object.entries(Object.getOwnPropertyDescriptors(p))) {
      if (n.startsWith("_") || n === "constructor") continue;
      if (d.set === undefined && d.writable !== true) continue;
      const v = (o as Record<string, unknown>)[n];
      if (typeof v === "number" || typeof v === "boolean" || typeof v === "string") names.add(n);
    }
  }
  return [...names].sort();
}

/** The keys of a saved group (its leaves: numbers, booleans, strings, null). */
export function leaves(bag: IKSettingValue | undefined): string[] {
  if (bag === undefined || bag === null || typeof bag !== "object") return [];
  return Object.keys(bag).filter((k) => bag[k] === null || typeof bag[k] !== "object");
}

/** The value at a dot-separated path of saved settings. */
export const at = (o: IKSettingsObject, path: string): IKSettingValue | undefined =>
  path
    .split(".")
    .reduce<IKSettingValue | undefined>((b, k) => (b !== null && typeof b === "object" ? b[k] : undefined), o);

/** Every leaf path of saved settings. */
export function paths(o: IKSettingValue, prefix = ""): string[] {
  if (o === null || typeof o !== "object") return [prefix.slice(0, -1)];
  return Object.keys(o).flatMap((k) => paths(o[k]!, `${prefix}${k}.`));
}

/** Another valid value of the settings whose value is a string or an enum's number, by name. */
const OTHER: Record<string, (v: IKSettingValue) => IKSettingValue> = {
  bendModifier: (v) => (v === "parent" ? "target" : "parent"),
  linkOrder: (v) => (v === "tipToRoot" ? "rootToTip" : "tipToRoot"),
  quality: (v) => ((v as number) + 1) % 3,
  clampSmoothing: (v) => ((v as number) + 1) % 3,
  sphereProbeRays: () => 12,
  subSteps: () => 3,
  priority: () => 2,
  maxAngle: () => 0.4,
  iterations: (v) => (v === 4 ? 6 : 2),
  maxIterations: () => 8,
  iterationTolerance: () => 3e-5,
  minRootRotation: (v) => (v === -10 ? -20 : -10),
};

/** Saved settings with every value changed to another valid one (each number its own). */
export function varied(saved: IKSettingsObject): IKSettingsObject {
  let n = 0;
  const change = (key: string, v: IKSettingValue): IKSettingValue => {
    if (v !== null && typeof v === "object")
      return Object.fromEntries(Object.keys(v).map((k) => [k, change(k, v[k]!)]));
    if (key === "version" || key === "customType") return v;
    const other = OTHER[key];
    if (other !== undefined) return other(v);
    if (typeof v === "boolean") return !v;
    if (typeof v !== "number") return v;
    n++;
    if (key.endsWith("Smoothing")) return (v + 1) % 3;
    if (key.endsWith("Seconds")) return 0.1 + n / 100;
    // weights: distinct values in (0.05, 0.95), away from the default
    const w = 0.05 + ((n * 0.137) % 0.9);
    return Math.abs(w - v) < 0.01 ? w + 0.02 : w;
  };
  return change("", saved) as IKSettingsObject;
}

/** What every component with settings has. */
export interface WithSettings {
  serialize(): IKSettingsObject;
  applySettings(parsed: unknown): void;
}

/**
 * Tunes `from` (every saved setting changed, written straight into its properties by `set`), loads what it saves
 * into `to` through JSON, and checks that both then save the same and that every setting of `to` changed (not
 * defaults meeting defaults). Returns the JSON.
 */
export function expectRoundTrip<T extends WithSettings>(
  from: T,
  to: WithSettings,
  set: (c: T, saved: IKSettingsObject) => void,
): string {
  const fresh = to.serialize();
  const tuned = varied(from.serialize());
  set(from, tuned);
  const saved = from.serialize();
  expect(saved).toEqual(tuned);
  const text = JSON.stringify(saved);
  to.applySettings(JSON.parse(text));
  expect(JSON.stringify(to.serialize())).toBe(text);
  const all = paths(fresh).filter((p) => p !== "version" && p !== "customType");
  expect(all.filter((p) => at(fresh, p) !== at(saved, p))).toEqual(all);
  return text;
}
