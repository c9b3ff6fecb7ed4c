/**
 * `npm run bench:touch`: how much memory one character's IK frame touches, counted instead of timed.
 *
 * With many characters the IK's cost is set by memory: each character's data has left the caches by the
 * time its turn comes again, so every cache line a frame touches is fetched anew (bench/README.md,
 * "Memory touched per character"). Timing that on a shared VM is noisy (±25 % between consecutive
 * seconds), so this counts it: the frame benchmark's crowd runs under valgrind's callgrind with a
 * simulated cache whose last level (256 KB) is far smaller than the crowd, so each line a character's
 * frame touches for the first time misses it; the misses per character per frame are the lines it
 * touches. (256 KB rather than 1 MB: FixTransforms runs for every character before the updates, about
 * 1 MB for 100 characters, and a 1 MB last level kept some of it for the updates and for the next frame,
 * counting FixTransforms at 97 lines instead of 166. A character's own frame, ~70 KB, still fits.) The count is the
 * same run after run (the simulation is deterministic; V8 compiles on the main
 * thread with `--single-threaded`), so a change of a few lines shows.
 *
 * The simulation covers only the measured frames (switched on and off with callgrind_control around a
 * file handshake, see bench/touch-crowd.ts); a run with no frames is subtracted for the handshake's own
 * few lines. Misses are charged to the function whose code ran them, named through V8's perf map
 * (`--perf-basic-prof`); code V8 inlined is charged to the function it was inlined into.
 *
 * `npm run bench:touch -- stages` also counts the frame up to each stage (FixTransforms; + the rig's read;
 * + the solver and mapping; the whole frame), so each stage's own lines are the differences.
 *
 * Needs valgrind (`callgrind`, `callgrind_control`, `callgrind_annotate`); prints a note and exits 0
 * without it. Writes bench/results/touch.json. Takes about 40 s, 2½ minutes with the stages.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { repoRoot } from "../test/helpers/repo-root.js";
import { printRows, round, writeResult } from "./common.js";

/** Characters in the crowd: 100 Mannequins touch several MB, far beyond the simulated 256 KB. */
const CHARACTERS = 100;
/** Frames before the measurement (10,000 character updates: the hot functions are optimised). */
const WARM_FRAMES = 100;
/** Measured frames. */
const FRAMES = 10;
/** The simulated caches: 32 KB 8-way L1s, a 256 KB 16-way last level, 64-byte lines. */
const CACHE_ARGS = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,16,64"];
const EVENTS = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"] as const;

/** Costs of one function (or the whole run): callgrind's event counts. */
type Costs = Record<(typeof EVENTS)[number], number>;

/** What `npm run bench:touch` writes to bench/results/touch.json. */
export interface TouchResult {
  /** Characters in the crowd. */
  characters: number;
  /** Measured frames. */
  frames: number;
  /** Last-level data misses per character per frame: the cache lines one character's frame touches. */
  linesPerCharacterFrame: number;
  /** The same in bytes (64-byte lines). */
  bytesPerCharacterFrame: number;
  /** Instructions per character per frame (for context: the work, not the memory). */
  instructionsPerCharacterFrame: number;
  /** Lines per character per frame by the module whose code touched them. */
  byModule: Array<{ module: string; lines: number }>;
  /** The functions that touch the most lines (inlined callees included), per character per frame. */
  topFunctions: Array<{ name: string; lines: number; instructions: number }>;
  /**
   * With `stages`: lines per character per frame of the frame run up to each stage (cumulative, in the
   * order `scene.render()` runs them), and each stage's own share (the differences).
   */
  stages?: Array<{ stage: string; cumulativeLines: number; ownLines: number }>;
  /** Node version, date, the simulated caches. */
  node: string;
  date: string;
  cache: string;
}

const root = repoRoot(import.meta.url);

function have(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitFor(file: string, child: { exitCode: number | null }): Promise<void> {
  while (!existsSync(file)) {
    if (child.exitCode !== null) throw new Error(`touch-crowd exited (${child.exitCode}) before ${file}`);
    await sleep(100);
  }
}

/** Runs the crowd under callgrind with `frames` measured frames; returns the output file and the pid. */
async function runCrowd(frames: number, stage = "frame"): Promise<{ out: string; pid: number }> {
  const sync = join(tmpdir(), `fbbik-touch-${process.pid}-${frames}`);
  const out = `${sync}.callgrind`;
  for (const s of [".ready", ".go", ".done", ".exit"]) rmSync(sync + s, { force: true });
  const args = [
    "--tool=callgrind",
    "--cache-sim=yes",
    "--instr-atstart=no",
    ...CACHE_ARGS,
    `--callgrind-out-file=${out}`,
  ];
  const node = [
    "--expose-gc",
    "--single-threaded",
    "--perf-basic-prof",
    join(root, ".bench-build/bench/touch-crowd.js"),
  ];
  const child = spawn(
    "valgrind",
    [...args, process.execPath, ...node, String(CHARACTERS), String(WARM_FRAMES), String(frames), stage],
    {
      env: { ...process.env, FBBIK_TOUCH_SYNC: sync },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const pid = child.pid!;
  await waitFor(`${sync}.ready`, child);
  spawnSync("callgrind_control", ["-i", "on", String(pid)], { stdio: "ignore" });
  writeFileSync(`${sync}.go`, "");
  await waitFor(`${sync}.done`, child);
  spawnSync("callgrind_control", ["-i", "off", String(pid)], { stdio: "ignore" });
  writeFileSync(`${sync}.exit`, "");
  const code = await exited;
  for (const s of [".ready", ".go", ".done", ".exit"]) rmSync(sync + s, { force: true });
  if (code !== 0) throw new Error(`touch-crowd under valgrind exited with ${code}:\n${stderr.slice(-2000)}`);
  return { out, pid };
}

/** V8's perf map: JIT code ranges and their names, later entries winning (code space is reused). */
function perfMap(pid: number): (address: number) => string | null {
  const file = `/tmp/perf-${pid}.map`;
  if (!existsSync(file)) return () => null;
  const entries = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l, order) => {
      const [a, s, ...name] = l.split(" ");
      return { start: parseInt(a!, 16), size: parseInt(s!, 16), name: name.join(" "), order };
    });
  rmSync(file, { force: true });
  return (address) => {
    let best: (typeof entries)[number] | null = null;
    for (const e of entries)
      if (address >= e.start && address < e.start + e.size && (best === null || e.order > best.order)) best = e;
    return best?.name ?? null;
  };
}

/** Per-function self costs from callgrind_annotate, JIT functions named through the perf map. */
function functionCosts(out: string, pid: number): { total: Costs; functions: Map<string, Costs> } {
  const text = spawnSync("callgrind_annotate", ["--threshold=100", "--inclusive=no", out], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  }).stdout;
  rmSync(out, { force: true });
  const nameOf = perfMap(pid);
  const column = String.raw`(\d[\d,]*|\.)(?: \([^)]*\))?\s+`;
  const row = new RegExp(`^\\s*${column.repeat(EVENTS.length)}(.*)$`);
  const functions = new Map<string, Costs>();
  let total: Costs | null = null;
  for (const line of text.split("\n")) {
    const m = row.exec(line);
    if (m === null) continue;
    const costs = Object.fromEntries(
      EVENTS.map((e, i) => [e, m[i + 1] === "." ? 0 : Number(m[i + 1]!.replace(/,/g, ""))]),
    ) as Costs;
    let name = m[EVENTS.length + 1]!.trim();
    if (name.startsWith("PROGRAM TOTALS")) {
      total = costs;
      continue;
    }
    const address = /^\?\?\?:(0x[0-9a-f]+)/.exec(name);
    if (address !== null) name = nameOf(parseInt(address[1]!, 16)) ?? name;
    const sum = functions.get(name);
    if (sum === undefined) functions.set(name, costs);
    else for (const e of EVENTS) sum[e] += costs[e];
  }
  if (total === null) throw new Error(`no totals in callgrind_annotate's output:\n${text.slice(0, 2000)}`);
  return { total, functions };
}

/** The module a function belongs to: a file of this repository, Babylon.js, or the runtime. */
function moduleOf(name: string): string {
  const file = /file:\/\/([^:]+)/.exec(name)?.[1];
  if (file === undefined) return "V8 runtime / native";
  if (file.includes("node_modules/@babylonjs/")) return "@babylonjs/core";
  return relative(join(root, ".bench-build"), file).replace(/\.js$/, ".ts");
}

/** Short function name: V8's `JS:*name file:///…/x.js:l:c` → `name (x.ts)`. */
function shortName(name: string): string {
  const m = /^JS:[*~^+]?(\S*) file:\/\/[^:]+:\d+:\d+$/.exec(name);
  return m === null ? name : `${m[1] || "(anonymous)"} (${moduleOf(name)})`;
}

async function main(): Promise<void> {
  for (const tool of ["valgrind", "callgrind_control", "callgrind_annotate"]) {
    if (!have(tool)) {
      console.log(`bench:touch needs ${tool} (Debian's valgrind package); not found, nothing measured.`);
      return;
    }
  }
  console.log(
    `bench:touch: ${CHARACTERS} Mannequins under callgrind (${CACHE_ARGS.join(" ")}), ${FRAMES} measured frames…`,
  );
  const measured = await runCrowd(FRAMES);
  const idle = await runCrowd(0);
  const m = functionCosts(measured.out, measured.pid);
  const base = functionCosts(idle.out, idle.pid).total;
  const updates = CHARACTERS * FRAMES;
  const lines = (c: Costs): number => c.DLmr + c.DLmw;
  const perUpdate = (v: number, digits = 1): number => round(v / updates, digits);
  const byModule = new Map<string, number>();
  for (const [name, c] of m.functions) byModule.set(moduleOf(name), (byModule.get(moduleOf(name)) ?? 0) + lines(c));
  const linesPerUpdate = perUpdate(lines(m.total) - lines(base));
  const result: TouchResult = {
    characters: CHARACTERS,
    frames: FRAMES,
    linesPerCharacterFrame: linesPerUpdate,
    bytesPerCharacterFrame: Math.round(linesPerUpdate * 64),
    instructionsPerCharacterFrame: perUpdate(m.total.Ir - base.Ir, 0),
    byModule: [...byModule]
      .map(([module, l]) => ({ module, lines: perUpdate(l) }))
      .filter((r) => r.lines >= 0.5)
      .sort((a, b) => b.lines - a.lines),
    topFunctions: [...m.functions]
      .map(([name, c]) => ({ name: shortName(name), lines: perUpdate(lines(c)), instructions: perUpdate(c.Ir, 0) }))
      .sort((a, b) => b.lines - a.lines)
      .slice(0, 20),
    node: process.version,
    date: new Date().toISOString(),
    cache: CACHE_ARGS.join(" "),
  };
  if (process.argv.includes("stages")) {
    const names: Array<[string, string]> = [
      ["fix", "FixTransforms (every character, before the updates)"],
      ["read", "+ rig.read() (Babylon's nodes, component space, FK)"],
      ["solve", "+ solver and mapping (nothing written to Babylon)"],
    ];
    result.stages = [];
    let before = 0;
    for (const [stage, label] of names) {
      const run = await runCrowd(FRAMES, stage);
      const l = perUpdate(lines(functionCosts(run.out, run.pid).total) - lines(base));
      result.stages.push({ stage: label, cumulativeLines: l, ownLines: round(l - before, 1) });
      before = l;
    }
    result.stages.push({
      stage: "+ rig.write() and the rest (the whole frame)",
      cumulativeLines: linesPerUpdate,
      ownLines: round(linesPerUpdate - before, 1),
    });
  }
  printRows([
    ["lines touched per character per frame", result.linesPerCharacterFrame, "lines"],
    ["bytes touched per character per frame", result.bytesPerCharacterFrame, "B"],
    ["instructions per character per frame", result.instructionsPerCharacterFrame, ""],
  ]);
  if (result.stages !== undefined) {
    console.log("\n  by stage (own lines per character per frame; cumulative in brackets):");
    printRows(
      result.stages.map((r) => [`  ${r.stage}`, `${r.ownLines.toFixed(1)} (${r.cumulativeLines.toFixed(1)})`, "lines"]),
    );
  }
  console.log("\n  by module (lines per character per frame):");
  printRows(result.byModule.map((r) => [`  ${r.module}`, r.lines.toFixed(1), "lines"]));
  console.log("\n  functions touching the most lines (inlined callees included):");
  printRows(result.topFunctions.map((r) => [`  ${r.name}`, r.lines.toFixed(1), "lines"]));
  console.log(`  -> ${relative(process.cwd(), writeResult("touch.json", result))}`);
}

try {
  await main();
} catch (err) {
  console.log(`ERROR: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
}
