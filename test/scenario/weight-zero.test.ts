/**
 * FullBodyBipedIK at `ikPositionWeight` 0: the solution is the animated pose, so a frame with nothing blending and
 * nothing watching the read reads and writes nothing, and shows what it showed when it read and wrote (bit for bit,
 * the frame the weight drops to 0 and the frames after it comes back included); a hook that raises the weight, a
 * skeleton-read hook and an onPostUpdate observer still get the frame's read.
 */
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Vec3 } from "../../src/math/vec3.js";
import { type LoadedModel, loadModel, proceduralIdle } from "../helpers/babylon-scene.js";
import { locals } from "../helpers/enable-fade-runs.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** The Mannequin swaying (a procedural idle) with both hands on targets a tenth of its height away. */
async function swaying(): Promise<{ m: LoadedModel; ik: FullBodyBipedIK }> {
  const m = await loadModel("Mannequin");
  open.push(m);
  const nodes = m.skeleton.bones.map((b) => b.getTransformNode()).filter((n): n is TransformNode => n !== null);
  proceduralIdle(m.scene, nodes).start(true);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const h = height(m);
  for (const e of [ik.solver.leftHandEffector, ik.solver.rightHandEffector]) {
    e.position.copyFrom(worldPos(e.bone!).add(new Vector3(0.05, 0.08, 0.04).scale(h)));
    e.positionWeight = 1;
  }
  return { m, ik };
}

/** The weight of frame `f` of {@link run}: 1, then 0 for 30 frames, then 1 again. */
const weightAt = (f: number): number => (f >= 20 && f < 50 ? 0 : 1);

describe("FullBodyBipedIK at ikPositionWeight 0", () => {
  it("reads and writes nothing, and shows the same pose as when it read and wrote", async () => {
    const runs: { frames: number[][]; reads: number; writes: number }[] = [];
    // the second watches every update (an onPostUpdate observer): it reads and writes at 0, as every IK did
    for (const watched of [false, true]) {
      const { m, ik } = await swaying();
      if (watched) ik.solver.onPostUpdateObservable.add(() => {});
      const read = vi.spyOn(ik.rig, "read");
      const write = vi.spyOn(ik.rig, "write");
      const frames: number[][] = [];
      let reads = 0;
      let writes = 0;
      for (let f = 0; f < 70; f++) {
        ik.solver.ikPositionWeight = weightAt(f);
        const r = read.mock.calls.length;
        const w = write.mock.calls.length;
        m.scene.render();
        if (weightAt(f) === 0) {
          reads += read.mock.calls.length - r;
          writes += write.mock.calls.length - w;
        }
        frames.push(locals(m.skeleton));
      }
      runs.push({ frames, reads, writes });
    }
    const [idle, watched] = runs;
    if (process.env.FBBIK_REPORT)
      console.log(
        `over 30 frames at weight 0: ${idle!.reads} reads and ${idle!.writes} writes; watched: ${watched!.reads}, ${watched!.writes}`,
      );
    // was 30 and 30, as the watched one's
    expect([idle!.reads, idle!.writes]).toEqual([0, 0]);
    expect([watched!.reads, watched!.writes]).toEqual([30, 30]);
    // bit for bit the same: the frame the weight drops (the IK's output taken off), at 0, and back at 1
    expect(idle!.frames).toEqual(watched!.frames);
    expect(idle!.frames[19]).not.toEqual(idle!.frames[20]);
  });

  it("still reads and solves when a hook raises the weight, and reads for a skeleton-read hook", async () => {
    const { m, ik } = await swaying();
    ik.solver.ikPositionWeight = 0;
    const read = vi.spyOn(ik.rig, "read");
    // a weight set in onPreUpdate (a user's fade, a component) counts this frame
    const raise = ik.solver.onPreUpdateObservable.add(() => (ik.solver.ikPositionWeight = 1));
    m.scene.render();
    const solved = locals(m.skeleton);
    ik.solver.onPreUpdateObservable.remove(raise);
    ik.solver.ikPositionWeight = 0;
    m.scene.render();
    expect(read.mock.calls.length).toBe(1);
    expect(locals(m.skeleton)).not.toEqual(solved);
    // a skeleton-read hook runs "even at weight 0" on this frame's bones
    const seen: number[] = [];
    const hand = ik.rig.idOf(ik.solver.leftHandEffector.bone!);
    ik.solver.onSkeletonRead.add(() => seen.push(ik.rig.getPosition(hand, new Vec3()).y));
    for (let f = 0; f < 5; f++) m.scene.render();
    expect(read.mock.calls.length).toBe(6);
    expect(new Set(seen).size).toBe(5);
  });
});
