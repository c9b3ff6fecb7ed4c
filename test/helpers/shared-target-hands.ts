/**
 * Both hands on one point, the right hand first: JacobianIK on spine → upper arms → forearms → hands (no
 * clavicles), a clip playing. The lower priority (the left hand) then has little freedom the right hand does not
 * use, which made the solve crawl. Measures, per target point, the frames that end at `maxIterations`, the left
 * hand's miss and the largest per-frame bone jump, next to the clip's own largest per-frame bone motion.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { JacobianIK } from "../../src/babylon/jacobian-ik.js";
import type { LoadedModel } from "./babylon-scene.js";
import { height, worldPos } from "./scene-probes.js";

/** The bones of one model for the shared-target setup. */
export interface SharedTargetRig {
  /** Spine bones, root first. */
  spine: string[];
  /** Upper arm, forearm, hand; left side. */
  left: [string, string, string];
  /** The same on the right. */
  right: [string, string, string];
  /** A toe bone per foot (the character's forward is heel → toe). */
  toes: [string, string];
  /** Their feet. */
  feet: [string, string];
}

/** What one target point gave. */
export interface SharedTargetPoint {
  /** Frames whose solve ended at `maxIterations`. */
  stalled: number;
  /** Largest left-hand miss over the frames, fraction of h. */
  leftMiss: number;
  /** Largest right-hand miss, fraction of h. */
  rightMiss: number;
  /** Largest per-frame move of a bone, fraction of h. */
  jump: number;
  /** The clip's own largest per-frame move of the same bones (no IK), fraction of h. */
  clipJump: number;
  /** Mean iterations per frame. */
  iterations: number;
}

function bone(m: LoadedModel, name: string): Bone {
  const b = m.skeleton.bones.find((x) => x.name === name);
  if (b === undefined) throw new Error(`no bone ${name}`);
  return b;
}

/**
 * The target points: `distances` (fractions of h) from the chest along directions in the front half, a fan of
 * `directions` (up to 9) turned about the chest.
 */
export function sharedTargetPoints(distances: readonly number[], directions = 9): { dist: number; dir: number }[] {
  const out: { dist: number; dir: number }[] = [];
  for (const dist of distances) for (let dir = 0; dir < directions; dir++) out.push({ dist, dir });
  return out;
}

/**
 * Runs `frames` frames of `step` (the clip advancing) with both hands on one point, then the same frames with
 * the IK weight 0 for the clip's own motion. `step()` renders one frame.
 */
export function measureSharedTarget(
  m: LoadedModel,
  rig: SharedTargetRig,
  point: { dist: number; dir: number },
  frames: number,
  restart: () => void,
  maxIterations = 100,
): SharedTargetPoint {
  const spine = rig.spine.map((n) => bone(m, n));
  const left = rig.left.map((n) => bone(m, n));
  const right = rig.right.map((n) => bone(m, n));
  const bones = [...spine, ...left, ...right];
  restart();
  m.scene.render();
  const h = height(m);
  const chest = worldPos(spine[spine.length - 1]!);
  const heel = worldPos(bone(m, rig.feet[0])).add(worldPos(bone(m, rig.feet[1])));
  const toe = worldPos(bone(m, rig.toes[0])).add(worldPos(bone(m, rig.toes[1])));
  const fwd = toe.subtract(heel);
  fwd.y = 0;
  fwd.normalize();
  const side = Vector3.Cross(Vector3.Up(), fwd).normalize();
  // a fan over the front half: 3 heights × 3 sideways angles
  const yaw = ((point.dir % 3) - 1) * 0.6;
  const pitch = (Math.floor(point.dir / 3) - 1) * 0.5;
  const dir = fwd
    .scale(Math.cos(yaw) * Math.cos(pitch))
    .add(side.scale(Math.sin(yaw) * Math.cos(pitch)))
    .add(Vector3.Up().scale(Math.sin(pitch)));
  const target = new TransformNode("sharedTarget", m.scene);
  target.position.copyFrom(chest.add(dir.scale(point.dist * h)));
  const ik = JacobianIK.create(m.scene, bones, {
    maxIterations,
    effectors: [
      { bone: right[2]!, target, priority: 1 },
      { bone: left[2]!, target, priority: 0 },
    ],
  });
  const run = (weight: number): { jump: number; stalled: number; lm: number; rm: number; it: number } => {
    ik.solver.ikPositionWeight = weight;
    restart();
    let prev: Vector3[] | null = null;
    let jump = 0;
    let stalled = 0;
    let lm = 0;
    let rm = 0;
    let it = 0;
    for (let f = 0; f < frames; f++) {
      m.scene.render();
      const now = bones.map((b) => worldPos(b));
      if (prev !== null) now.forEach((p, i) => (jump = Math.max(jump, Vector3.Distance(p, prev![i]!) / h)));
      prev = now;
      if (ik.solver.lastIterations >= maxIterations) stalled++;
      it += ik.solver.lastIterations;
      lm = Math.max(lm, Vector3.Distance(worldPos(left[2]!), target.position) / h);
      rm = Math.max(rm, Vector3.Distance(worldPos(right[2]!), target.position) / h);
    }
    return { jump, stalled, lm, rm, it: it / frames };
  };
  const solved = run(1);
  const clip = run(0);
  ik.dispose();
  target.dispose();
  return {
    stalled: solved.stalled,
    leftMiss: solved.lm,
    rightMiss: solved.rm,
    jump: solved.jump,
    clipJump: clip.jump,
    iterations: solved.it,
  };
}
