/**
 * Babylon's root motion with the IK (QA round 33): a character walked by `RootMotionController`, which moves its
 * node from `onAfterAnimationsObservable` (after the IK's FixTransforms, before its solve), playing the in-place copy
 * of a clip (`RootMotionClip.animationGroup`, a clone sharing its animations with the source). A hand held on a world
 * target or on a prop the character carries, GrounderFBBIK on bumps, the in-place copy started between frames and
 * disposed while the IK lives (of a clip in place and of one that travels), and IKLevelOfDetail's bounds. Babylon 9
 * only: Babylon 8 has no root motion.
 */
import { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import "@babylonjs/core/Meshes/instancedMesh.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { IKLevelOfDetail } from "../../src/babylon/lod/ik-level-of-detail.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { type Twin, type TwinScenario, runTwins } from "../helpers/animation-twins.js";
import { type LoadedModel, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { heightfield } from "../helpers/heightfield.js";
import { report } from "../helpers/modifier-scene.js";
import { holdRailThenProp } from "../helpers/rail-and-prop.js";
import { height, nodePos, worldPos } from "../helpers/scene-probes.js";
import { blending, fbbik, group } from "../helpers/twin-iks.js";

// Babylon 8 (the compatibility run) has no RootMotionClip: the module is missing there
const rootMotion = await import("@babylonjs/core/Animations/rootMotion.js").catch(() => null);
type RootMotionClip = InstanceType<NonNullable<typeof rootMotion>["RootMotionClip"]>;

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

const WALKS = [
  ["UAL", "Walk_Loop"],
  ["Xbot", "walk"],
] as const;

/** `name` loaded with its walk only, the walk's in-place copy playing, the controller moving its node. */
async function walker(name: (typeof WALKS)[number][0], clip: string, moved = true) {
  const m = await loadModel(name, { clips: (c) => c === clip });
  open.push(m);
  const h = height(m);
  const walk = new rootMotion!.RootMotionClip(m.container.animationGroups[0]!);
  const controller = new rootMotion!.RootMotionController(walk.characterNode, [walk]);
  controller.applyToCharacter = moved;
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  walk.animationGroup.start(true);
  return { m, h, walk, controller, ik, node: walk.characterNode };
}

/** The IK on Babylon's pose through `scenario` (a FullBodyBipedIK on twins: weight 0, read, reach, others, drift). */
async function expectOnBabylon(label: string, scenario: TwinScenario): Promise<void> {
  const [f] = await runTwins(scenario, [fbbik]);
  report(`${label}: weight 0, read, reach, others, drift`, f!.weightZero, f!.read, f!.reach, f!.others, f!.drift);
  expect(f!.weightZero).toBeLessThan(1e-6);
  expect(f!.read).toBeLessThan(1e-6);
  expect(f!.reach).toBeLessThan(1e-4);
  expect(f!.others).toBeLessThan(1e-9);
  expect(f!.drift).toBeLessThan(1e-6);
}

/** `walk` with its root's position keys carried along +z at `speed` a second: a clip that travels (a Root source). */
function travelling(walk: AnimationGroup, speed: number): AnimationGroup {
  const probe = new rootMotion!.RootMotionClip(walk);
  const root = probe.rootNode!;
  probe.dispose();
  const g = new AnimationGroup(`${walk.name} travelling`, walk.getScene());
  for (const ta of walk.targetedAnimations) {
    let a = ta.animation;
    if (ta.target === root && a.targetProperty === "position") {
      a = a.clone();
      const fps = a.framePerSecond;
      a.setKeys(
        a.getKeys().map((k) => ({ ...k, value: (k.value as Vector3).add(new Vector3(0, 0, (speed * k.frame) / fps)) })),
      );
    }
    g.addTargetedAnimation(a, ta.target);
  }
  g.normalize(walk.from, walk.to);
  return g;
}

describe.skipIf(rootMotion === null)("Babylon's root motion under the IK (Babylon 9: 8 has no RootMotionClip)", () => {
  for (const [name, clip] of WALKS) {
    it.skipIf(!modelAvailable(name))(`${name}: a hand on a world rail and on a carried prop, on them`, async () => {
      const { m, h, ik, node } = await walker(name, clip);
      m.scene.render();
      const { onRail, onProp, walked } = holdRailThenProp(ik, node, h, 20, 60);
      report(`${name}: hand off the rail, off the prop (h); walked (h)`, onRail, onProp, walked);
      // the controller moves the node before the solve: on them in the same frame (a frame late would be 1 frame's
      // travel, 0.011 h for UAL, 0.016 h for Xbot)
      expect(walked).toBeGreaterThan(0.5);
      expect(onRail).toBeLessThan(1e-4);
      expect(onProp).toBeLessThan(1e-4);
    });
  }

  it.skipIf(!modelAvailable("UAL"))(
    "UAL on bumps: the grounder sees the node where the controller put it",
    async () => {
      /** Feet heights and the pelvis offset (÷ h) over 120 frames; `path`: the node put there before each render. */
      const run = async (path: Vector3[] | null, weight = 1) => {
        const { m, h, ik, node } = await walker("UAL", "Walk_Loop", path === null);
        const bumps = (x: number, z: number) =>
          0.04 * h * Math.sin(z / (0.25 * h)) + 0.02 * h * Math.sin(x / (0.2 * h));
        const ground = heightfield(m.scene, 40 * h, 400, bumps);
        const grounder = GrounderFBBIK.create(ik, { raycast: StaticGroundRaycast.fromMeshes([ground]).raycast });
        grounder.weight = weight;
        const frames: { feet: number[]; pelvis: number; at: Vector3 }[] = [];
        for (let f = 0; f < 120; f++) {
          if (path !== null) node.position.copyFrom(path[f]!);
          m.scene.render();
          const feet = [ik.references.leftFoot, ik.references.rightFoot].map((b) => worldPos(b).y / h);
          frames.push({ feet, pelvis: grounder.solver.pelvis.heightOffset / h, at: node.position.clone() });
        }
        return frames;
      };
      const moved = await run(null);
      const path = moved.map((f) => f.at);
      const placed = await run(path);
      const ungrounded = await run(path, 0);
      let gap = 0;
      let grounding = 0;
      for (let f = 0; f < moved.length; f++) {
        gap = Math.max(gap, Math.abs(moved[f]!.pelvis - placed[f]!.pelvis));
        for (let i = 0; i < 2; i++) {
          gap = Math.max(gap, Math.abs(moved[f]!.feet[i]! - placed[f]!.feet[i]!));
          grounding = Math.max(grounding, Math.abs(moved[f]!.feet[i]! - ungrounded[f]!.feet[i]!));
        }
      }
      report(
        "UAL on bumps: moved by the controller vs put there before the frame (h); the grounder's own move",
        gap,
        grounding,
      );
      // measured: 0 (bit for bit) and 0.048 h: the grounder works, on the node as moved this frame
      expect(grounding).toBeGreaterThan(0.02);
      expect(gap).toBe(0);
    },
  );

  it.skipIf(!modelAvailable("UAL"))(
    "UAL: the in-place copy started between frames over the stopped source, weighted, disposed: the IK on top",
    async () => {
      const clips = new WeakMap<Twin, RootMotionClip>();
      const scenario: TwinScenario = {
        clips: ["Walk_Loop", "Idle_Loop"],
        frames: 450,
        prepare: (t) => {
          t.m.scene.animationPropertiesOverride = blending(0.05);
          group(t, "Walk_Loop").start(true);
        },
        between: (t, f) => {
          if (f === 100) {
            // switched to root motion mid-walk: the clip made (and its copy started) with the IK's pose on the bones
            const walk = group(t, "Walk_Loop");
            const clip = new rootMotion!.RootMotionClip(walk);
            clips.set(t, clip);
            new rootMotion!.RootMotionController(clip.characterNode, [clip]);
            walk.stop();
            clip.animationGroup.start(true);
          }
          if (f === 250) {
            clips.get(t)!.animationGroup.weight = 0.5;
            group(t, "Idle_Loop").weight = 0.5;
            group(t, "Idle_Loop").start(true);
          }
          if (f === 350) clips.get(t)!.dispose();
        },
      };
      // measured: 0, 0, 3.3e-7, 0, 0
      await expectOnBabylon("in place", scenario);
    },
  );

  it.skipIf(!modelAvailable("UAL"))(
    "UAL: a travelling clip, its root's travel taken out of a cloned channel, disposed: the IK on top",
    async () => {
      const clips = new WeakMap<Twin, RootMotionClip>();
      const scenario: TwinScenario = {
        clips: ["Walk_Loop"],
        frames: 300,
        prepare: (t) => {
          t.m.scene.animationPropertiesOverride = blending(0.05);
          const clip = new rootMotion!.RootMotionClip(travelling(group(t, "Walk_Loop"), 0.8));
          // the travel comes from the root's keys: the copy's root position channel is rewritten, not shared
          expect(clip.source).toBe(rootMotion!.RootMotionSource.Root);
          clips.set(t, clip);
          new rootMotion!.RootMotionController(clip.characterNode, [clip]);
          group(t, "Walk_Loop").start(true);
        },
        between: (t, f) => {
          if (f === 60) {
            group(t, "Walk_Loop").stop();
            clips.get(t)!.animationGroup.start(true);
          }
          if (f === 200) clips.get(t)!.dispose();
        },
      };
      // measured: 0, 0, 2.4e-7, 0, 0
      await expectOnBabylon("travelling", scenario);
    },
  );

  for (const [name, clip] of WALKS) {
    it.skipIf(!modelAvailable(name))(
      `${name}: IKLevelOfDetail's bounds follow the node in the same frame`,
      async () => {
        const { m, h, ik, node, controller } = await walker(name, clip, false);
        const lod = IKLevelOfDetail.for(m.scene);
        lod.budgetMs = Infinity;
        for (let f = 0; f < 3; f++) m.scene.render();
        const view = lod.viewOf(ik)!;
        // standing: where the bounds sit from the node
        const offset = view.centre.subtract(nodePos(node));
        controller.applyToCharacter = true;
        let worst = 0;
        for (let f = 0; f < 60; f++) {
          m.scene.render();
          worst = Math.max(worst, Vector3.Distance(view.centre, nodePos(node).add(offset)) / h);
        }
        report(`${name}: the level's bounds centre off the node's this frame (h)`, worst);
        // measured before: 0.011 h (UAL), 0.016 h (Xbot), a frame's travel: placed by the node's matrix of last frame
        expect(worst).toBeLessThan(1e-6);
      },
    );
  }
});

describe.skipIf(!modelAvailable("UAL"))("IKLevelOfDetail's instances moved after the animations (UAL)", () => {
  it("an instance's place is this frame's: its distance follows a holder moved where root motion moves", async () => {
    const m = await loadModel("UAL", { clips: (c) => c === "Idle_Loop" });
    open.push(m);
    m.container.animationGroups[0]!.start(true);
    const skinned = m.scene.meshes.filter((x) => x.skeleton === m.skeleton && x.getTotalVertices() > 0) as Mesh[];
    const holder = new TransformNode("holder", m.scene);
    holder.position.x = 2;
    const instances = skinned.map((s) => {
      const i = s.createInstance(`instance of ${s.name}`);
      i.parent = holder;
      return i;
    });
    // the character itself kept as a template: only the instances draw it
    m.root.setEnabled(false);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const lod = IKLevelOfDetail.for(m.scene);
    lod.budgetMs = Infinity;
    for (let f = 0; f < 3; f++) m.scene.render();
    const view = lod.viewOf(ik)!;
    const h = height(m);
    // carried along +z as a RootMotionController carries a node: after the animations, before the solve
    m.scene.onAfterAnimationsObservable.add(() => {
      holder.position.z += 0.05;
    });
    const source = skinned[0]!;
    const camera = m.scene.activeCamera!;
    const placed = new Vector3();
    let worst = 0;
    for (let f = 0; f < 30; f++) {
      m.scene.render();
      const carry = source.computeWorldMatrix(true).clone().invert().multiply(instances[0]!.computeWorldMatrix(true));
      Vector3.TransformCoordinatesToRef(view.centre, carry, placed);
      worst = Math.max(worst, Math.abs(view.distance - Vector3.Distance(placed, camera.globalPosition)) / h);
    }
    report("UAL instances: the level's distance off the instance's place this frame (h)", worst);
    // measured before: 0.031 h: 0.05 m a frame behind (placed by the instance's matrix of last frame)
    expect(worst).toBeLessThan(1e-6);
  });
});
