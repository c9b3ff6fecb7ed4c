/**
 * The check of an options object at create, for users writing plain JavaScript (the Playground, the UMD bundle):
 * a key the component does not know is warned of with the nearest one, a value of the wrong type throws.
 * @module
 */
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { FBBIKError } from "../solver/errors.js";

/**
 * What an option of type `V` may hold at run time, as `typeof` tells it (but "array" for an array, which is no
 * "object" here): "number", "boolean", "string", "function", "array", "object", "object|string" (a bone or its
 * name), or "any" for another union (unchecked); `|null` appended when the option takes null.
 */
export type OptionKind<V> = (
  [NonNullable<V>] extends [number]
    ? "number"
    : [NonNullable<V>] extends [boolean]
      ? "boolean"
      : [NonNullable<V>] extends [string]
        ? "string"
        : [NonNullable<V>] extends [(...args: never[]) => unknown]
          ? "function"
          : [NonNullable<V>] extends [readonly unknown[]]
            ? "array"
            : [NonNullable<V>] extends [object]
              ? // an array among them is "array" at run time
                [Extract<NonNullable<V>, readonly unknown[]>] extends [never]
                ? "object"
                : "object|array"
              : [NonNullable<V>] extends [object | string]
                ? // a bone or its name; a function among them would be "function" at run time
                  [Extract<NonNullable<V>, (...args: never[]) => unknown>] extends [never]
                  ? "object|string"
                  : "any"
                : "any"
) extends infer K extends string
  ? null extends V
    ? `${K}|null`
    : K
  : never;

/**
 * The known keys of an options interface with the kind each holds. Declared as `OptionKinds<XOptions>`, the
 * table cannot drift from the interface: `tsc` fails on a key missing, a key too many or a kind that is not the
 * option's type.
 */
export type OptionKinds<T> = {
  readonly [K in keyof T]-?:
    | OptionKind<T[K]>
    | (OptionKind<T[K]> extends `object${string}` | `array${string}` ? NestedKinds<OptionKind<T[K]>> : never);
};

/**
 * An option whose plain objects are checked too, against `kinds` (a table typed `OptionKinds<XInit>`, so it
 * cannot drift either): the option's value itself (`"object"`), or each entry of its array (`"each"`). Class
 * instances (a Bone, a Vector3, a RecoilOffset) are not looked into: their own constructors check them.
 */
export interface NestedKinds<K extends string = string> {
  /** The option's own kind, as {@link OptionKind} gives it ("object", "object|null"). */
  readonly kind: K;
  /** `"object"`: the value is checked; `"each"`: every entry of the array is. */
  readonly shape: "object" | "each";
  /** The kinds of the nested object's keys. */
  readonly kinds: object;
}

/** An option of kind `kind` whose plain object is checked against `kinds` ({@link NestedKinds}). */
export function objectOf<T, K extends string = "object">(kinds: OptionKinds<T>, kind = "object" as K): NestedKinds<K> {
  return { kind, shape: "object", kinds };
}

/** An array option whose plain-object entries are each checked against `kinds` ({@link NestedKinds}). */
export function eachOf<T, K extends string = "array">(kinds: OptionKinds<T>, kind = "array" as K): NestedKinds<K> {
  return { kind, shape: "each", kinds };
}

/** A warning channel (an IK's solver, a component): one message per cause (`option:<component>.<key>` here). */
export interface WarningChannel {
  /** Reports `message` once per `cause`. */
  warn(cause: string, message: string): void;
}

/** What `value` is, in the words of an option kind: an array apart, so that `[node]` is not taken for a node. */
function kindOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/**
 * True when `value` is of `kind` ("number", "object|null"…). Undefined and null always are: every option may be
 * left out, and the components read a null one as left out (`??`), as they did before this check.
 */
function holds(value: unknown, kind: string): boolean {
  if (value === undefined || value === null) return true;
  const is = kindOf(value);
  return kind.split("|").some((k) => k === "any" || k === is);
}

/** The value as a problem quotes it: a string in quotes, an object by its class. */
function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object" && value !== null) {
    const name: string = value.constructor?.name ?? "object";
    return `${/^[AEIOU]/i.test(name) ? "an" : "a"} ${name}`;
  }
  return String(value);
}

/**
 * Checks `options` of `component` against `kinds` at create: throws an {@link FBBIKError} naming every value of
 * the wrong type (the setup policy: nothing is attached), and returns the keys `kinds` does not know, for
 * {@link warnUnknownOptions} (the caller warns them once its warning channel exists). The plain objects of a
 * nested option ({@link NestedKinds}) are checked too, their keys named by path (`references.leftHand`).
 */
export function checkOptions<T>(
  component: string,
  options: NoInfer<T> | null | undefined,
  kinds: OptionKinds<T>,
): string[] {
  if (options === undefined || options === null) return [];
  if (typeof options !== "object")
    throw new FBBIKError([`the options are ${shown(options)} (${typeof options}), not an object`], component);
  const unknown: string[] = [];
  const problems: string[] = [];
  checkInto("", options, kinds, unknown, problems);
  if (problems.length > 0) throw new FBBIKError(problems, component);
  return unknown;
}

/** A table's entry for a key: its kind and, for a nested option, its {@link NestedKinds}. */
type TableEntry = string | NestedKinds;

/** True for an object literal (a JSON-like object), the only objects a nested table describes. */
function isPlain(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Checks `options` against `kinds`, its keys named `prefix` + key: unknown paths and problems are pushed. */
function checkInto(prefix: string, options: object, kinds: object, unknown: string[], problems: string[]): void {
  const table = kinds as Readonly<Record<string, TableEntry>>;
  for (const [key, value] of Object.entries(options)) {
    const path = prefix + key;
    const entry = table[key];
    if (entry === undefined) {
      // options nested under a key of their own making (`{ solver: { maxStep } }`): each is named, to be placed
      if (prefix === "" && isPlain(value) && Object.keys(value).length > 0)
        for (const inner of Object.keys(value)) unknown.push(`${path}.${inner}`);
      else unknown.push(path);
      continue;
    }
    const kind = typeof entry === "string" ? entry : entry.kind;
    if (!holds(value, kind)) {
      problems.push(`option "${path}" is ${shown(value)} (${kindOf(value)}): ${kind.split("|").join(" or ")} expected`);
    } else if (typeof entry === "object" && value !== null && value !== undefined) {
      if (entry.shape === "object") {
        if (isPlain(value)) checkInto(`${path}.`, value, entry.kinds, unknown, problems);
      } else if (Array.isArray(value)) {
        value.forEach((v: unknown, i) => {
          // an entry left out (a joint without settings) is as the option left out
          if (isPlain(v)) checkInto(`${path}[${i}].`, v, entry.kinds, unknown, problems);
          else if (!holds(v, "object"))
            problems.push(`option "${path}[${i}]" is ${shown(v)} (${kindOf(v)}): object expected`);
        });
      }
    }
  }
}

/**
 * Checks an option of a string union (a LimbIK's `bendModifier`), which {@link checkOptions} sees as a string:
 * returns `value` when it is one of `choices` or left out, else throws an {@link FBBIKError} listing them (a typo
 * such as "Goal" would otherwise select nothing, silently).
 */
export function checkChoice<C extends string>(
  component: string,
  key: string,
  value: C | undefined,
  choices: readonly C[],
): C | undefined {
  if (value === undefined || value === null || choices.includes(value)) return value ?? undefined;
  const names = choices.map((c) => JSON.stringify(c)).join(", ");
  throw new FBBIKError([`option "${key}" is ${shown(value)}: one of ${names} expected`], component);
}

/** The table that describes the last key of `path` ("references.leftHnad", "offsets[0].effectorLinks[1].wieght"). */
function tableOf(kinds: object, path: string): object {
  const names = path.split(".");
  let table = kinds;
  for (const name of names.slice(0, -1)) {
    const entry = (table as Readonly<Record<string, TableEntry>>)[name.replace(/\[\d+\]$/, "")];
    if (entry === undefined || typeof entry === "string") return {};
    table = entry.kinds;
  }
  return table;
}

/** Levenshtein distance between `a` and `b`, ignoring case. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let row = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const next = [i];
    for (let j = 1; j <= t.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
    row = next;
  }
  return row[t.length]!;
}

/** The names one may assign on `target`: setters and writable fields, its own and its classes'. */
function settableNames(target: object): string[] {
  const names: string[] = [];
  for (let o: object | null = target; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(o))) {
      if (name.startsWith("_") || name === "constructor") continue;
      if (d.set !== undefined || (d.writable === true && typeof d.value !== "function")) names.push(name);
    }
  }
  return names;
}

/** The candidate nearest to `key` by {@link distance} (ties: the first), or null when none is near. */
function nearest(key: string, candidates: readonly (readonly [name: string, label: string])[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const [name, label] of candidates) {
    const d = distance(key, name);
    if (d < bestDistance) [best, bestDistance] = [label, d];
  }
  return best;
}

/**
 * Warns on `channel` of each key of `unknown` (from {@link checkOptions}; a nested one by its path,
 * `references.leftHnad`), naming the nearest known option (of the nested table), else
 * the nearest property to set after create on the component or one of `settable` (by its path on the component:
 * `""` the component, `"solver"` its solver), else the known options.
 */
export function warnUnknownOptions(
  channel: WarningChannel,
  component: string,
  unknown: readonly string[],
  kinds: object,
  settable: Readonly<Record<string, object>> = {},
): void {
  const table = kinds as Readonly<Record<string, TableEntry>>;
  for (const path of unknown) {
    const dot = path.lastIndexOf(".");
    const key = path.slice(dot + 1);
    // under a top-level key that is no option: the user's own grouping of options or properties
    const head = path.slice(0, Math.max(dot, 0));
    const misplaced = dot >= 0 && !head.includes(".") && table[head.replace(/\[\d+\]$/, "")] === undefined;
    if (misplaced && table[key] !== undefined) {
      const hint = `"${key}" is an option itself: give it at the top level, not under "${head}"`;
      channel.warn(`option:${component}.${path}`, `${component}: unknown option "${path}" ignored; ${hint}`);
      continue;
    }
    const known = misplaced ? Object.keys(kinds) : Object.keys(tableOf(kinds, path));
    const option = nearest(
      key,
      known.map((k) => [k, k] as const),
    );
    // a nested key is no property of the component: only its own options get that hint
    const property =
      option !== null || (dot >= 0 && !misplaced)
        ? null
        : nearest(
            key,
            Object.entries(settable).flatMap(([at, o]) =>
              settableNames(o).map((n) => [n, at === "" ? n : `${at}.${n}`] as const),
            ),
          );
    const hint =
      option !== null
        ? `did you mean "${option}"?`
        : property !== null
          ? `it is not an option: set \`${property}\` on the ${component} after create`
          : dot >= 0 && !misplaced
            ? `the keys of "${path.slice(0, dot)}" are ${known.join(", ")}`
            : `its options are ${known.join(", ")}`;
    channel.warn(`option:${component}.${path}`, `${component}: unknown option "${path}" ignored; ${hint}`);
  }
}

/** The option warnings already logged without a component to carry them (one per component and key). */
const logged = new Set<string>();

/** The channel of what has no warning channel of its own: Babylon's Logger, once per cause. */
export const LOGGER_CHANNEL: WarningChannel = {
  warn(cause, message) {
    if (logged.has(cause)) return;
    logged.add(cause);
    Logger.Warn(`babylon-fbbik: ${message}`);
  },
};

/**
 * {@link checkOptions} and {@link warnUnknownOptions} at once, for what has no warning channel of its own (a
 * function, a ground probe, an interaction object): unknown keys go to Babylon's Logger, once per component and key.
 */
export function checkLoggedOptions<T>(
  component: string,
  options: NoInfer<T> | null | undefined,
  kinds: OptionKinds<T>,
): void {
  warnUnknownOptions(LOGGER_CHANNEL, component, checkOptions(component, options, kinds), kinds);
}
