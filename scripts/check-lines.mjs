// Lines longer than 120 characters in the sources (npm run lint): the formatter breaks code, not strings
// or comments, so this check catches those. Tests are left out: a test's name is its specification, kept
// on one line so it can be found with grep.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const MAX = 120;
const files = execFileSync("git", ["ls-files", "src", "bench", "scripts", "demo/src"], { encoding: "utf8" })
  .split("\n")
  .filter((f) => /\.(ts|mjs)$/.test(f));
const long = [];
for (const f of files) {
  readFileSync(f, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if ([...line].length > MAX) long.push(`${f}:${i + 1}: ${[...line].length} characters`);
    });
}
if (long.length > 0) {
  console.log(`${long.length} line(s) over ${MAX} characters:\n${long.join("\n")}`);
  process.exit(1);
}
console.log(`check-lines: ${files.length} files, every line within ${MAX} characters.`);
