// Commit subjects at most 72 characters, detail in the body (npm run lint). Checked from the commit after
// which the rule was adopted; older history keeps its long subjects.
import { execFileSync } from "node:child_process";

const ADOPTED_AFTER = "75fc1fe";
const MAX = 72;
const git = (...args) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });

let range = `${ADOPTED_AFTER}..HEAD`;
try {
  git("cat-file", "-e", `${ADOPTED_AFTER}^{commit}`);
} catch {
  // a shallow clone without that commit: check what it has
  range = "HEAD";
}
let subjects;
try {
  subjects = git("log", "--no-merges", "--format=%h %s", range).split("\n").filter(Boolean);
} catch {
  console.log("check-commits: not a git checkout; skipped.");
  process.exit(0);
}
const long = subjects.filter((l) => [...l.slice(l.indexOf(" ") + 1)].length > MAX);
if (long.length > 0) {
  console.log(`${long.length} commit subject(s) over ${MAX} characters:\n${long.join("\n")}`);
  process.exit(1);
}
console.log(`check-commits: ${subjects.length} commits, every subject within ${MAX} characters.`);
