/**
 * The family benchmark's CCD group: our CCDIK (the whole Babylon frame) and IKSolverCCD on a BabylonRig
 * (the solver alone, plain and optimized) against three.js's CCDIKSolver on a SkinnedMesh rebuilt bone for
 * bone, on a 20-bone tail (test/helpers/tail-rig.ts), the same targets and iterations.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import {
  Bone as ThreeBone,
  BufferGeometry,
  MeshBasicMaterial,
  Skeleton as ThreeSkeleton,
  SkinnedMesh,
  Vector3 as ThreeVector3,
} from "three";
import { CCDIKSolver, type IK } from "three/examples/jsm/animation/CCDIKSolver.js";
import { BabylonRig } from "../src/babylon/babylon-rig.js";
import { CCDIK } from "../src/babylon/chain-ik.js";
import { IKSolverCCD } from "../src/ccd/ik-solver-ccd.js";
import { Vec3 } from "../src/math/vec3.js";
import { Random } from "../test/helpers/random.js";
import { type TailRig, buildTail } from "../test/helpers/tail-rig.js";
import {
  type FamilyGroupResult,
  type Impl,
  TARGET_COUNT,
  accuracyPass,
  advanceFrame,
  measureGroup,
  tailTipWorld,
} from "./family-harness.js";

/** The tail every chain group solves (the FABRIK group too): bones, bone length, rest curl per bone. */
export const CCD_BONES = 20;
export const CCD_SEGMENT = 0.1;
export const CCD_CURL = 0.05;
/** Iterations per solve of the chain groups. */
export const CCD_ITERATIONS = 10;
const CCD_ACCURACY_ITERATIONS = [1, 4, 10, 40];

/** `TARGET_COUNT` reachable world targets around `root`: 30–90 % of `reach`, upper half-space (as the tests). */
export function chainTargets(root: Vector3, reach: number, seed: number): Float64Array {
  const rnd = new Random(seed);
  const out = new Float64Array(3 * TARGET_COUNT);
  for (let i = 0; i < TARGET_COUNT; i++) {
    const u = rnd.next() * 2 - 1;
    const a = rnd.next() * Math.PI * 2;
    const r = Math.sqrt(1 - u * u);
    const d = new Vector3(r * Math.cos(a), Math.abs(u) + 0.2, r * Math.sin(a)).normalize();
    const p = root.add(d.scale(reach * (0.3 + 0.6 * rnd.next())));
    out[3 * i] = p.x;
    out[3 * i + 1] = p.y;
    out[3 * i + 2] = p.z;
  }
  return out;
}

/** The tail rebuilt in three.js: same bones, same local transforms, plus a target bone under the mesh. */
function threeTail(iterations: number): {
  mesh: SkinnedMesh;
  bones: ThreeBone[];
  target: ThreeBone;
  solver: CCDIKSolver;
  ik: IK;
} {
  const bones: ThreeBone[] = [];
  for (let i = 0; i < CCD_BONES; i++) {
    const b = new ThreeBone();
    b.name = `tail${i}`;
    if (i > 0) {
      b.position.set(0, CCD_SEGMENT, 0);
      b.quaternion.setFromAxisAngle(new ThreeVector3(0, 0, 1), CCD_CURL);
      bones[i - 1]!.add(b);
    }
    bones.push(b);
  }
  const target = new ThreeBone();
  target.name = "target";
  const mesh = new SkinnedMesh(new BufferGeometry(), new MeshBasicMaterial());
  mesh.add(bones[0]!);
  mesh.add(target);
  mesh.updateMatrixWorld(true);
  mesh.bind(new ThreeSkeleton([...bones, target]));
  // three's links run from the effector's parent to the root
  const links = [];
  for (let i = CCD_BONES - 2; i >= 0; i--) links.push({ index: i });
  const ik: IK = { target: CCD_BONES, effector: CCD_BONES - 1, links, iteration: iterations };
  const solver = new CCDIKSolver(mesh, [ik]);
  return { mesh, bones, target, solver, ik };
}

/** Our CCD (component and solver alone) and three.js's on the same tail, targets and iterations. */
export function ccdGroup(): FamilyGroupResult {
  // ours, the whole Babylon frame: CCDIK on the tail, driven as scene.render() drives it
  const frameRig = buildTail({ count: CCD_BONES, segment: CCD_SEGMENT, curl: CCD_CURL });
  const length = CCD_SEGMENT * (CCD_BONES - 1);
  frameRig.scene.render();
  const root = frameRig.bones[0]!.getAbsolutePosition(frameRig.mesh);
  const targets = chainTargets(root, length, 18);
  const ccdik = CCDIK.create(frameRig.scene, frameRig.bones, { maxIterations: CCD_ITERATIONS, tolerance: 0 });
  const scene = frameRig.scene;
  const tip = new Vector3();
  const errorOf = (f: number, x: number, y: number, z: number): number => {
    const o = 3 * (f % TARGET_COUNT);
    return (100 * Math.hypot(x - targets[o]!, y - targets[o + 1]!, z - targets[o + 2]!)) / length;
  };
  const frameOp = (f: number): void => {
    advanceFrame(scene);
    const o = 3 * (f % TARGET_COUNT);
    ccdik.targetPosition.set(targets[o]!, targets[o + 1]!, targets[o + 2]!);
    scene.onBeforeAnimationsObservable.notifyObservers(scene);
    scene.onBeforeRenderObservable.notifyObservers(scene);
    scene.onBeforeRenderTargetsRenderObservable.notifyObservers(scene);
  };
  const frameBase = (f: number): void => {
    advanceFrame(scene);
    const o = 3 * (f % TARGET_COUNT);
    ccdik.targetPosition.set(targets[o]!, targets[o + 1]!, targets[o + 2]!);
    ccdik._beforeAnimations();
  };
  const oursFrame: Impl = {
    label: "ours CCDIK, frame",
    name: "ours: CCDIK, whole Babylon frame (FixTransforms, read, solve, write)",
    op: frameOp,
    base: frameBase,
    error: (f) => {
      tailTipWorld(frameRig, tip);
      return errorOf(f, tip.x, tip.y, tip.z);
    },
  };

  // ours, the solver alone: IKSolverCCD on a BabylonRig over a second tail; each frame reads the rest pose
  const plain = ccdSolverImpl(
    targets,
    "ours IKSolverCCD, solver",
    "ours: IKSolverCCD on a BabylonRig, solver alone (base: rig.read())",
    false,
  );
  const optimized = ccdSolverImpl(
    targets,
    "ours IKSolverCCD optimized, solver",
    "ours: the same, optimized CCD (solver.optimized = true)",
    true,
  );

  // three.js: CCDIKSolver on a SkinnedMesh with the same chain; each frame resets the bones' rest rotations
  const t = threeTail(CCD_ITERATIONS);
  checkSameChain(frameRig, t.bones);
  const rest = t.bones.map((b) => b.quaternion.clone());
  const effector = t.bones[CCD_BONES - 1]!;
  const tp = new ThreeVector3();
  const threeBase = (f: number): void => {
    const o = 3 * (f % TARGET_COUNT);
    t.target.position.set(targets[o]!, targets[o + 1]!, targets[o + 2]!);
    for (let i = 0; i < CCD_BONES; i++) t.bones[i]!.quaternion.copy(rest[i]!);
    t.mesh.updateMatrixWorld(true);
  };
  const threeOp = (f: number): void => {
    threeBase(f);
    t.solver.update();
  };
  const three: Impl = {
    label: "three CCDIKSolver",
    name: "three.js: CCDIKSolver.update() (base: rest rotations + updateMatrixWorld)",
    op: threeOp,
    base: threeBase,
    allocationFrames: 2_000,
    error: (f) => {
      tp.setFromMatrixPosition(effector.matrixWorld);
      return errorOf(f, tp.x, tp.y, tp.z);
    },
  };

  const impls = [oursFrame, plain.impl, optimized.impl, three];
  const results = measureGroup(impls, CCD_ITERATIONS, "% of chain");

  // accuracy at other iteration counts, same targets, same start pose
  const accuracyByIterations = CCD_ACCURACY_ITERATIONS.map((n) => {
    ccdik.solver.maxIterations = n;
    plain.solver.maxIterations = n;
    optimized.solver.maxIterations = n;
    t.ik.iteration = n;
    return {
      iterations: n,
      errors: impls.map((impl) => {
        const [mean, worst] = accuracyPass(impl);
        return { name: impl.label, mean, worst };
      }),
    };
  });
  ccdik.dispose();
  frameRig.dispose();
  plain.dispose();
  optimized.dispose();
  return {
    group: `CCD, ${CCD_BONES}-bone chain`,
    iterations: CCD_ITERATIONS,
    setup:
      `a ${CCD_BONES}-bone tail (${CCD_SEGMENT} per bone, ${CCD_CURL} rad curl), ${TARGET_COUNT} reachable ` +
      `targets at 30–90 % of its length, every solve from the rest pose, ${CCD_ITERATIONS} iterations, ` +
      "tolerance 0 (all iterations run)",
    ours: results.slice(0, 3),
    peer: results.slice(3),
    accuracyByIterations,
  };
}

/**
 * IKSolverCCD on a BabylonRig over a fresh tail, as CCDIK builds it (targets in component space): an op that
 * reads the rig (the rest pose: nothing is written to Babylon) and solves, its base (the read alone), and the
 * error of the tip in component space.
 */
function ccdSolverImpl(
  targets: Float64Array,
  label: string,
  name: string,
  optimized: boolean,
): { impl: Impl; solver: IKSolverCCD; dispose(): void } {
  const tail = buildTail({ count: CCD_BONES, segment: CCD_SEGMENT, curl: CCD_CURL });
  tail.scene.render();
  const rig = new BabylonRig(tail.skeleton, tail.bones, { mesh: tail.mesh });
  rig.read();
  const ids = tail.bones.map((b: Bone) => rig.idOf(b));
  const parent = rig.parents[ids[0]!]!;
  const solver = new IKSolverCCD(rig, ids, { rootParent: parent > 0 ? parent : undefined });
  solver.maxIterations = CCD_ITERATIONS;
  solver.tolerance = 0;
  solver.optimized = optimized;
  const componentTargets = new Float64Array(targets.length);
  const w = new Vec3();
  const c = new Vec3();
  for (let i = 0; i < targets.length; i += 3) {
    w.x = targets[i]!;
    w.y = targets[i + 1]!;
    w.z = targets[i + 2]!;
    rig.worldToComponentPoint(w, c);
    componentTargets[i] = c.x;
    componentTargets[i + 1] = c.y;
    componentTargets[i + 2] = c.z;
  }
  const tipId = ids[ids.length - 1]!;
  const lengthComponent = (CCD_SEGMENT * (CCD_BONES - 1)) / rig.componentScale;
  const tip = new Vec3();
  const base = (f: number): void => {
    rig.read();
    const o = 3 * (f % TARGET_COUNT);
    solver.ikPosition.x = componentTargets[o]!;
    solver.ikPosition.y = componentTargets[o + 1]!;
    solver.ikPosition.z = componentTargets[o + 2]!;
  };
  const impl: Impl = {
    label,
    name,
    op: (f) => {
      base(f);
      solver.update();
    },
    base,
    error: (f) => {
      rig.getPosition(tipId, tip);
      const o = 3 * (f % TARGET_COUNT);
      const d = Math.hypot(
        tip.x - componentTargets[o]!,
        tip.y - componentTargets[o + 1]!,
        tip.z - componentTargets[o + 2]!,
      );
      return (100 * d) / lengthComponent;
    },
  };
  return {
    impl,
    solver,
    dispose: () => {
      rig.dispose();
      tail.dispose();
    },
  };
}

/** Throws unless three's chain stands where Babylon's does (to Babylon's float32 matrices: 1e-6). */
function checkSameChain(tail: TailRig, bones: ThreeBone[]): void {
  tail.scene.render();
  const p = new Vector3();
  const q = new ThreeVector3();
  for (let i = 0; i < bones.length; i++) {
    tail.bones[i]!.getAbsolutePositionToRef(tail.mesh, p);
    q.setFromMatrixPosition(bones[i]!.matrixWorld);
    if (Math.hypot(p.x - q.x, p.y - q.y, p.z - q.z) > 1e-6) {
      throw new Error(`three's tail bone ${i} is at ${q.toArray()}, Babylon's at ${p.asArray()}: not the same chain`);
    }
  }
}
