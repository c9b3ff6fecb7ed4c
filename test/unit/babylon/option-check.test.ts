/**
 * The check of an options object at create (src/babylon/option-check.ts): kinds derived from the interface, so that
 * the table cannot drift from it (the `@ts-expect-error` lines fail `npm run typecheck` if it could), types thrown,
 * unknown keys warned with the nearest option or settable property.
 */
import { describe, expect, it } from "vitest";
import {
  type OptionKinds,
  checkOptions,
  eachOf,
  objectOf,
  warnUnknownOptions,
} from "../../../src/babylon/option-check.js";
import { FBBIKError } from "../../../src/solver/errors.js";

interface Sample {
  weight?: number;
  target?: object | null;
  name?: string;
  done?: () => void;
  flag?: boolean;
  either?: string | number;
}
const KINDS: OptionKinds<Sample> = {
  weight: "number",
  target: "object|null",
  name: "string",
  done: "function",
  flag: "boolean",
  either: "any",
};

interface Link {
  bone: object | string;
  weight?: number;
}
interface Nesting {
  refs?: { hand?: object | string; root?: object | null };
  links?: readonly (Link | Date)[];
}
const LINK_KINDS: OptionKinds<Link> = { bone: "object|string", weight: "number" };
const REFS_KINDS: OptionKinds<NonNullable<Nesting["refs"]>> = { hand: "object|string", root: "object|null" };
const NESTING_KINDS: OptionKinds<Nesting> = { refs: objectOf(REFS_KINDS), links: eachOf(LINK_KINDS) };
// @ts-expect-error a number option cannot be nested
const nestedNumber: OptionKinds<Sample> = { ...KINDS, weight: objectOf(LINK_KINDS) };
// @ts-expect-error a nested table follows its interface too: `weight` is a number
const wrongNested: OptionKinds<Link> = { bone: "object|string", weight: "string" };
// @ts-expect-error a nested option keeps its own kind: `refs` does not take null
const nestedNull: OptionKinds<Nesting> = { ...NESTING_KINDS, refs: objectOf(REFS_KINDS, "object|null") };
void [nestedNumber, wrongNested, nestedNull];

// the table follows the interface: a key left out, a key too many or a kind not the option's type is a type error
// @ts-expect-error `flag` and `either` are missing
const missing: OptionKinds<Sample> = { weight: "number", target: "object|null", name: "string", done: "function" };
// @ts-expect-error `iterations` is not an option of Sample
const extra: OptionKinds<Sample> = { ...KINDS, iterations: "number" };
// @ts-expect-error `target` takes null
const wrongKind: OptionKinds<Sample> = { ...KINDS, target: "object" };
void [missing, extra, wrongKind];

interface Arrays {
  bones?: readonly object[];
  target?: object | null;
  either?: object | readonly number[];
}
const ARRAY_KINDS: OptionKinds<Arrays> = { bones: "array", target: "object|null", either: "object|array" };
// @ts-expect-error an array option is "array", not "object"
const arrayAsObject: OptionKinds<Arrays> = { ...ARRAY_KINDS, bones: "object" };
void arrayAsObject;

/** The warnings `warnUnknownOptions` gives for `unknown`, as [cause, message]. */
function warnings(unknown: string[], settable: Record<string, object> = {}): [string, string][] {
  const out: [string, string][] = [];
  warnUnknownOptions({ warn: (c, m) => void out.push([c, m]) }, "Sample", unknown, KINDS, settable);
  return out;
}

describe("checkOptions", () => {
  it("takes options of the right kinds, and undefined or null (left out) anywhere", () => {
    const ok = {
      weight: 1,
      target: null,
      name: "n",
      done: () => {},
      flag: false,
      either: 3,
      flagg: true,
    } as unknown as Sample;
    expect(checkOptions("Sample", ok, KINDS)).toEqual(["flagg"]);
    expect(checkOptions("Sample", { weight: undefined }, KINDS)).toEqual([]);
    // a null option reads as left out (`??`), as before the check: `mesh: scene.getMeshByName(...)` not found
    expect(checkOptions("Sample", { weight: null, name: null } as unknown as Sample, KINDS)).toEqual([]);
    expect(checkOptions("Sample", undefined, KINDS)).toEqual([]);
  });

  it("throws one FBBIKError naming every value of the wrong type", () => {
    const bad = { weight: "0.5", flag: 1, target: "node" } as unknown as Sample;
    let error: unknown = null;
    try {
      checkOptions("Sample", bad, KINDS);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FBBIKError);
    expect((error as FBBIKError).component).toBe("Sample");
    expect((error as FBBIKError).problems).toEqual([
      'option "weight" is "0.5" (string): number expected',
      'option "flag" is 1 (number): boolean expected',
      'option "target" is "node" (string): object or null expected',
    ]);
    expect(() => checkOptions("Sample", 4 as Sample, KINDS)).toThrow("the options are 4 (number), not an object");
  });

  it("checks nested plain objects and array entries by path, not class instances", () => {
    const options = {
      refs: { hnad: "Hand", root: null },
      // an entry left out (undefined, null) is taken, a class instance is not looked into
      links: [{ bone: "a", wieght: 1 }, new Date(0), { bone: {}, weight: 1, extra: 0 }, undefined, null],
    } as unknown as Nesting;
    expect(checkOptions("Nesting", options, NESTING_KINDS)).toEqual(["refs.hnad", "links[0].wieght", "links[2].extra"]);
    let error: unknown = null;
    try {
      const bad = { refs: { hand: 5 }, links: [{ bone: "a", weight: "1" }, 3] } as unknown as Nesting;
      checkOptions("Nesting", bad, NESTING_KINDS);
    } catch (e) {
      error = e;
    }
    expect((error as FBBIKError).problems).toEqual([
      'option "refs.hand" is 5 (number): object or string expected',
      'option "links[0].weight" is "1" (string): number expected',
      'option "links[1]" is 3 (number): object expected',
    ]);
  });
});

describe("checkOptions and arrays", () => {
  it("tells an array from an object: `[node]` is no node, one object is no array", () => {
    const node = new Date(0);
    expect(checkOptions("Arrays", { bones: [node], target: node, either: [1, 2] }, ARRAY_KINDS)).toEqual([]);
    expect(checkOptions("Arrays", { either: node }, ARRAY_KINDS)).toEqual([]);
    let error: unknown = null;
    try {
      checkOptions("Arrays", { target: [node], bones: node } as unknown as Arrays, ARRAY_KINDS);
    } catch (e) {
      error = e;
    }
    expect((error as FBBIKError).problems).toEqual([
      'option "target" is an array of 1 (array): object or null expected',
      'option "bones" is a Date (object): array expected',
    ]);
  });
});

describe("warnUnknownOptions", () => {
  it("names a nested key by its path and the nearest key of its own table", () => {
    const out: string[] = [];
    const unknown = ["refs.hnad", "links[0].wieght", "links[2].zzz"];
    warnUnknownOptions({ warn: (_, m) => void out.push(m) }, "Nesting", unknown, NESTING_KINDS, { "": { hand: 1 } });
    expect(out).toEqual([
      'Nesting: unknown option "refs.hnad" ignored; did you mean "hand"?',
      'Nesting: unknown option "links[0].wieght" ignored; did you mean "weight"?',
      'Nesting: unknown option "links[2].zzz" ignored; the keys of "links[2]" are bone, weight',
    ]);
  });

  it("names the nearest option, case and a letter or two apart", () => {
    expect(warnings(["Weight", "wieght", "flagg"])).toEqual([
      ["option:Sample.Weight", 'Sample: unknown option "Weight" ignored; did you mean "weight"?'],
      ["option:Sample.wieght", 'Sample: unknown option "wieght" ignored; did you mean "weight"?'],
      ["option:Sample.flagg", 'Sample: unknown option "flagg" ignored; did you mean "flag"?'],
    ]);
  });

  it("else the property to set after create, else the options there are", () => {
    class Solver {
      iterations = 4;
      get tolerance(): number {
        return 0;
      }
      set tolerance(_: number) {}
      update(): void {}
    }
    const settable = { "": { enabled: true }, solver: new Solver() };
    expect(warnings(["iteration", "tolerence", "updat", "zzz"], settable).map(([, m]) => m)).toEqual([
      'Sample: unknown option "iteration" ignored; it is not an option: set `solver.iterations` on the Sample after ' +
        "create",
      'Sample: unknown option "tolerence" ignored; it is not an option: set `solver.tolerance` on the Sample after ' +
        "create",
      // a method is not something to set
      'Sample: unknown option "updat" ignored; its options are weight, target, name, done, flag, either',
      'Sample: unknown option "zzz" ignored; its options are weight, target, name, done, flag, either',
    ]);
  });

  it("options grouped under a key of the user's making: each named, to give at the top level or set after", () => {
    class Solver {
      iterations = 4;
    }
    const options = { solver: { weight: 1, iterations: 2 }, nothing: {} } as unknown as Sample;
    const unknown = checkOptions("Sample", options, KINDS);
    expect(unknown).toEqual(["solver.weight", "solver.iterations", "nothing"]);
    expect(warnings(unknown, { solver: new Solver() }).map(([, m]) => m)).toEqual([
      'Sample: unknown option "solver.weight" ignored; "weight" is an option itself: give it at the top level, not ' +
        'under "solver"',
      'Sample: unknown option "solver.iterations" ignored; it is not an option: set `solver.iterations` on the Sample ' +
        "after create",
      'Sample: unknown option "nothing" ignored; its options are weight, target, name, done, flag, either',
    ]);
  });
});
