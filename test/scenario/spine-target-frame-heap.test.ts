/**
 * A hand target hanging from the spine (a node under a spine bone's linked TransformNode: TargetAnchor places it
 * before the solve and corrects the limb after it) allocates nothing of the IK's own a frame once warm: UAL idling
 * (Idle_Loop, baked), the left hand on the target. The anchor's correction measured the limb with `distance`, whose
 * returned doubles V8 boxed when it did not inline it (48 B a frame). What Babylon's computeWorldMatrix allocates on
 * the bones' nodes above the target when it is read (96 B a frame here, 32 B a node, and the same when the app reads
 * the node itself with the IK solving: docs/API.md) is counted apart: only stacks whose innermost frame is in the
 * library fail the test. In a fresh module graph (vitest.config.ts, HEAP).
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { expect, it } from "vitest";
import { bakedUalWithIK } from "../helpers/baked-ual.js";
import { allocationsByKind } from "../helpers/frame-heap.js";
import { worldPos } from "../helpers/scene-probes.js";

/** A stack `allocationsByKind` lists ("… B a frame: fn dir/file <- …") whose innermost frame is the library's. */
function library(stack: string): boolean {
  const innermost = stack.split(": ").slice(1).join(": ").split(" <- ")[0]!;
  const file = innermost.split(" ").at(-1)!;
  return file.endsWith(".ts") && !file.startsWith("helpers/") && !file.startsWith("scenario/");
}

it("a hand target under the spine: the IK's own code allocates 0 B a frame", async () => {
  const { m, h, ik, frame } = await bakedUalWithIK("Idle_Loop");
  const r = ik.references;
  const target = new TransformNode("target", m.scene);
  target.parent = r.spine[1]!.getTransformNode();
  target.setAbsolutePosition(worldPos(r.leftHand).add(new Vector3(0.05 * h, 0.05 * h, 0.1 * h)));
  const hand = ik.solver.leftHandEffector;
  hand.target = target;
  hand.positionWeight = 1;
  for (let f = 0; f < 120; f++) frame(f);
  // the anchor holds the target (it hangs from the spine), and the hand is on it
  expect(hand._anchor!.bone).toBe(ik.rig.idOf(r.spine[1]!));
  expect(Vector3.Distance(worldPos(r.leftHand), target.getAbsolutePosition()) / h).toBeLessThan(1e-4);
  const { kinds } = await allocationsByKind(frame, () => 0, 10_000, 5_000, 2_400, 40);
  const steady = kinds.get(0)!;
  const own = steady.where.filter(library);
  const ownBytes = own.reduce((sum, at) => sum + Number.parseFloat(at), 0);
  process.stderr.write(
    `spine target: ${steady.bytes.toFixed(2)} B a frame in all, ${ownBytes.toFixed(2)} B the library's own\n` +
      `${steady.where.slice(0, 4).join("\n")}\nthe library's:\n${own.join("\n")}\n`,
  );
  // a few bytes of V8's own work as it optimises again after the profiler starts are named by the code that ran
  // (2.5 B under the spine mapping's readAxes in some runs); the anchor's boxed lengths were 48 B
  expect(ownBytes).toBeLessThan(8);
  m.dispose();
});
