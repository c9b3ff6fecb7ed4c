/**
 * docs/ROBUSTNESS.md is checked by the robustness tests so it cannot go stale: each test file collects
 * one row per thing it tried (what, how many cases, the outcome it measured, in words that do not depend
 * on the machine), and its last test compares them with the file's section of the document. A plain
 * `npx vitest run` never writes; `ROBUSTNESS_UPDATE=1 npx vitest run test/robustness` rewrites the
 * sections from what the tests measured. Rows that need a model this machine does not have are kept as
 * committed (and not checked).
 */
import { closeSync, existsSync, openSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const ROBUSTNESS_DOC = resolve(here, "../../docs/ROBUSTNESS.md");
const UPDATE = process.env.ROBUSTNESS_UPDATE === "1";

/** One row: what was tried, how many cases, what happened. */
export interface Row {
  what: string;
  cases: number | string;
  outcome: string;
}

const HEADER = "| what was tried | cases | outcome |\n|---|---:|---|";
const cell = (s: string | number): string => String(s).replace(/\|/g, "\\|").replace(/\n/g, " ");
const line = (r: Row): string => `| ${cell(r.what)} | ${cell(r.cases)} | ${cell(r.outcome)} |`;

/** The rows of one section of docs/ROBUSTNESS.md, as one test file measures them. */
export class ReportSection {
  readonly name: string;
  private readonly entries: ({ row: Row } | { skipped: string })[] = [];

  constructor(name: string) {
    this.name = name;
  }

  /** Records a measured row (replacing an earlier row with the same `what`, e.g. on a retry). */
  add(row: Row): void {
    const i = this.entries.findIndex((e) => "row" in e && e.row.what === row.what);
    if (i >= 0) this.entries[i] = { row };
    else this.entries.push({ row });
  }

  /** Records that the row `what` could not be measured here (a model is missing): the committed row stays. */
  skip(what: string): void {
    this.entries.push({ skipped: what });
  }

  private markers(): [string, string] {
    return [`<!-- robustness:${this.name}:begin -->`, `<!-- robustness:${this.name}:end -->`];
  }

  /** The section's rows as committed in the document (by `what`). */
  private committed(doc: string): Map<string, string> | null {
    const [begin, end] = this.markers();
    const a = doc.indexOf(begin);
    const b = doc.indexOf(end);
    if (a < 0 || b < a) return null;
    const rows = new Map<string, string>();
    for (const l of doc.slice(a + begin.length, b).split("\n")) {
      const m = /^\| (.*?) \| /.exec(l);
      if (m && !l.startsWith("| what was tried") && !l.startsWith("|---")) rows.set(m[1]!, l);
    }
    return rows;
  }

  /** The section's table as measured (skipped rows taken from `doc`). */
  private table(doc: string): string {
    const committed = this.committed(doc) ?? new Map<string, string>();
    const lines = this.entries.map((e) =>
      "row" in e
        ? line(e.row)
        : (committed.get(cell(e.skipped)) ??
          line({ what: e.skipped, cases: 0, outcome: "not measured yet (model not on this machine)" })),
    );
    return `${HEADER}\n${lines.join("\n")}`;
  }

  /**
   * Compares the measured rows with the document (or rewrites the section with ROBUSTNESS_UPDATE=1).
   * Returns the differences in words (empty when the document is up to date).
   */
  check(): string[] {
    if (UPDATE) {
      withLock(() => {
        const doc = existsSync(ROBUSTNESS_DOC) ? readFileSync(ROBUSTNESS_DOC, "utf8") : "# Robustness\n";
        const [begin, end] = this.markers();
        const block = `${begin}\n${this.table(doc)}\n${end}`;
        const a = doc.indexOf(begin);
        const b = doc.indexOf(end);
        const next =
          a >= 0 && b > a ? doc.slice(0, a) + block + doc.slice(b + end.length) : `${doc.trimEnd()}\n\n${block}\n`;
        if (next !== doc) writeFileSync(ROBUSTNESS_DOC, next);
      });
      return [];
    }
    const doc = existsSync(ROBUSTNESS_DOC) ? readFileSync(ROBUSTNESS_DOC, "utf8") : "";
    const committed = this.committed(doc);
    if (committed === null) return [`docs/ROBUSTNESS.md has no section "${this.name}"`];
    const differences: string[] = [];
    const measured = this.entries.flatMap((e) => ("row" in e ? [e.row] : []));
    const skipped = new Set(this.entries.flatMap((e) => ("skipped" in e ? [cell(e.skipped)] : [])));
    for (const r of measured) {
      const have = committed.get(cell(r.what));
      if (have === undefined) differences.push(`missing row: ${line(r)}`);
      else if (have !== line(r)) differences.push(`row differs:\n  document: ${have}\n  measured: ${line(r)}`);
    }
    const known = new Set([...measured.map((r) => cell(r.what)), ...skipped]);
    for (const [what, l] of committed) if (!known.has(what)) differences.push(`row no test measured: ${l}`);
    if (differences.length === 0) {
      const order = this.entries.map((e) => cell("row" in e ? e.row.what : e.skipped));
      const docOrder = [...committed.keys()].filter((k) => known.has(k));
      if (order.join("\n") !== docOrder.join("\n")) differences.push("rows are in a different order");
    }
    return differences;
  }
}

/** Runs `f` holding a lock file (test files run in parallel workers and share the document). */
function withLock(f: () => void): void {
  const lock = `${ROBUSTNESS_DOC}.lock`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`could not lock ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    f();
  } finally {
    unlinkSync(lock);
  }
}

/** "bit for bit" for 0, else "within < 1e-7" (see {@link bound}). */
export function within(x: number): string {
  return x === 0 ? "bit for bit" : `within ${bound(x)}`;
}

/** "< 1e-7": the smallest power of ten above a non-negative error (stable wording for the table). */
export function bound(x: number): string {
  if (!(x >= 0)) return String(x);
  if (x === 0) return "0";
  return `< 1e${Math.ceil(Math.log10(x) + 1e-12)}`;
}

/** The failure message for a stale section. */
export function staleMessage(name: string, differences: string[]): string {
  return (
    `docs/ROBUSTNESS.md section "${name}" does not match what the tests measured:\n${differences.join("\n")}\n` +
    "If the change is intended, run: ROBUSTNESS_UPDATE=1 npx vitest run test/robustness"
  );
}
