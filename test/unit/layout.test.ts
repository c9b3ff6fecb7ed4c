/**
 * The layering docs/ARCHITECTURE.md states is the layering the imports follow. The arrow is read from the
 * document itself (the line starting "Layers:"), so the two cannot drift: every folder of src/ belongs to a
 * room of the arrow, a file imports only from its own room or rooms to its left, and the engine-neutral
 * rooms (those on the document's "No Babylon:" line) never import @babylonjs.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo-root.js";

const root = repoRoot(import.meta.url);
const src = join(root, "src");

/** Rooms in order (lowest first), each a path under src/ ("" for src/ itself); a brace group shares one rank. */
function readArrow(): { rank: Map<string, number>; neutral: Set<string> } {
  const doc = readFileSync(join(root, "docs", "ARCHITECTURE.md"), "utf8");
  const line = doc.split("\n").find((l) => l.startsWith("Layers:"));
  if (line === undefined) throw new Error('docs/ARCHITECTURE.md has no line starting "Layers:"');
  const arrow = /`([^`]+)`/.exec(line)![1]!;
  const rank = new Map<string, number>();
  arrow.split("←").forEach((step, i) => {
    for (const room of step.replace(/[{}]/g, "").split(",")) rank.set(room.trim() === "index" ? "" : room.trim(), i);
  });
  const neutralLine = doc.split("\n").find((l) => l.startsWith("No Babylon:"));
  const neutral = new Set([...(neutralLine ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  return { rank, neutral };
}

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (e.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** The room of a file: the longest declared room that contains it. */
function roomOf(file: string, rooms: Iterable<string>): string | undefined {
  const rel = relative(src, dirname(file)).split("\\").join("/");
  let best: string | undefined;
  for (const r of rooms) {
    if ((r === "" && rel === "") || rel === r || rel.startsWith(`${r}/`)) {
      if (best === undefined || r.length > best.length) best = r;
    }
  }
  return best;
}

describe("layout (docs/ARCHITECTURE.md, Layout)", () => {
  const { rank, neutral } = readArrow();
  const files = sources(src);

  it("the arrow names the rooms", () => {
    expect(rank.size).toBeGreaterThan(4);
    expect(neutral.size).toBeGreaterThan(2);
  });

  it("every source file is in a room of the arrow", () => {
    const homeless = files.filter((f) => roomOf(f, rank.keys()) === undefined).map((f) => relative(root, f));
    expect(homeless).toEqual([]);
  });

  it("imports point one way: from a room to itself or to rooms left of it", () => {
    const wrong: string[] = [];
    for (const f of files) {
      const from = roomOf(f, rank.keys())!;
      const text = readFileSync(f, "utf8");
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)) {
        const target = resolve(dirname(f), m[1]!);
        const to = roomOf(target, rank.keys());
        if (to === undefined || to === from) continue;
        if (rank.get(to)! >= rank.get(from)!)
          wrong.push(`${relative(root, f)} (${from || "index"}) → ${m[1]} (${to || "index"})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("engine-neutral rooms never import Babylon", () => {
    const wrong = files
      .filter((f) => neutral.has(roomOf(f, rank.keys())!))
      .filter((f) => /(?:from|import)\s*\(?\s*"@babylonjs\//.test(readFileSync(f, "utf8")))
      .map((f) => relative(root, f));
    expect(wrong).toEqual([]);
  });
});
