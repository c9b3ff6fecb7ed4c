/**
 * `npm run bench:ab -- <git-ref> [solver|frame|biped|...|fabrik-orbit|grounder|grounder-ik]`:
 * the working tree against another revision, in one process. biped: one frame of issue 19's problem + the
 * skeleton's matrices (as `npm run bench -- biped-frame`); biped-fixed: the same with `iterationTolerance` 0;
 * family: a frame of a rider and its mount with FullBodyBipedIKs, an AimIK, a LookAtIK and a LimbIK hanging from
 * each other; fabrik-arm and fabrik-finger: one solve of the family benchmark's FABRIK-with-hinges rows at the
 * default hinge help; fabrik-orbit: one frame of the demo tentacle's orbit with its cone limits and ball
 * (test/helpers/ball-orbit.ts, FABRIK at 40 iterations); grounder, grounder-ik: a frame of the Mannequin's
 * FullBodyBipedIK with GrounderFBBIK, or of its two LimbIK legs with GrounderIK, on flat ground (StaticGroundRaycast).
 *
 * This machine switches between two speeds every few seconds to minutes (bench/README.md), so two
 * benchmark runs minutes apart compare the machine, not the code. Here both builds are loaded into the
 * same process and timed in alternating segments; each pair of segments sees the same machine, and the
 * median of the per-pair ratios is the comparison.
 *
 * The other revision is checked out into a temporary git worktree, compiled with the same
 * tsconfig.bench.json, and removed afterwards.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Logger } from "@babylonjs/core/Misc/logger.js";
import { repoRoot } from "../test/helpers/repo-root.js";
import { quantile, summarize, timeBatches } from "./common.js";
import { machineProbe } from "./machine-probe.js";

/** Segments per build, operations per segment's batch and batches per segment. */
const SEGMENTS = 40;
const BATCHES_PER_SEGMENT = 40;
const OPS_PER_BATCH = 100;
const WARMUP_OPS = 20_000;

type Op = (frame: number) => void;

/** The operation each benchmark compares, loaded from a build's output directory. */
const LOADERS: Record<string, (buildDir: string) => Promise<Op>> = {
  solver: async (dir) => {
    const m = (await import(pathToFileURL(join(dir, "bench/solver.js")).href)) as typeof import("./solver.js");
    return m.createSolverScene().solve;
  },
  frame: async (dir) => {
    const m = (await import(pathToFileURL(join(dir, "bench/frame.js")).href)) as typeof import("./frame.js");
    return (await m.createFrameScene()).frame;
  },
  biped: (dir) => bipedFrame(dir, null),
  "biped-fixed": (dir) => bipedFrame(dir, 0),
  family: familyFrame,
  "fabrik-arm": (dir) => fabrikHingeSolve(dir, "ROBOT_ARM"),
  "fabrik-finger": (dir) => fabrikHingeSolve(dir, "ROBOT_FINGER"),
  "fabrik-orbit": fabrikOrbitFrame,
  grounder: (dir) => grounderFrame(dir, "fbbik"),
  "grounder-ik": (dir) => grounderFrame(dir, "limbs"),
};

/**
 * One frame of the Mannequin grounded on flat ground with StaticGroundRaycast: its FullBodyBipedIK with GrounderFBBIK
 * (`fbbik`, as `npm run bench -- components`' grounder row), or its two LimbIK legs with GrounderIK (`limbs`).
 */
async function grounderFrame(dir: string, legs: "fbbik" | "limbs"): Promise<Op> {
  const url = (f: string) => pathToFileURL(join(dir, f)).href;
  type Mod<T> = Promise<T>;
  const { loadModel } = await (import(url("test/helpers/babylon-scene.js")) as Mod<
    typeof import("../test/helpers/babylon-scene.js")
  >);
  const { StaticGroundRaycast } = await (import(url("src/effectors/grounding/static-ground-raycast.js")) as Mod<
    typeof import("../src/effectors/grounding/static-ground-raycast.js")
  >);
  const { CreateGround } = await import("@babylonjs/core/Meshes/Builders/groundBuilder.js");
  const m = await loadModel("Mannequin");
  const scene = m.scene;
  scene.render();
  const ground = CreateGround("ground", { width: 16, height: 16 }, scene);
  const raycast = StaticGroundRaycast.fromMeshes([ground]).raycast;
  if (legs === "fbbik") {
    const { FullBodyBipedIK } = await (import(url("src/babylon/full-body-biped-ik.js")) as Mod<
      typeof import("../src/babylon/full-body-biped-ik.js")
    >);
    const { GrounderFBBIK } = await (import(url("src/effectors/grounding/grounder-fbbik.js")) as Mod<
      typeof import("../src/effectors/grounding/grounder-fbbik.js")
    >);
    GrounderFBBIK.create(FullBodyBipedIK.create(scene, m.skeleton), { raycast });
  } else {
    const { resolveBipedReferences } = await (import(url("src/babylon/biped-references.js")) as Mod<
      typeof import("../src/babylon/biped-references.js")
    >);
    const { LimbIK } = await (import(url("src/babylon/limb-ik.js")) as Mod<typeof import("../src/babylon/limb-ik.js")>);
    const { GrounderIK } = await (import(url("src/effectors/grounding/grounder-ik.js")) as Mod<
      typeof import("../src/effectors/grounding/grounder-ik.js")
    >);
    const r = resolveBipedReferences(m.skeleton).references;
    const limbs = (["left", "right"] as const).map((s) => {
      const leg = LimbIK.create(scene, r[`${s}Thigh`], r[`${s}Calf`], r[`${s}Foot`]);
      leg.solver.ikPositionWeight = 0;
      return leg;
    });
    GrounderIK.create(limbs, r.pelvis, { raycast });
  }
  return () => {
    (scene as unknown as { _frameId: number })._frameId++;
    scene.deltaTime = 16;
    scene.onBeforeAnimationsObservable.notifyObservers(scene);
    scene.onBeforeRenderObservable.notifyObservers(scene);
    scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
  };
}

/** One frame of the demo tentacle's orbit (test/helpers/ball-orbit.ts): cone limits, the ball, FABRIK at 40. */
async function fabrikOrbitFrame(dir: string): Promise<Op> {
  const url = (f: string) => pathToFileURL(join(dir, f)).href;
  type Mod<T> = Promise<T>;
  const { IKSolverFABRIK } = await (import(url("src/fabrik/ik-solver-fabrik.js")) as Mod<
    typeof import("../src/fabrik/ik-solver-fabrik.js")
  >);
  const orbit = await (import(url("test/helpers/ball-orbit.js")) as Mod<
    typeof import("../test/helpers/ball-orbit.js")
  >);
  const { c, s, centre } = orbit.orbitRig(
    (chain) => {
      const f = new IKSolverFABRIK(chain.pose, chain.ids, { rootParent: 0 });
      f.maxIterations = 40;
      return f;
    },
    { limits: true },
  );
  const frame = orbit.orbitFrame(c, s, centre, true);
  return (f) => {
    frame(f % orbit.ORBIT_FRAMES);
    s.update();
  };
}

/**
 * One solve of `npm run bench -- family`'s FABRIK-with-hinges group at its default hinge help: IKSolverFABRIK on a
 * RobotExpressive chain of test/unit/fabrik/fabrik-mixed-limits.test.ts, the rest pose put back, the next of the
 * group's 600 reachable targets, 4 iterations.
 */
async function fabrikHingeSolve(dir: string, chainName: "ROBOT_ARM" | "ROBOT_FINGER"): Promise<Op> {
  const url = (f: string) => pathToFileURL(join(dir, f)).href;
  type Mod<T> = Promise<T>;
  const { IKSolverFABRIK } = await (import(url("src/fabrik/ik-solver-fabrik.js")) as Mod<
    typeof import("../src/fabrik/ik-solver-fabrik.js")
  >);
  const { reachableTargets } = await (import(url("test/helpers/limited-chains.js")) as Mod<
    typeof import("../test/helpers/limited-chains.js")
  >);
  const chains = await (import(url("test/helpers/mixed-limit-chains.js")) as Mod<
    typeof import("../test/helpers/mixed-limit-chains.js")
  >);
  const chain = chains[chainName];
  const rig = chain.rig();
  const make = (pose: typeof rig.pose, ids: number[], rootParent: number) =>
    new IKSolverFABRIK(pose, ids, { rootParent });
  const targets = reachableTargets(rig, make, chain.limits, 600, 11);
  const rest = rig.pose.clone();
  const pose = rig.pose.clone();
  const s = make(pose, rig.ids, rig.rootParent);
  chain.limits(s);
  s.maxIterations = 4;
  return (f) => {
    pose.copyLocalsFrom(rest);
    const t = targets[f % targets.length]!;
    s.ikPosition.x = t.x;
    s.ikPosition.y = t.y;
    s.ikPosition.z = t.z;
    s.update();
  };
}

/**
 * One frame of several IKs in a scene, so that each looks for the IKs it hangs from: a rider's FullBodyBipedIK
 * on a mount's chest, its hand on a rein on the mount's head, its AimIK head on the mount's hand; the mount's
 * FullBodyBipedIK, LookAtIK and LimbIK moving them (the scene updater's three observables, as `npm run bench --
 * frame`).
 */
async function familyFrame(dir: string): Promise<Op> {
  const url = (f: string) => pathToFileURL(join(dir, f)).href;
  type Mod<T> = Promise<T>;
  const { loadModel } = await (import(url("test/helpers/babylon-scene.js")) as Mod<
    typeof import("../test/helpers/babylon-scene.js")
  >);
  const { FullBodyBipedIK } = await (import(url("src/babylon/full-body-biped-ik.js")) as Mod<
    typeof import("../src/babylon/full-body-biped-ik.js")
  >);
  const { AimIK } = await (import(url("src/babylon/aim-ik.js")) as Mod<typeof import("../src/babylon/aim-ik.js")>);
  const { LookAtIK } = await (import(url("src/babylon/look-at-ik.js")) as Mod<
    typeof import("../src/babylon/look-at-ik.js")
  >);
  const { LimbIK } = await (import(url("src/babylon/limb-ik.js")) as Mod<typeof import("../src/babylon/limb-ik.js")>);
  const m = await loadModel("Mannequin");
  const twin = m.container.instantiateModelsToScene((n) => `rider_${n}`, false, { doNotInstantiate: true });
  const rider = FullBodyBipedIK.create(m.scene, twin.skeletons[0]!);
  const rr = rider.references;
  const aim = AimIK.create(m.scene, [rr.head!]);
  const mount = FullBodyBipedIK.create(m.scene, m.skeleton);
  const r = mount.references;
  const look = LookAtIK.create(m.scene, { spine: r.spine, head: r.head! });
  const arm = LimbIK.create(m.scene, r.rightUpperArm, r.rightForearm, r.rightHand);
  const { TransformNode } = await import("@babylonjs/core/Meshes/transformNode.js");
  const { Vector3 } = await import("@babylonjs/core/Maths/math.vector.js");
  (twin.rootNodes[0] as InstanceType<typeof TransformNode>).parent = r.spine.at(-1)!.getTransformNode()!;
  m.scene.render();
  const rein = new TransformNode("rein", m.scene);
  rein.parent = r.head!.getTransformNode()!;
  rider.solver.rightHandEffector.target = rein;
  rider.solver.rightHandEffector.positionWeight = 1;
  const mark = new TransformNode("mark", m.scene);
  mark.parent = r.rightHand.getTransformNode()!;
  aim.target = mark;
  mount.solver.bodyEffector.positionWeight = 1;
  const at = (n: { computeWorldMatrix(f: boolean): { getTranslation(): InstanceType<typeof Vector3> } }) =>
    n.computeWorldMatrix(true).getTranslation();
  const head = at(r.head!.getTransformNode()!);
  const grip = at(r.rightHand.getTransformNode()!);
  const gazes = Array.from({ length: 16 }, (_, i) => head.add(new Vector3(Math.sin(i), 0.3, Math.cos(i))));
  const grips = Array.from({ length: 16 }, (_, i) => grip.add(new Vector3(0, Math.sin(i), Math.cos(i)).scale(0.1)));
  const scene = m.scene;
  return (f) => {
    look.targetPosition.copyFrom(gazes[f % 16]!);
    arm.targetPosition.copyFrom(grips[f % 16]!);
    (scene as unknown as { _frameId: number })._frameId++;
    scene.onBeforeAnimationsObservable.notifyObservers(scene);
    scene.onBeforeRenderObservable.notifyObservers(scene);
    scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
  };
}

/** One FullBodyBipedIK frame on issue 19's biped problem, then the skeleton's absolute matrices. */
async function bipedFrame(dir: string, tolerance: number | null): Promise<Op> {
  const url = (f: string) => pathToFileURL(join(dir, f)).href;
  const solvers = (await import(
    url("test/helpers/biped-solvers.js")
  )) as typeof import("../test/helpers/biped-solvers.js");
  const sets = (
    (await import(url("test/helpers/biped-target-sets.js"))) as typeof import("../test/helpers/biped-target-sets.js")
  ).bipedTargetSets();
  const ours = new solvers.FbbikBipedSolver({ worldMatrices: true });
  if (tolerance !== null) ours.ik.solver.iterationTolerance = tolerance;
  return (f) => ours.solve(sets, f % sets.count);
}

/** Median µs per operation of one segment (median of its batches). */
function segment(op: Op, firstFrame: number): number {
  return summarize(timeBatches(op, BATCHES_PER_SEGMENT, OPS_PER_BATCH, firstFrame).samples, OPS_PER_BATCH).median;
}

function median(values: Float64Array): number {
  return quantile(Float64Array.from(values).sort(), 0.5);
}

function compile(root: string, outDir: string): void {
  execFileSync("npx", ["tsc", "-p", join(root, "tsconfig.bench.json"), "--outDir", outDir], {
    cwd: root,
    stdio: "inherit",
  });
}

async function main(): Promise<void> {
  const [ref, name = "solver"] = process.argv.slice(2);
  const load = LOADERS[name];
  if (ref === undefined || load === undefined) {
    console.log(`usage: npm run bench:ab -- <git-ref> [${Object.keys(LOADERS).join("|")}]`);
    return;
  }
  Logger.LogLevels = Logger.ErrorLogLevel;
  const root = repoRoot(import.meta.url);
  try {
    execFileSync("git", ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { cwd: root, stdio: "ignore" });
  } catch {
    console.log(`bench:ab: ${ref} is not a commit of this repository.`);
    return;
  }
  // worktrees of earlier runs stopped by Ctrl-C
  execFileSync("git", ["worktree", "prune"], { cwd: root, stdio: "ignore" });
  const work = mkdtempSync(join(tmpdir(), "fbbik-ab-"));
  const other = join(work, "tree");
  let added = false;
  try {
    execFileSync("git", ["worktree", "add", "--detach", other, ref], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    });
    added = true;
    symlinkSync(join(root, "node_modules"), join(other, "node_modules"));
    // the build lands inside its tree, so repoRoot finds that tree's package.json and test assets (the
    // working tree was compiled by the npm script); a ref without tsconfig.bench.json cannot be built
    compile(other, join(other, ".bench-build"));
    const a = await load(join(other, ".bench-build"));
    const b = await load(join(root, ".bench-build"));
    const probeBefore = machineProbe();
    let frame = 0;
    for (let i = 0; i < WARMUP_OPS; i++, frame++) {
      a(frame);
      b(frame);
    }
    const ta = new Float64Array(SEGMENTS);
    const tb = new Float64Array(SEGMENTS);
    const ratios = new Float64Array(SEGMENTS);
    for (let s = 0; s < SEGMENTS; s++) {
      // A B, then B A: whatever favours the first (or second) segment of a pair cancels out
      if (s % 2 === 0) {
        ta[s] = segment(a, frame);
        tb[s] = segment(b, frame);
      } else {
        tb[s] = segment(b, frame);
        ta[s] = segment(a, frame);
      }
      frame += BATCHES_PER_SEGMENT * OPS_PER_BATCH;
      ratios[s] = tb[s]! / ta[s]!;
    }
    const f = (v: number): string => v.toFixed(3);
    console.log(`${name}: machine probe ${f(probeBefore)} µs before, ${f(machineProbe())} µs after`);
    console.log(`${name}: ${ref} median ${f(median(ta))} µs (fastest segment ${f(Math.min(...ta))})`);
    console.log(`${name}: working tree median ${f(median(tb))} µs (fastest segment ${f(Math.min(...tb))})`);
    console.log(`${name}: working tree ÷ ${ref}, median of ${SEGMENTS} paired segments: ${f(median(ratios))} ×`);
  } finally {
    if (added) {
      try {
        execFileSync("git", ["worktree", "remove", "--force", other], { cwd: root, stdio: "ignore" });
      } catch {
        // the temporary folder goes below; prune forgets the worktree on the next run
      }
    }
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
