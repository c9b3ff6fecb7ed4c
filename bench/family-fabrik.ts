/**
 * The family benchmark's FABRIK group: our FABRIK component (the whole Babylon frame), IKSolverFABRIK on a
 * BabylonRig (the solver alone), the FABRIKRoot component, and IKSolverJacobian as the accuracy yardstick, on
 * the CCD group's 20-bone tail with its targets and iterations. No peer: neither Babylon nor three.js has FABRIK.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { BabylonRig } from "../src/babylon/babylon-rig.js";
import { FABRIK, FABRIKRoot } from "../src/babylon/chain-ik.js";
import { IKSolverFABRIK } from "../src/fabrik/ik-solver-fabrik.js";
import { IKSolverJacobian } from "../src/jacobian/ik-solver-jacobian.js";
import type { JacobianJoint } from "../src/jacobian/jacobian-joint.js";
import { Vec3 } from "../src/math/vec3.js";
import { buildTail } from "../test/helpers/tail-rig.js";
import { CCD_BONES, CCD_CURL, CCD_ITERATIONS, CCD_SEGMENT, chainTargets } from "./family-ccd.js";
import {
  type FamilyGroupResult,
  type Impl,
  TARGET_COUNT,
  accuracyPass,
  advanceFrame,
  measureGroup,
  rigOver,
  tailTipWorld,
  toComponent,
} from "./family-harness.js";

/** How far FABRIKRoot's root stays where it is (0: it follows the chain freely, 1: pinned). */
const ROOT_PIN = 0.5;

/** A solver on a fresh tail's BabylonRig: what its frame sets (the target) and what it solves. */
interface SolverSetup {
  /** Sets frame `f`'s target (component space, `o` = 3 × the target's index) on the solver. */
  setTarget(t: Float64Array, o: number): void;
  /** The solve (after rig.read() and setTarget). */
  solve(): void;
}

/**
 * A solver alone on a BabylonRig over a fresh tail: op = rig.read() (the rest pose: nothing is written to
 * Babylon), the target, the solve; base = the same without the solve; error = the tip's distance from the
 * target in component space, % of the chain.
 */
function solverImpl(
  worldTargets: Float64Array,
  label: string,
  name: string,
  make: (rig: BabylonRig, ids: number[]) => SolverSetup,
): { impl: Impl; dispose(): void } {
  const tail = buildTail({ count: CCD_BONES, segment: CCD_SEGMENT, curl: CCD_CURL });
  const { rig, ids } = rigOver(tail);
  const targets = toComponent(rig, worldTargets);
  const setup = make(rig, ids);
  const tipId = ids[ids.length - 1]!;
  const lengthComponent = (CCD_SEGMENT * (CCD_BONES - 1)) / rig.componentScale;
  const tip = new Vec3();
  const base = (f: number): void => {
    rig.read();
    setup.setTarget(targets, 3 * (f % TARGET_COUNT));
  };
  const impl: Impl = {
    label,
    name,
    op: (f) => {
      base(f);
      setup.solve();
    },
    base,
    error: (f) => {
      rig.getPosition(tipId, tip);
      const o = 3 * (f % TARGET_COUNT);
      const d = Math.hypot(tip.x - targets[o]!, tip.y - targets[o + 1]!, tip.z - targets[o + 2]!);
      return (100 * d) / lengthComponent;
    },
  };
  return {
    impl,
    dispose: () => {
      rig.dispose();
      tail.dispose();
    },
  };
}

/** Our FABRIK family (and the Jacobian yardstick) on the CCD group's tail, targets and iterations. */
export function fabrikGroup(): FamilyGroupResult {
  const length = CCD_SEGMENT * (CCD_BONES - 1);
  // the FABRIK component on a tail, driven as scene.render() drives it
  const frameTail = buildTail({ count: CCD_BONES, segment: CCD_SEGMENT, curl: CCD_CURL });
  frameTail.scene.render();
  const root: Vector3 = frameTail.bones[0]!.getAbsolutePosition(frameTail.mesh);
  const targets = chainTargets(root, length, 18);
  const fabrik = FABRIK.create(frameTail.scene, frameTail.bones, { maxIterations: CCD_ITERATIONS, tolerance: 0 });
  const scene = frameTail.scene;
  const setTarget = (f: number): void => {
    const o = 3 * (f % TARGET_COUNT);
    fabrik.targetPosition.set(targets[o]!, targets[o + 1]!, targets[o + 2]!);
  };
  const tipWorld = new Vector3();
  const frame: Impl = {
    label: "ours FABRIK, frame",
    name: "ours: FABRIK component, whole Babylon frame (FixTransforms, read, solve, write)",
    op: (f) => {
      advanceFrame(scene);
      setTarget(f);
      scene.onBeforeAnimationsObservable.notifyObservers(scene);
      scene.onBeforeRenderObservable.notifyObservers(scene);
      scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
    },
    base: (f) => {
      advanceFrame(scene);
      setTarget(f);
      fabrik._beforeAnimations();
    },
    error: (f) => {
      tailTipWorld(frameTail, tipWorld);
      const o = 3 * (f % TARGET_COUNT);
      return (
        (100 * Math.hypot(tipWorld.x - targets[o]!, tipWorld.y - targets[o + 1]!, tipWorld.z - targets[o + 2]!)) /
        length
      );
    },
  };

  const solvers: IKSolverFABRIK[] = [];
  const jacobians: IKSolverJacobian[] = [];
  const plain = solverImpl(
    targets,
    "ours IKSolverFABRIK, solver",
    "ours: IKSolverFABRIK on a BabylonRig, solver alone (base: rig.read())",
    (rig, ids) => {
      const parent = rig.parents[ids[0]!]!;
      const s = new IKSolverFABRIK(rig, ids, { rootParent: parent > 0 ? parent : undefined });
      s.maxIterations = CCD_ITERATIONS;
      s.tolerance = 0;
      solvers.push(s);
      return { setTarget: (t, o) => setIK(s.ikPosition, t, o), solve: () => s.update() };
    },
  );
  // the FABRIKRoot component on a third tail: the first bone is the root, the other bones its one chain
  const rootTail = buildTail({ count: CCD_BONES, segment: CCD_SEGMENT, curl: CCD_CURL });
  rootTail.scene.render();
  const rootIK = FABRIKRoot.create(rootTail.scene, rootTail.bones[0]!, [rootTail.bones.slice(1)], {
    maxIterations: CCD_ITERATIONS,
  });
  rootIK.solver.rootPin = ROOT_PIN;
  const rootScene = rootTail.scene;
  const setRootTarget = (f: number): void => {
    const o = 3 * (f % TARGET_COUNT);
    rootIK.targetPositions[0]!.set(targets[o]!, targets[o + 1]!, targets[o + 2]!);
  };
  const rootTip = new Vector3();
  const rooted: Impl = {
    label: "ours FABRIKRoot, frame",
    name:
      "ours: FABRIKRoot component, whole Babylon frame " +
      `(its root the first bone, one chain of the other ${CCD_BONES - 1}, rootPin ${ROOT_PIN})`,
    op: (f) => {
      advanceFrame(rootScene);
      setRootTarget(f);
      rootScene.onBeforeAnimationsObservable.notifyObservers(rootScene);
      rootScene.onBeforeRenderObservable.notifyObservers(rootScene);
      rootScene.onBeforeRenderTargetsRenderObservable.notifyObservers(rootScene);
    },
    base: (f) => {
      advanceFrame(rootScene);
      setRootTarget(f);
      rootIK._beforeAnimations();
    },
    error: (f) => {
      tailTipWorld(rootTail, rootTip);
      const o = 3 * (f % TARGET_COUNT);
      return (
        (100 * Math.hypot(rootTip.x - targets[o]!, rootTip.y - targets[o + 1]!, rootTip.z - targets[o + 2]!)) / length
      );
    },
  };
  const jacobian = solverImpl(
    targets,
    "ours IKSolverJacobian, solver",
    "ours: IKSolverJacobian (damped least squares, 3 angles per joint, the tip locked), solver alone",
    (rig, ids) => {
      const parent = rig.parents[ids[0]!]!;
      const joints: JacobianJoint[] = ids.map((bone, i) => (i === ids.length - 1 ? { bone, locked: true } : { bone }));
      const s = new IKSolverJacobian(rig, joints, { rootParent: parent > 0 ? parent : undefined });
      s.maxIterations = CCD_ITERATIONS;
      s.tolerance = 0;
      const e = s.addEffector(ids[ids.length - 1]!);
      jacobians.push(s);
      return { setTarget: (t, o) => setIK(e.position, t, o), solve: () => s.update() };
    },
  );
  const impls = [frame, plain.impl, rooted, jacobian.impl];
  const results = measureGroup(impls, CCD_ITERATIONS, "% of chain");
  const accuracyByIterations = [1, 4, 10, 40].map((n) => {
    fabrik.solver.maxIterations = n;
    rootIK.solver.maxIterations = n;
    for (const s of [...solvers, ...jacobians]) s.maxIterations = n;
    return {
      iterations: n,
      errors: impls.map((impl) => {
        const [mean, worst] = accuracyPass(impl);
        return { name: impl.label, mean, worst };
      }),
    };
  });
  fabrik.dispose();
  frameTail.dispose();
  plain.dispose();
  rootIK.dispose();
  rootTail.dispose();
  jacobian.dispose();
  return {
    group: `FABRIK, ${CCD_BONES}-bone chain`,
    iterations: CCD_ITERATIONS,
    setup:
      `the CCD group's ${CCD_BONES}-bone tail and ${TARGET_COUNT} targets, every solve from the rest pose, ` +
      `${CCD_ITERATIONS} iterations, tolerance 0; FABRIKRoot (component): the first bone is its root (it translates, ` +
      `rootPin ${ROOT_PIN}) and the other ${CCD_BONES - 1} its chain; Jacobian: damped least squares, the ` +
      "accuracy yardstick, not meant to be fast; no peer (neither Babylon nor three.js has FABRIK)",
    ours: results,
    peer: [],
    accuracyByIterations,
  };
}

/** Copies target `o` of `t` into `out`. */
function setIK(out: Vec3, t: Float64Array, o: number): void {
  out.x = t[o]!;
  out.y = t[o + 1]!;
  out.z = t[o + 2]!;
}
