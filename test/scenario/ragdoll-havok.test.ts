/**
 * Babylon's Physics v2 `Ragdoll` taking over a character whose FullBodyBipedIK is on, and a hand held on a
 * falling Havok body (@babylonjs/havok's wasm in Node, UAL idling). `Ragdoll.ragdoll()` unlinks every glTF
 * TransformNode from its Bone and drives the Bones itself, while the IK reads and writes the nodes: the IK left on
 * is skipped with a warning (nothing it wrote would show), and after the ragdoll it stays skipped until the nodes
 * are linked again (Babylon's `Ragdoll.dispose()` does not relink them). The physics step runs after the
 * animations and before the solve, so a hand whose target is a dynamic body is on it the same frame.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Axis } from "@babylonjs/core/Maths/math.axis.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { PhysicsShapeType } from "@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js";
import { HavokPlugin } from "@babylonjs/core/Physics/v2/Plugins/havokPlugin.js";
import { PhysicsAggregate } from "@babylonjs/core/Physics/v2/physicsAggregate.js";
import { Ragdoll, type RagdollBoneProperties } from "@babylonjs/core/Physics/v2/ragdoll.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { loadHavok } from "../helpers/havok.js";
import { report } from "../helpers/modifier-scene.js";
import { height, nodePos, worldPos } from "../helpers/scene-probes.js";

const havok = await loadHavok();

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** UAL's ragdoll: one box per bone (Babylon's Ragdoll needs the skeleton's single root bone among them). */
const CONFIG: (RagdollBoneProperties & { bones: string[] })[] = [
  { bones: ["root"], size: 0.05, boxOffset: 0 },
  { bones: ["DEF-hips"], size: 0.25, boxOffset: 0.01 },
  { bones: ["DEF-spine.003"], size: 0.2, boxOffset: 0.05, min: -1, max: 1, rotationAxis: Axis.Z },
  { bones: ["DEF-upper_arm.L", "DEF-upper_arm.R"], depth: 0.1, size: 0.1, width: 0.2, boxOffset: 0.1 },
  { bones: ["DEF-forearm.L", "DEF-forearm.R"], depth: 0.1, size: 0.1, width: 0.2, min: -1, max: 1, boxOffset: 0.12 },
  { bones: ["DEF-thigh.L", "DEF-thigh.R"], depth: 0.1, size: 0.2, width: 0.08, min: -1, max: 1, boxOffset: 0.2 },
  { bones: ["DEF-shin.L", "DEF-shin.R"], depth: 0.08, size: 0.3, width: 0.1, min: -1, max: 1, boxOffset: 0.2 },
  { bones: ["DEF-head"], size: 0.16, boxOffset: 0, min: -1, max: 1, rotationAxis: Axis.Z },
];

/** UAL idling on a Havok floor, both hands held on targets 0.15 h above and beside their animated places. */
async function heldUal() {
  const m = await loadModel("UAL", { clips: (n) => n === "Idle_Loop" });
  open.push(m);
  const plugin = new HavokPlugin(false, havok.engine);
  m.scene.enablePhysics(new Vector3(0, -9.81, 0), plugin);
  const floor = CreateBox("floor", { width: 20, depth: 20, height: 1 }, m.scene);
  floor.position.y = -0.5;
  new PhysicsAggregate(floor, PhysicsShapeType.BOX, { mass: 0 }, m.scene);
  m.container.animationGroups[0]!.start(true);
  m.scene.render();
  const h = height(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const warnings: string[] = [];
  ik.onWarningObservable.add((w) => warnings.push(w.cause));
  const r = ik.references;
  const targets: TransformNode[] = [];
  for (const [effector, bone, side] of [
    [ik.solver.leftHandEffector, r.leftHand, 1],
    [ik.solver.rightHandEffector, r.rightHand, -1],
  ] as const) {
    const t = new TransformNode("target", m.scene);
    t.position.copyFrom(worldPos(bone).add(new Vector3(0.1 * h * side, 0.15 * h, 0.05 * h)));
    effector.target = t;
    effector.positionWeight = 1;
    targets.push(t);
  }
  for (let f = 0; f < 20; f++) m.scene.render();
  const mesh = m.scene.meshes.find((x) => x.skeleton === m.skeleton) as AbstractMesh;
  // what the skin shows: the Bones (the linked nodes no longer are, once the ragdoll has unlinked them)
  const shown = (b: Bone): Vector3 => b.getAbsolutePosition(mesh).clone();
  return { m, h, ik, r, targets, warnings, shown, mesh };
}

const title = havok.engine
  ? "Physics v2 Ragdoll and Havok bodies with FullBodyBipedIK (Havok wasm in Node, UAL)"
  : `Physics v2 Ragdoll and Havok bodies with FullBodyBipedIK (skipped: Havok did not load: ${havok.reason})`;

describe.skipIf(!havok.engine)(title, () => {
  /** Ragdolls UAL, with the IK switched off at once or left on, and returns every bone as shown each frame. */
  async function ragdolled(ikOn: boolean) {
    const s = await heldUal();
    const ragdoll = new Ragdoll(s.m.skeleton, s.mesh, CONFIG);
    s.m.scene.render();
    if (!ikOn) s.ik.enabled = false;
    const nodes = s.m.skeleton.bones.map((b) => b.getTransformNode());
    ragdoll.ragdoll();
    const frames: Vector3[][] = [];
    for (let f = 0; f < 30; f++) {
      s.m.scene.render();
      frames.push(s.m.skeleton.bones.map(s.shown));
    }
    return { ...s, ragdoll, nodes, frames };
  }

  it("the IK left on under the ragdoll is skipped, with one warning: the shown pose is the IK-off one", async () => {
    const off = await ragdolled(false);
    const on = await ragdolled(true);
    let diff = 0;
    let fell = 0;
    on.frames.forEach((bones, f) =>
      bones.forEach((p, i) => {
        diff = Math.max(diff, Vector3.Distance(p, off.frames[f]![i]!) / on.h);
        fell = Math.max(fell, Vector3.Distance(p, on.frames[0]![i]!) / on.h);
      }),
    );
    const shownHand = Vector3.Distance(on.shown(on.r.leftHand), on.targets[0]!.position) / on.h;
    expect(fell).toBeGreaterThan(0.1);
    expect(diff).toBeLessThan(1e-6);
    expect(shownHand).toBeGreaterThan(0.1);
    // told why the hands left their targets (the IK solving the unlinked nodes said nothing)
    expect(on.warnings).toEqual(["detached:unlinked"]);
    expect(off.warnings).toEqual([]);
    report("ragdoll: shown pose IK on vs off, bones' largest move, shown hand to target (× h)", diff, fell, shownHand);
  });

  it("after the ragdoll the IK reaches again only once the nodes are linked back", async () => {
    for (const relink of [false, true]) {
      const s = await ragdolled(false);
      s.ragdoll.dispose();
      if (relink) s.m.skeleton.bones.forEach((b, i) => s.nodes[i] && b.linkTransformNode(s.nodes[i]));
      s.ik.enabled = true;
      let nan = 0;
      for (let f = 0; f < 10; f++) {
        s.m.scene.render();
        for (const b of s.m.skeleton.bones) if (!Number.isFinite(s.shown(b).length())) nan++;
      }
      const hand = Vector3.Distance(s.shown(s.r.leftHand), s.targets[0]!.position) / s.h;
      expect(nan).toBe(0);
      if (relink) expect(hand).toBeLessThan(1e-4);
      else {
        expect(hand).toBeGreaterThan(0.3);
        expect(s.warnings).toEqual(["detached:unlinked"]);
      }
      report(`ragdoll disposed, ${relink ? "relinked" : "not relinked"}: shown hand to its target (× h)`, hand);
    }
  });

  it("a hand whose target is a falling dynamic body is on it the same frame", async () => {
    const s = await heldUal();
    const box = CreateBox("box", { size: 0.06 * s.h }, s.m.scene);
    box.position.copyFrom(worldPos(s.r.rightHand).add(new Vector3(0, 0.35 * s.h, 0.15 * s.h)));
    new PhysicsAggregate(box, PhysicsShapeType.BOX, { mass: 1 }, s.m.scene);
    s.ik.solver.rightHandEffector.target = box;
    s.ik.solver.rightArmChain.pull = 1;
    let gap = 0;
    let fastest = 0;
    let last = nodePos(box);
    for (let f = 0; f < 24; f++) {
      s.m.scene.render();
      const at = nodePos(box);
      fastest = Math.max(fastest, Vector3.Distance(at, last) / s.h);
      last = at;
      gap = Math.max(gap, Vector3.Distance(worldPos(s.r.rightHand), at) / s.h);
    }
    // a frame late, the hand would trail the box by its move in a frame
    expect(fastest).toBeGreaterThan(0.02);
    expect(gap).toBeLessThan(1e-4);
    report("hand on a falling box: largest gap, box's largest move in a frame (× h)", gap, fastest);
  });
});
