/**
 * Run by solve-heap.test.ts as `node --expose-gc --import tsx test/unit/aim/solve-heap-child.ts <solves>`
 * (vitest's workers have no gc()): for IKSolverLimb, IKSolverAim and IKSolverLookAt on the test rigs,
 * warms up, then five times collects and counts the heap growth over `<solves>` solves with random targets
 * (no gc in between, so garbage would show) and the time per solve; keeps the least. Prints one JSON line.
 */
import { IKSolverAim } from "../../../src/aim/ik-solver-aim.js";
import { RotationLimitAngle } from "../../../src/joints/limits/rotation-limit-angle.js";
import { RotationLimitPolygonal } from "../../../src/joints/limits/rotation-limit-polygonal.js";
import { RotationLimitSpline } from "../../../src/joints/limits/rotation-limit-spline.js";
import { IKSolverLookAt } from "../../../src/aim/ik-solver-look-at.js";
import { IKSolverLimb } from "../../../src/limb/ik-solver-limb.js";
import { Vec3 } from "../../../src/math/vec3.js";
import { Random } from "../../helpers/random.js";
import { ARM, GUN, HEAD, buildPose, id } from "../limb/rigs.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");
const solves = Number(process.argv[2] ?? 20000);

interface Case {
  name: string;
  target: Vec3;
  centre: { x: number; y: number; z: number };
  radius: number;
  solve: () => void;
  reset: () => void;
}

function limbCase(): Case {
  const pose = buildPose(ARM);
  const fresh = pose.clone();
  const ik = new IKSolverLimb(pose, id(pose, "upperArm"), id(pose, "forearm"), id(pose, "hand"), {
    parent: id(pose, "clavicle"),
  });
  // the natural-bend modifier on the fitted table: the most per-frame work of the modifiers
  ik.setNaturalFrame(-1, new Vec3(0, 0, 1), new Vec3(0, 1, 0), new Vec3(1, 0, 0));
  ik.bendModifier = "arm";
  ik.maintainRotationWeight = 0.5;
  return {
    name: "limb (arm modifier)",
    target: ik.ikPosition,
    centre: { ...pose.positions[id(pose, "upperArm")]! },
    radius: 0.8,
    solve: () => ik.solve(),
    reset: () => pose.copyLocalsFrom(fresh),
  };
}

function aimCase(): Case {
  const pose = buildPose(GUN);
  const fresh = pose.clone();
  const chain = ["spine", "spine1", "chest", "shoulder", "hand"].map((n) => id(pose, n));
  const ik = new IKSolverAim(pose, chain, {
    aimBone: id(pose, "gun"),
    aimOffset: { x: 0, y: 0.05, z: 0.3 },
    rootParent: id(pose, "hips"),
  });
  ik.poleWeight = 0.5;
  ik.setLimit(0, new RotationLimitAngle(new Vec3(0, 1, 0), 15, 10));
  ik.setLimit(
    1,
    new RotationLimitSpline(new Vec3(0, 1, 0), new Vec3(1, 0, 0), [
      { time: 0, value: 10 },
      { time: 90, value: 25 },
    ]),
  );
  ik.setLimit(3, new RotationLimitPolygonal(new Vec3(0, 1, 0), undefined, 30));
  return {
    name: "aim (5 bones, 4 passes, 3 limits)",
    target: ik.ikPosition,
    centre: { ...pose.positions[id(pose, "gun")]! },
    radius: 10,
    solve: () => ik.solve(),
    reset: () => pose.copyLocalsFrom(fresh),
  };
}

function lookAtCase(): Case {
  const pose = buildPose(HEAD);
  const fresh = pose.clone();
  const ik = new IKSolverLookAt(pose, {
    spine: ["spine0", "spine1", "spine2", "neck"].map((n) => id(pose, n)),
    head: id(pose, "head"),
    eyes: [id(pose, "eyeL"), id(pose, "eyeR")],
  });
  return {
    name: "lookAt (4 spine, head, 2 eyes)",
    target: ik.ikPosition,
    centre: { ...pose.positions[id(pose, "head")]! },
    radius: 5,
    solve: () => ik.solve(),
    reset: () => pose.copyLocalsFrom(fresh),
  };
}

/** `count` solves of `c`, targets taken in turn, the pose reset every 1,000 (one function for every case). */
function drive(c: Case, targets: Float64Array, count: number): void {
  const n = targets.length / 3;
  const t = c.target;
  for (let k = 0; k < count; k++) {
    const i = k % n;
    if (i === 0) c.reset();
    t.x = targets[3 * i]!;
    t.y = targets[3 * i + 1]!;
    t.z = targets[3 * i + 2]!;
    c.solve();
  }
}

const result: Record<string, { bytesPerSolve: number; microsPerSolve: number }> = {};
const cases = [limbCase(), aimCase(), lookAtCase()];
// twice over, the first time only to settle the process (the first case measured carries its start-up)
for (const c of [...cases, ...cases]) {
  const rng = new Random(7);
  const n = 1000;
  const targets = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const u = rng.unitVector();
    const r = rng.range(0.05, 1) * c.radius;
    targets[3 * i] = c.centre.x + u.x * r;
    targets[3 * i + 1] = c.centre.y + u.y * r;
    targets[3 * i + 2] = c.centre.z + u.z * r;
  }
  drive(c, targets, 10000);
  // the least of five rounds: a round may catch V8 compiling or the harness settling, the solve never allocates
  let bytes = Infinity;
  let micros = Infinity;
  for (let round = 0; round < 5; round++) {
    gc();
    const h0 = process.memoryUsage().heapUsed;
    const t0 = process.hrtime.bigint();
    drive(c, targets, solves);
    const t1 = process.hrtime.bigint();
    const h1 = process.memoryUsage().heapUsed;
    bytes = Math.min(bytes, (h1 - h0) / solves);
    micros = Math.min(micros, Number(t1 - t0) / 1000 / solves);
  }
  result[c.name] = { bytesPerSolve: bytes, microsPerSolve: micros };
}
console.log(JSON.stringify(result));
