/**
 * Babylon's root motion under the IK's components (QA round 34; round 33 covered the IK itself): a character walked
 * by `RootMotionController` (which moves its node from `onAfterAnimationsObservable`, before the IK's solve) with
 * GrounderFBBIK and GrounderIK over a 20° ramp and a stair, the InteractionSystem picking up a cup, touching a wall
 * and a node the character carries, and a walk retargeted by AnimatorAvatar then played by root motion with the IK on
 * top. Babylon 9 only: Babylon 8 has neither RootMotionClip nor AnimatorAvatar.
 */
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import "@babylonjs/core/Materials/standardMaterial.js";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { alignRestPose } from "../../src/babylon/align-rest-pose.js";
import { bipedNameMap } from "../../src/babylon/biped-name-map.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { GrounderIK } from "../../src/effectors/grounding/grounder-ik.js";
import { GroundingHit } from "../../src/effectors/grounding/grounding-common.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { InteractionCurveType } from "../../src/effectors/interaction/interaction-curves.js";
import { InteractionObject } from "../../src/effectors/interaction/interaction-object.js";
import { InteractionSystem } from "../../src/effectors/interaction/interaction-system.js";
import { Curve } from "../../src/math/curve.js";
import { FullBodyBipedEffector } from "../../src/solver/biped-bones.js";
import { type LoadedModel, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { heightfield } from "../helpers/heightfield.js";
import { holdRailThenProp } from "../helpers/rail-and-prop.js";
import { DT, report } from "../helpers/modifier-scene.js";
import { height, nodePos, worldPos } from "../helpers/scene-probes.js";

// Babylon 8 (the compatibility run) has no RootMotionClip nor AnimatorAvatar: the modules are missing there
const rootMotion = await import("@babylonjs/core/Animations/rootMotion.js").catch(() => null);
const avatars = await import("@babylonjs/core/Animations/animatorAvatar.js").catch(() => null);

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** UAL with its walk only, and its character height. */
async function ual(): Promise<{ m: LoadedModel; h: number; walk: AnimationGroup }> {
  const m = await loadModel("UAL", { clips: (c) => c === "Walk_Loop" });
  open.push(m);
  return { m, h: height(m), walk: m.container.animationGroups[0]! };
}

/**
 * How the node travels: by the controller (`controller`), at the clip's mean speed along +z in
 * `onBeforeRenderObservable` (`hand`, the way before root motion), or put on `path`'s points there (`replay`).
 */
type Mover = { by: "controller" } | { by: "hand" } | { by: "replay"; path: readonly Vector3[] };

/** A frame of a grounded walk: the node, the feet and pelvis bones, the feet as animated (the grounder's input). */
interface GroundedFrame {
  at: Vector3;
  feet: Vector3[];
  animated: Vector3[];
  pelvis: Vector3;
}

const FRAMES = 200;

/**
 * UAL walking over `terrain` (starting 0.5 h ahead of it, along +z, the way the walk travels) moved by `mover`, its
 * node's height put on the ground under it in `onBeforeRenderObservable` (after the controller moved it), grounded by
 * `kind`.
 */
async function groundedWalk(terrain: "ramp" | "stair", mover: Mover, kind: "fbbik" | "ik") {
  const { m, h, walk } = await ual();
  const scene = m.scene;
  const z0 = 0.5 * h;
  const meshes: Mesh[] = [];
  if (terrain === "ramp") {
    const slope = Math.tan((20 * Math.PI) / 180);
    // flat, then rising 20° from z0 (on a grid line: 40 cells over 20 h)
    meshes.push(heightfield(scene, 20 * h, 40, (_x, z) => (z < z0 ? 0 : slope * (z - z0))));
  } else {
    // a stair of 0.17 m rises and 0.28 m treads for a 1.8 m person
    meshes.push(CreateGround("ground", { width: 20 * h, height: 20 * h }, scene));
    const rise = (0.17 * h) / 1.8;
    const tread = (0.28 * h) / 1.8;
    for (let k = 0; k < 16; k++) {
      const depth = 10 * h - (z0 + k * tread);
      const step = CreateBox(`step ${k}`, { width: 4 * h, height: (k + 1) * rise, depth }, scene);
      step.position.set(0, ((k + 1) * rise) / 2, z0 + k * tread + depth / 2);
      meshes.push(step);
    }
  }
  const ground = StaticGroundRaycast.fromMeshes(meshes);
  const hit = new GroundingHit();
  const groundAt = (x: number, z: number): number => {
    ground.cast({ x, y: 100 * h, z }, { x: 0, y: -1, z: 0 }, 300 * h, hit);
    return hit.point.y;
  };
  const clip = new rootMotion!.RootMotionClip(walk);
  const node = clip.characterNode;
  let playing = clip.animationGroup;
  if (mover.by === "controller") new rootMotion!.RootMotionController(node, [clip]);
  else {
    // the source clip played as it is, the node carried along
    const speed = clip.averageSpeed * DT;
    clip.dispose();
    playing = walk;
    let f = 0;
    scene.onBeforeRenderObservable.add(() => {
      if (mover.by === "hand") node.position.z += speed;
      else node.position.copyFrom(mover.path[f]!);
      f++;
    });
  }
  // the height a character controller would give, after the move: the controller's (onAfterAnimationsObservable
  // comes before) or the hand's (added before this)
  scene.onBeforeRenderObservable.add(() => {
    node.position.y = groundAt(node.position.x, node.position.z);
  });
  const options = { raycast: ground.raycast };
  let grounding: GrounderFBBIK | GrounderIK;
  let pelvis: Bone;
  let feet: Bone[];
  if (kind === "fbbik") {
    const ik = FullBodyBipedIK.create(scene, m.skeleton);
    grounding = GrounderFBBIK.create(ik, options);
    pelvis = ik.references.pelvis;
    feet = [ik.references.leftFoot, ik.references.rightFoot];
  } else {
    const r = resolveBipedReferences(m.skeleton).references;
    const legs = (["left", "right"] as const).map((s) => {
      const leg = LimbIK.create(scene, r[`${s}Thigh`]!, r[`${s}Calf`]!, r[`${s}Foot`]!);
      leg.solver.ikPositionWeight = 0;
      leg.solver.ikRotationWeight = 0;
      return leg;
    });
    grounding = GrounderIK.create(legs, r.pelvis!, options);
    pelvis = r.pelvis!;
    feet = [r.leftFoot!, r.rightFoot!];
  }
  playing.start(true);
  const frames: GroundedFrame[] = [];
  const legs = grounding.solver.legs;
  for (let f = 0; f < FRAMES; f++) {
    scene.render();
    frames.push({
      at: node.position.clone(),
      feet: feet.map(worldPos),
      animated: legs.map((l) => new Vector3(l.footPosition.x, l.footPosition.y, l.footPosition.z)),
      pelvis: worldPos(pelvis),
    });
  }
  return { h, frames, groundAt };
}

/**
 * Of a grounded walk after its first 30 frames (÷ h): the worst sole error of a foot planted in the animation (its
 * height above the ground under it against its animated height above the node, for frames within 0.01 h of the
 * foot's lowest), the pelvis's range of heights above the node, and the farthest the node went.
 */
function measure({ h, frames, groundAt }: Awaited<ReturnType<typeof groundedWalk>>) {
  const lowest = [0, 1].map((i) => Math.min(...frames.map((f) => f.animated[i]!.y - f.at.y)));
  let sole = 0;
  let low = Infinity;
  let high = -Infinity;
  for (const f of frames.slice(30)) {
    for (let i = 0; i < 2; i++) {
      const animated = f.animated[i]!.y - f.at.y;
      const foot = f.feet[i]!;
      if (animated < lowest[i]! + 0.01 * h)
        sole = Math.max(sole, Math.abs(foot.y - groundAt(foot.x, foot.z) - animated) / h);
    }
    low = Math.min(low, (f.pelvis.y - f.at.y) / h);
    high = Math.max(high, (f.pelvis.y - f.at.y) / h);
  }
  const end = frames.at(-1)!.at;
  return { sole, bob: high - low, climbed: end.y / h, walked: end.z / h };
}

/** The largest distance between two walks' feet and pelvis over their frames (÷ h). */
function gap(a: GroundedFrame[], b: GroundedFrame[], h: number): number {
  let worst = 0;
  a.forEach((f, i) => {
    const g = b[i]!;
    worst = Math.max(
      worst,
      Vector3.Distance(f.pelvis, g.pelvis),
      ...f.feet.map((p, k) => Vector3.Distance(p, g.feet[k]!)),
    );
  });
  return worst / h;
}

describe.skipIf(rootMotion === null || !modelAvailable("UAL"))("root motion under the grounders (UAL)", () => {
  for (const terrain of ["ramp", "stair"] as const) {
    it(`GrounderFBBIK over a ${terrain === "ramp" ? "20° ramp" : "stair"}: this frame's node, no more bob than by hand`, async () => {
      const moved = await groundedWalk(terrain, { by: "controller" }, "fbbik");
      const replayed = await groundedWalk(terrain, { by: "replay", path: moved.frames.map((f) => f.at) }, "fbbik");
      const byHand = await groundedWalk(terrain, { by: "hand" }, "fbbik");
      const a = measure(moved);
      const b = measure(byHand);
      const apart = gap(moved.frames, replayed.frames, moved.h);
      report(
        `GrounderFBBIK, ${terrain}: by the controller vs the same path put there before the frame (h); planted soles ` +
          "off the ground, the pelvis's range above the node, by the controller and by hand (h); climbed (h)",
        apart,
        a.sole,
        b.sole,
        a.bob,
        b.bob,
        a.climbed,
      );
      // it climbed: measured 0.58 h up the ramp, 1.04 h up the stair
      expect(a.climbed).toBeGreaterThan(0.5);
      // measured: 0, bit for bit: the grounder reads the node (root position, feet velocity) as the controller put it
      expect(apart).toBe(0);
      // the pelvis's range above the node: ramp 0.125 h either way; stair 0.122 h either way
      expect(a.bob).toBeLessThan(b.bob + 0.005);
      // measured on the ramp: 3.4e-7 h (by hand 3.9e-7 h; with the node read as Babylon cached it last frame,
      // 4.8e-3 h). On the
      // stair both 0.164 h, whatever moves the node: a foot near a step's edge stands on the next step's nosing
      // (its probe's footRadius reaches it), and the node's height snapped up a step lifts the planted foot by the
      // rise until the leg's offset eases back (at footSpeed, as FinalIK's): a character controller smooths it
      if (terrain === "ramp") expect(a.sole).toBeLessThan(1e-4);
      else expect(Math.abs(a.sole - b.sole)).toBeLessThan(1e-3);
    });
  }

  it("GrounderIK on two LimbIK legs over the ramp: this frame's node", async () => {
    const moved = await groundedWalk("ramp", { by: "controller" }, "ik");
    const replayed = await groundedWalk("ramp", { by: "replay", path: moved.frames.map((f) => f.at) }, "ik");
    const apart = gap(moved.frames, replayed.frames, moved.h);
    const a = measure(moved);
    report(
      "GrounderIK, ramp: by the controller vs put there before the frame (h); planted soles off the ground (h); " +
        "climbed (h)",
      apart,
      a.sole,
      a.climbed,
    );
    expect(a.climbed).toBeGreaterThan(0.5);
    expect(apart).toBe(0);
    expect(a.sole).toBeLessThan(1e-4);
  });
});

/** A cup, a wall spot or a strap: a small box where the left hand goes, its interaction pausing at full weight. */
type Touch = "pick up" | "wall" | "carried";

describe.skipIf(rootMotion === null || !modelAvailable("UAL"))("root motion under the InteractionSystem (UAL)", () => {
  for (const touch of ["pick up", "wall", "carried"] as const satisfies readonly Touch[]) {
    it(`${touch}: the hand on it in the frame it triggers and while held, the held object with the hand`, async () => {
      const { m, h, walk } = await ual();
      const scene = m.scene;
      const clip = new rootMotion!.RootMotionClip(walk);
      const node = clip.characterNode;
      new rootMotion!.RootMotionController(node, [clip]);
      const ik = FullBodyBipedIK.create(scene, m.skeleton);
      const system = new InteractionSystem(ik);
      clip.animationGroup.start(true);
      for (let f = 0; f < 30; f++) scene.render();
      const r = ik.references;
      const arm = Vector3.Distance(worldPos(r.leftUpperArm), worldPos(r.leftForearm));
      const L = arm + Vector3.Distance(worldPos(r.leftForearm), worldPos(r.leftHand));
      const shoulder = worldPos(r.leftUpperArm);
      const outward = shoulder.subtract(worldPos(r.rightUpperArm)).normalize();
      // where the shoulder will be when the weight is full (0.5 s, 31 frames, on), ahead, lower and outward
      const travel = touch === "carried" ? 0 : 31 * clip.averageSpeed * DT;
      const ahead = touch === "wall" ? 0.2 * L : 0.5 * L;
      const box = CreateBox(touch, { size: 0.05 * h }, scene);
      box.position.copyFrom(shoulder.add(new Vector3(0, -0.25 * L, travel + ahead)));
      box.position.addInPlace(outward.scale(touch === "wall" ? 0.5 * L : 0.1 * L));
      // a node the character carries: under the node the controller moves
      if (touch === "carried") box.setParent(node);
      const object = new InteractionObject(box, {
        weightCurves: [{ type: InteractionCurveType.PositionWeight, curve: Curve.riseHoldFall(0.3, 0.6, 1.2) }],
        events: [{ time: 0.5, pickUp: touch === "pick up", pause: true }],
      });
      let paused = false;
      system.onInteractionPauseObservable.add(() => {
        paused = true;
      });
      system.startInteraction(FullBodyBipedEffector.LeftHand, object, false);
      const hand = r.leftHand.getTransformNode()!;
      const spot = nodePos(box);
      let onIt = Number.NaN;
      let held = 0;
      let heldFrames = 0;
      let carried = 0;
      let offset: Vector3 | null = null;
      const from = nodePos(node);
      for (let f = 0; f < 90; f++) {
        scene.render();
        if (!paused) continue;
        const at = touch === "carried" ? nodePos(box) : spot;
        if (Number.isNaN(onIt)) onIt = Vector3.Distance(worldPos(r.leftHand), at) / h;
        if (touch === "pick up") {
          // the box as the render placed it (its matrix not computed again) against the hand it hangs from
          const handMatrix = hand.computeWorldMatrix(true);
          offset ??= Vector3.TransformCoordinates(nodePos(box), Matrix.Invert(handMatrix));
          const drawn = box.getWorldMatrix().getTranslation();
          carried = Math.max(carried, Vector3.Distance(drawn, Vector3.TransformCoordinates(offset, handMatrix)) / h);
        } else if (Vector3.Distance(worldPos(r.leftUpperArm), at) < 0.9 * L) {
          // held while within reach (the wall is left behind)
          held = Math.max(held, Vector3.Distance(worldPos(r.leftHand), at) / h);
          heldFrames++;
        }
      }
      const walked = Vector3.Distance(nodePos(node), from) / h;
      report(
        `${touch}: the hand off it at the trigger (h), held (h, frames), the box off the hand (h); walked (h)`,
        onIt,
        held,
        heldFrames,
        carried,
        walked,
      );
      // measured: 1.2e-7, 1.5e-7 and 1.4e-7 h at the trigger; held within 3.0e-7 h; the cup 8.2e-8 h off the hand.
      // A frame late would be a frame's travel: 0.011 h
      expect(walked).toBeGreaterThan(0.8);
      expect(paused).toBe(true);
      expect(onIt).toBeLessThan(1e-5);
      if (touch === "pick up") {
        expect(box.parent).toBe(hand);
        expect(carried).toBeLessThan(1e-5);
      } else {
        expect(heldFrames).toBeGreaterThan(25);
        expect(held).toBeLessThan(1e-5);
      }
    });
  }
});

describe.skipIf(rootMotion === null || avatars === null || !modelAvailable("UAL") || !modelAvailable("Superhero"))(
  "root motion of a walk retargeted by AnimatorAvatar (UAL's on Superhero)",
  () => {
    /**
     * Superhero walking UAL's walk retargeted (API.md's order: aligned, mapped), played by root motion when
     * `moved`: the planted contacts' slide in the world (÷ h a frame) and a hand held on a rail and a carried prop.
     */
    async function retargeted(moved: boolean) {
      const source = await loadModel("UAL", { clips: (c) => c === "Walk_Loop" });
      const hero = await loadModel("Superhero", { scene: source.scene, clips: () => false });
      open.push(hero, source);
      const scene = source.scene;
      hero.root.position.x += 1.5;
      source.skeleton.returnToRest();
      const avatar = new avatars!.AnimatorAvatar("hero", hero.root, false, false);
      avatar.showWarnings = false;
      const restore = alignRestPose(source.skeleton, hero.skeleton);
      let played: AnimationGroup;
      try {
        const map = bipedNameMap(source.skeleton, hero.skeleton);
        played = avatar.retargetAnimationGroup(source.container.animationGroups[0]!, { mapNodeNames: map });
      } finally {
        restore();
      }
      const clip = new rootMotion!.RootMotionClip(played);
      const controller = new rootMotion!.RootMotionController(clip.characterNode, [clip]);
      controller.applyToCharacter = moved;
      const ik = FullBodyBipedIK.create(scene, hero.skeleton);
      clip.animationGroup.start(true);
      const h = height(hero);
      for (let f = 0; f < 10; f++) scene.render();
      const node = clip.characterNode;
      const from = nodePos(node);
      // a cycle (80 frames) of the contacts' world positions
      const tracks = clip.contactNodes.map(() => [] as Vector3[]);
      for (let f = 0; f < 80; f++) {
        scene.render();
        clip.contactNodes.forEach((c, i) => tracks[i]!.push(nodePos(c as TransformNode)));
      }
      // planted: within 0.005 h of the contact's lowest in this and the frame before
      let slide = 0;
      let planted = 0;
      for (const t of tracks) {
        const lowest = Math.min(...t.map((p) => p.y));
        for (let f = 1; f < t.length; f++) {
          if (t[f]!.y > lowest + 0.005 * h || t[f - 1]!.y > lowest + 0.005 * h) continue;
          slide += Math.hypot(t[f]!.x - t[f - 1]!.x, t[f]!.z - t[f - 1]!.z) / h;
          planted++;
        }
      }
      const walked = Vector3.Distance(nodePos(node), from) / h;
      // the IK on top: a hand on a world rail, then on a prop the character carries
      const { onRail, onProp } = holdRailThenProp(ik, node, h, 20, 40);
      return { clip, hero, slide: slide / planted, planted, walked, onRail, onProp };
    }

    it("the hero's root travels by the retargeted feet, which stay planted, and the IK on top holds", async () => {
      const inPlace = await retargeted(false);
      const moved = await retargeted(true);
      report(
        "Superhero by root motion: planted contacts' slide a frame in place and moved (h), frames planted; walked " +
          "over a cycle (h); a hand off a world rail and off a carried prop (h)",
        inPlace.slide,
        moved.slide,
        moved.planted,
        moved.walked,
        moved.onRail,
        moved.onProp,
      );
      // the clip is the hero's: its node the hero's root, its travel read from the hero's own retargeted toes
      expect(moved.clip.characterNode).toBe(moved.hero.root);
      expect(moved.clip.source).toBe(rootMotion!.RootMotionSource.FootContact);
      expect(moved.planted).toBeGreaterThan(20);
      expect(moved.walked).toBeGreaterThan(0.5);
      // in place the planted toes slide back at the walk's speed (0.0104 h a frame); moved, 0.0020 h: what is left is
      // the clip's own (UAL's walk on UAL keeps 9% of its slide by the same measure, Xbot's on Xbot 23%)
      expect(moved.slide).toBeLessThan(0.3 * inPlace.slide);
      expect(moved.onRail).toBeLessThan(1e-4);
      expect(moved.onProp).toBeLessThan(1e-4);
    });
  },
);
