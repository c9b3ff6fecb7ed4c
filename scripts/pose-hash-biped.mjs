// Fingerprints the IK's output on issue 19's biped problem (test/helpers/biped-problem.ts: plain Babylon bones,
// no linked TransformNodes, the path pose-hash.mjs does not cover): 400 consecutive frames, one target set each,
// for the defaults, iterationTolerance 0 (FinalIK's fixed iterations) and fractional weights; prints a sha256 of
// every bone's local position and rotation and of the skeleton's absolute matrices per configuration. Build with
// `tsc -p tsconfig.bench.json` first; `node scripts/pose-hash-biped.mjs [root]`, then diff the lines.
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(process.argv[2] ?? fileURLToPath(new URL("..", import.meta.url)));
const { FbbikBipedSolver } = await import(`${root}/.bench-build/test/helpers/biped-solvers.js`);
const { bipedTargetSets } = await import(`${root}/.bench-build/test/helpers/biped-target-sets.js`);
const { Logger } = await import("@babylonjs/core/Misc/logger.js");
Logger.LogLevels = Logger.ErrorLogLevel;

const sets = bipedTargetSets();
const configs = [
  ["defaults", () => {}],
  ["iterationTolerance 0", (s) => (s.iterationTolerance = 0)],
  [
    "fractional weights",
    (s) => {
      for (const e of [s.leftHandEffector, s.rightHandEffector, s.leftFootEffector, s.rightFootEffector])
        e.positionWeight = 0.7;
      s.bodyEffector.positionWeight = 0.3;
      s.leftHandEffector.rotationWeight = 0.6;
      s.leftShoulderEffector.positionWeight = 0.2;
    },
  ],
];
for (const [name, configure] of configs) {
  const solver = new FbbikBipedSolver();
  configure(solver.ik.solver);
  const hash = createHash("sha256");
  for (let f = 0; f < 400; f++) {
    solver.solve(sets, f % sets.count);
    for (const b of solver.biped.skeleton.bones) {
      const p = b.position;
      const q = b.rotationQuaternion;
      hash.update(new Float64Array([p.x, p.y, p.z, q.x, q.y, q.z, q.w]));
    }
    solver.biped.skeleton.computeAbsoluteMatrices();
    for (const b of solver.biped.skeleton.bones) hash.update(new Float32Array(b.getAbsoluteMatrix().m));
  }
  console.log(`biped, ${name}: ${hash.digest("hex")}`);
  solver.dispose();
}
