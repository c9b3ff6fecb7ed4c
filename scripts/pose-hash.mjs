// Fingerprints the IK's output, for refactors that must not change it: 300 frames of moving effector
// targets on the Mannequin, Superhero and Xbot (Xbot from ../shared/assets/models, skipped without it), unit
// and fractional weights, rendered with scene.render(); prints a sha256 of every bone's local position and
// rotation per configuration. Compare two builds: `npm run bench:touch` (or `tsc -p tsconfig.bench.json`)
// builds .bench-build; run `node scripts/pose-hash.mjs [root]` on each checkout (root: a checkout with a
// .bench-build, this one by default) and diff the lines.
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(process.argv[2] ?? fileURLToPath(new URL("..", import.meta.url)));
const { FullBodyBipedIK } = await import(`${root}/.bench-build/src/babylon/full-body-biped-ik.js`);
const { loadModel, modelAvailable } = await import(`${root}/.bench-build/test/helpers/babylon-scene.js`);
const { Logger } = await import("@babylonjs/core/Misc/logger.js");
Logger.LogLevels = Logger.ErrorLogLevel;

for (const name of ["Mannequin", "Superhero", "Xbot"]) {
  if (!modelAvailable(name)) {
    console.log(`${name}: not available (../shared/assets/models), skipped`);
    continue;
  }
  for (const fractional of [false, true]) {
    const m = await loadModel(name);
    const s = FullBodyBipedIK.create(m.scene, m.skeleton).solver;
    const effectors = [
      s.leftHandEffector,
      s.rightHandEffector,
      s.leftFootEffector,
      s.rightFootEffector,
      s.bodyEffector,
      s.leftShoulderEffector,
    ];
    const start = effectors.map((e) => e.position.clone());
    effectors.forEach((e, i) => {
      // hands and feet; the left hand's rotation; body and shoulder only with fractional weights
      e.positionWeight = i < 4 ? (fractional ? 0.7 : 1) : fractional ? 0.3 : 0;
      if (i < 2) e.rotationWeight = fractional ? 0.6 : i === 0 ? 1 : 0;
    });
    const hash = createHash("sha256");
    for (let f = 0; f < 300; f++) {
      effectors.forEach((e, i) => {
        const p = start[i];
        e.position.set(
          p.x + 0.2 * Math.sin(f * 0.05 + i),
          p.y + 0.15 * Math.cos(f * 0.07 + i),
          p.z + 0.1 * Math.sin(f * 0.03 + 2 * i),
        );
      });
      m.scene.render();
      for (const b of m.skeleton.bones) {
        const n = b.getTransformNode();
        const p = n.position;
        const q = n.rotationQuaternion;
        hash.update(new Float64Array([p.x, p.y, p.z, q.x, q.y, q.z, q.w]));
      }
    }
    console.log(`${name}${fractional ? ", fractional weights" : ""}: ${hash.digest("hex")}`);
    m.dispose();
  }
}
