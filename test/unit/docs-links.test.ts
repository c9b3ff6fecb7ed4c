/**
 * The documentation's links resolve: every `](#anchor)` names a heading of its own file, every relative link a
 * file of the repository (and, with `#anchor`, a heading there), and every test file the prose cites exists.
 * Anchors are GitHub's: the heading lower-cased, punctuation dropped, spaces as hyphens, repeats numbered.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo-root.js";

const root = repoRoot(import.meta.url);
const DOCS = [
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  "docs/API.md",
  "docs/ARCHITECTURE.md",
  "docs/ROBUSTNESS.md",
];

/** The anchors GitHub gives the headings of a Markdown text (fenced code skipped). */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) inCode = !inCode;
    const m = inCode ? null : /^#{1,6} (.*)$/.exec(line);
    if (m === null) continue;
    const slug = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** The text outside fenced code, where a `](…)` is a link. */
const prose = (markdown: string): string => markdown.replace(/```[\s\S]*?```/g, "");

describe("documentation links", () => {
  it("anchors follow GitHub's rule", () => {
    const anchors = headingAnchors("# A `b`, c: d (e)\n## 4. Frame order\n## x\n## x\n```\n# not a heading\n```\n");
    expect([...anchors]).toEqual(["a-b-c-d-e", "4-frame-order", "x", "x-1"]);
  });

  it("every intra-doc anchor and relative link resolves", () => {
    const broken: string[] = [];
    let links = 0;
    for (const file of DOCS) {
      const text = readFileSync(join(root, file), "utf8");
      for (const m of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue; // https:, mailto:
        links++;
        const [path, anchor] = link.split("#") as [string, string | undefined];
        const target = path === "" ? join(root, file) : join(root, dirname(file), path);
        if (!existsSync(target)) {
          broken.push(`${file}: ${link} (no such file)`);
          continue;
        }
        if (anchor !== undefined && !headingAnchors(readFileSync(target, "utf8")).has(anchor)) {
          broken.push(`${file}: ${link} (no such heading)`);
        }
      }
    }
    expect(links).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });

  it("docs/API.md's table of contents lists every section and subsection, in order", () => {
    const text = readFileSync(join(root, "docs", "API.md"), "utf8");
    // the contents: the list between the title's paragraph and the first rule
    const contents = [...text.slice(0, text.indexOf("\n---\n")).matchAll(/^ *- \[[^\]]+\]\(#([^)]+)\)$/gm)];
    const headings = [...headingAnchors(text.replace(/^#{4,6} .*$/gm, ""))].filter((a) => a !== "babylon-fbbik-api");
    expect(contents.map((m) => m[1])).toEqual(headings);
  });

  it("every test file the docs cite by path exists", () => {
    const missing: string[] = [];
    for (const file of DOCS) {
      for (const m of readFileSync(join(root, file), "utf8").matchAll(/\btest\/[\w/.-]+\.ts\b/g)) {
        if (!existsSync(join(root, m[0]))) missing.push(`${file}: ${m[0]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
