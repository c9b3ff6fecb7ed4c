/**
 * Runs of docs/API.md's FullBodyBipedIK examples (sections 1 and 2) on the character, each checking what the example's
 * text promises on the bones' world positions (test/scenario/docs-examples-run.test.ts).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import type { Camera } from "@babylonjs/core/Cameras/camera.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { expect } from "vitest";
import {
  type EffectorHandles,
  FBBIKError,
  FullBodyBipedIK,
  GrounderFBBIK,
  IKLevel,
  IKLevelOfDetail,
  LimbIK,
} from "../../src/index.js";
import { MODELS, loadModel, proceduralIdle } from "./babylon-scene.js";
import { tailRig } from "./docs-rigs.js";
import { type ExampleRun, armReach, expectNear, expectNoWarnings } from "./docs-world.js";
import { rotationAngle } from "./rotation-angle.js";
import { height, worldPos } from "./scene-probes.js";
import { MANNEQUIN_HUMANOID, PMX_NAMES, vrmFile } from "./vrm-from-glb.js";

/** World angle between two rotations, degrees. */
export const angleDeg = (a: Quaternion, b: Quaternion): number => (rotationAngle(a, b) * 180) / Math.PI;

/** A world rotation a node shows, fresh. */
export function worldRotation(n: TransformNode): Quaternion {
  n.computeWorldMatrix(true);
  return n.absoluteRotationQuaternion.clone();
}

/** A node at `p` in `scene`. */
export function nodeAt(scene: Scene, name: string, p: Vector3): TransformNode {
  const n = new TransformNode(name, scene);
  n.position.copyFrom(p);
  return n;
}

/** Where the knee (or elbow) sits off the upper–end line, as a unit direction. */
export function bendSide(upper: Vector3, middle: Vector3, end: Vector3): Vector3 {
  const axis = end.subtract(upper).normalize();
  const off = middle.subtract(upper);
  return off.subtract(axis.scale(Vector3.Dot(off, axis))).normalize();
}

export const BIPED_RUNS: Record<string, ExampleRun> = {
  async addCharacter({ world, load }) {
    world.globals({ docsModelUrl: world.mannequinUrl() });
    const scene = await world.emptyScene();
    const ik = world.own((await (await load()).addCharacter(scene)) as FullBodyBipedIK);
    world.frames(3, scene);
    expectNear("left hand", worldPos(ik.references.leftHand), new Vector3(-0.4, 1.3, 0.3), 0.01 * skeletonHeight(ik));
    expectNoWarnings(ik);
  },

  async addCharacterWithImport({ world, load }) {
    world.globals({ docsModelUrl: world.mannequinUrl() });
    const scene = await world.emptyScene();
    const ik = world.own((await (await load()).addCharacterWithImport(scene)) as FullBodyBipedIK);
    const hand = ik.solver.rightHandEffector;
    const r = ik.references;
    const at = armReach([r.rightUpperArm, r.rightForearm, r.rightHand], new Vector3(0.5, 0, 1));
    hand.position.copyFrom(at);
    hand.positionWeight = 1;
    world.frames(2, scene);
    expectNear("right hand", worldPos(r.rightHand), at, 0.01 * skeletonHeight(ik));
    expectNoWarnings(ik);
  },

  async reachAndPin({ world, load, logs }) {
    const ik = await world.ik();
    const hand0 = world.pos("rightHand");
    const foot0 = world.pos("leftFoot");
    (await load()).reachAndPin(ik);
    world.frames(3);
    const want = Vector3.Lerp(hand0, new Vector3(0.3, 1.0, 0.5), 0.8);
    expectNear("right hand, 80 % of the way", world.pos("rightHand"), want, 0.01 * world.h);
    expectNear("pinned left foot", world.pos("leftFoot"), foot0, 1e-3 * world.h);
    expect(logs().map((l) => l.join(" "))).toEqual([
      "Body 0",
      "LeftShoulder 0",
      "RightShoulder 0",
      "LeftThigh 0",
      "RightThigh 0",
      "LeftHand 0",
      "RightHand 0.8",
      "LeftFoot 1",
      "RightFoot 0",
    ]);
    expectNoWarnings(ik);
  },

  async followNode({ world, load }) {
    const ik = await world.ik();
    const target = (await load()).followNode(ik.scene, ik) as TransformNode;
    world.frames(2);
    expectNear("right hand on the target", world.pos("rightHand"), world.nodePos(target), 0.005 * world.h);
    target.position.y += 0.1; // moved between frames: followed at the next solve
    world.frames(1);
    expectNear("right hand on the moved target", world.pos("rightHand"), world.nodePos(target), 0.005 * world.h);
    expectNoWarnings(ik);
  },

  async dragEffectors({ world, load, logs }) {
    const m = await world.model();
    const handles = world.own((await load()).dragEffectors(m.scene, m.skeleton) as EffectorHandles);
    const ik = handles.ik;
    world.own(ik);
    expect(handles.handles.length).toBe(13);
    expect(handles.selected?.name).toBe("left hand");
    expect(handles.positionGizmo.attachedNode).toBe(handles.selected!.mesh);
    world.frames(2);
    // nothing pulls until a drag: the handle rides on the hand
    expect(ik.solver.leftHandEffector.positionWeight).toBe(0);
    expectNear(
      "left hand's handle on the hand",
      handles.selected!.mesh.position,
      world.pos("leftHand"),
      1e-4 * world.h,
    );
    handles.grab("position");
    expect(logs()).toEqual([["left hand now pulls"]]);
    handles.selected!.mesh.position.y += 0.1 * world.h;
    world.frames(2);
    expectNear(
      "left hand on its dragged handle",
      world.pos("leftHand"),
      handles.selected!.mesh.position,
      0.005 * world.h,
    );
    handles.dispose();
    expect([ik.solver.leftHandEffector.target, ik.solver.leftHandEffector.positionWeight]).toEqual([null, 0]);
    expectNoWarnings(ik);
  },

  async gripWithRotation({ world, load }) {
    const ik = await world.ik();
    (await load()).gripWithRotation(ik.scene, ik);
    world.frames(2);
    const grip = ik.scene.getTransformNodeByName("grip")!;
    const hand = world.node("rightHand");
    expectNear("right hand on the grip", world.pos("rightHand"), world.nodePos(grip), 0.005 * world.h);
    expect(angleDeg(worldRotation(hand), worldRotation(grip))).toBeLessThan(0.5);
    expectNoWarnings(ik);
  },

  async hitReaction({ world, load }) {
    const ik = await world.ik();
    const push = (await load()).hitReaction(ik) as (v: Vector3) => void;
    world.frames(1);
    const body0 = worldPos(ik.rootNode);
    push(new Vector3(0, 0, -0.15));
    world.frames(1);
    const pushed = worldPos(ik.rootNode).subtract(body0);
    expect(pushed.z).toBeLessThan(-0.1);
    world.frames(60); // 0.9⁶⁰ of the kick left
    expectNear("body back", worldPos(ik.rootNode), body0, 0.002 * world.h);
    expectNoWarnings(ik);
  },

  async carryFreeHand({ world, load }) {
    const ik = await world.ik();
    world.frames(1);
    // the triangle of the right shoulder, the left one and the root node: as animated, then as solved (the
    // solver's nodes: the stretched left arm's shoulder node is not its bone, 0.08 apart on UAL)
    const before = [world.pos("rightUpperArm"), world.pos("leftUpperArm"), worldPos(ik.rootNode)] as const;
    const node = (chain: number, n: number) => ik.solver.getNodeWorldPosition(chain, n, new Vector3());
    const hand0 = world.pos("rightHand");
    (await load()).carryFreeHand(ik);
    world.frames(3);
    const after = [node(2, 0), node(1, 0), node(0, 0)] as const;
    // the out-of-reach left hand pulls the body over…
    expect(Vector3.Distance(worldPos(ik.rootNode), before[2])).toBeGreaterThan(0.03 * world.h);
    // …and the free right hand keeps its place relative to the triangle (turned with it about its own shoulder)
    const carried = fromFrame(toFrame(hand0, ...before), ...after);
    expect(Vector3.Distance(carried, hand0), "the ride").toBeGreaterThan(0.2 * world.h);
    expectNear("right hand carried", world.pos("rightHand"), carried, 0.005 * world.h);
    expectNoWarnings(ik);
  },

  async shiftHips({ world, load }) {
    const ik = await world.ik();
    world.frames(1);
    const body0 = worldPos(ik.rootNode);
    (await load()).shiftHips(ik);
    world.frames(2);
    expectNear("body 15 cm along +Z", worldPos(ik.rootNode), body0.add(new Vector3(0, 0, 0.15)), 0.005 * world.h);
    expectNoWarnings(ik);
  },

  async followPelvisTracker({ world, load }) {
    const ik = await world.ik();
    world.frames(1);
    const tracker = new TransformNode("tracker", ik.scene);
    tracker.position.copyFrom(worldPos(ik.rootNode).add(new Vector3(0.05, -0.05, 0.1)));
    tracker.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.5).multiply(
      worldRotation(ik.rootNode.getTransformNode()!),
    );
    (await load()).followPelvisTracker(ik, tracker);
    world.frames(2);
    expectNear("body on the tracker", worldPos(ik.rootNode), world.nodePos(tracker), 0.005 * world.h);
    expect(angleDeg(worldRotation(ik.rootNode.getTransformNode()!), worldRotation(tracker))).toBeLessThan(1);
    expectNoWarnings(ik);
  },

  async crouch({ world, load }) {
    const ik = await world.ik();
    world.frames(1);
    const feet0 = [world.pos("leftFoot"), world.pos("rightFoot")];
    const body0 = worldPos(ik.rootNode);
    (await load()).crouch(ik);
    world.frames(2);
    expectNear("left foot", world.pos("leftFoot"), feet0[0]!, 1e-3 * world.h);
    expectNear("right foot", world.pos("rightFoot"), feet0[1]!, 1e-3 * world.h);
    expectNear("body 0.3 lower", worldPos(ik.rootNode), body0.add(new Vector3(0, -0.3, 0)), 0.01 * world.h);
    // the knees bend forward: the way the toes point
    const forward = world.forward();
    for (const s of ["left", "right"] as const) {
      const side = bendSide(world.pos(`${s}Thigh`), world.pos(`${s}Calf`), world.pos(`${s}Foot`));
      expect(Vector3.Dot(side, forward), `${s} knee forward`).toBeGreaterThan(0.9);
    }
    expectNoWarnings(ik);
  },

  async tuneChains({ world, load }) {
    const ik = await world.ik();
    (await load()).tuneChains(ik);
    // the left hand out of reach drags the body (pull 1)
    const body0 = worldPos(ik.rootNode);
    const hand = ik.solver.leftHandEffector;
    hand.position.copyFrom(world.pos("leftUpperArm").add(new Vector3(-1.2, 0, 0)));
    hand.positionWeight = 1;
    world.frames(2);
    expect(body0.x - worldPos(ik.rootNode).x).toBeGreaterThan(0.03 * world.h);
    expect(ik.solver.spineStiffness).toBe(0.8);
    expectNoWarnings(ik);
  },

  async steerKneeAndElbow({ world, load }) {
    const ik = await world.ik();
    (await load()).steerKneeAndElbow(ik.scene, ik);
    // a bend shows only on a bent limb: crouch a little, and bring the right hand to the chest
    const s = ik.solver;
    s.leftFootEffector.pinToBone(1, 1);
    s.rightFootEffector.pinToBone(1, 1);
    s.bodyEffector.pinToBone(1, 0);
    s.bodyEffector.position.y -= 0.2;
    s.rightHandEffector.position.copyFrom(world.pos("chest").add(new Vector3(-0.1, 0, 0.25)));
    s.rightHandEffector.positionWeight = 1;
    world.frames(2);
    const goal = world.nodePos(ik.scene.getTransformNodeByName("knee goal")!);
    const hip = world.pos("leftThigh");
    const knee = world.pos("leftCalf");
    const foot = world.pos("leftFoot");
    const toGoal = bendSide(hip, goal, foot);
    expect(Vector3.Dot(bendSide(hip, knee, foot), toGoal), "left knee toward its goal").toBeGreaterThan(0.99);
    const elbow = bendSide(world.pos("rightUpperArm"), world.pos("rightForearm"), world.pos("rightHand"));
    expect(Vector3.Dot(elbow, new Vector3(1, -0.3, -0.5).normalize()), "right elbow toward +X-Y-Z").toBeGreaterThan(0);
    expectNoWarnings(ik);
  },

  async levelOfDetail({ world, load }) {
    const ik = await world.ik();
    const camera = ik.scene.activeCamera as Camera;
    const at = camera.position.clone();
    world.onCleanUp(() => camera.position.copyFrom(at));
    (await load()).levelOfDetail(ik, camera, ik.references.root);
    world.frames(1);
    expect(ik.solver.iterations).toBe(4);
    camera.position.z -= 40;
    world.frames(1);
    expect(ik.solver.iterations).toBe(0);
    expectNoWarnings(ik);
  },

  async crowdLevels({ world, load }) {
    const hero = await world.ik();
    const m = await world.model();
    const twin = m.container.instantiateModelsToScene((n) => `extra_${n}`, false, { doNotInstantiate: true });
    world.onCleanUp(() => twin.dispose());
    (twin.rootNodes[0] as TransformNode).position.set(0, 0, -500); // far behind the camera
    const extra = world.own(FullBodyBipedIK.create(m.scene, twin.skeletons[0]!));
    world.own(IKLevelOfDetail.for(m.scene));
    const run = (await load()).crowdLevels as (s: Scene, a: FullBodyBipedIK, b: FullBodyBipedIK) => boolean;
    run(m.scene, hero, extra);
    world.frames(2);
    expect(run(m.scene, hero, extra), "the extra out of view is Off").toBe(true);
    const lod = IKLevelOfDetail.for(m.scene);
    expect(lod.budgetMs).toBe(2);
    expect(lod.isManaged(hero)).toBe(false);
    expect(lod.levelOf(extra)).toBe(IKLevel.Off);
    expectNoWarnings(hero);
  },

  async fadeIk({ world, load }) {
    const ik = await world.ik();
    let grabbing = false;
    (await load()).fadeIk(ik.scene, ik, () => grabbing);
    world.frames(25); // about a third of a second to 0
    expect(ik.solver.ikPositionWeight).toBe(0);
    grabbing = true;
    world.frames(10);
    expect(ik.solver.ikPositionWeight).toBeGreaterThan(0.3);
    expect(ik.solver.ikPositionWeight).toBeLessThan(0.7);
    world.frames(15);
    expect(ik.solver.ikPositionWeight).toBe(1);
    expectNoWarnings(ik);
  },

  async tuneMappings({ world, load }) {
    const ik = await world.ik();
    (await load()).tuneMappings(ik);
    const head0 = worldRotation(world.node("head"));
    ik.solver.bodyEffector.pinToBone(1, 0);
    ik.solver.bodyEffector.position.z += 0.2;
    world.frames(2);
    expect(ik.solver.headMapping).not.toBeNull();
    // the head keeps its animated world rotation while the body leans
    expect(angleDeg(worldRotation(world.node("head")), head0)).toBeLessThan(0.5);
    expectNoWarnings(ik);
  },

  async solvedNodes({ world, load }) {
    const ik = await world.ik();
    ik.solver.rightHandEffector.position.copyFrom(world.armReach("right", new Vector3(0.5, 0, 1)));
    ik.solver.rightHandEffector.positionWeight = 1;
    world.frames(1);
    const nodes = (await load()).solvedNodes(ik) as { bone: string; position: Vector3 }[];
    expect(nodes.length).toBe(13);
    // each node near its bone (the solver's nodes, not the bones: a limb the IK does not drive may differ a little)
    for (const n of nodes) {
      const bone = ik.skeleton.bones.find((b) => b.name === n.bone)!;
      expectNear(`node of ${n.bone}`, n.position, worldPos(bone), 0.03 * world.h);
    }
    const hand = nodes.find((n) => n.bone === world.bone("rightHand").name)!;
    expectNear("the right hand's node on its target", hand.position, ik.solver.rightHandEffector.position, 1e-3);
    expectNoWarnings(ik);
  },

  async hooks({ world, load }) {
    const ik = await world.ik();
    const handle = new TransformNode("door handle", ik.scene);
    handle.position.copyFrom(world.armReach("right", new Vector3(0.3, 0.3, 1)));
    (await load()).hooks(ik, handle);
    world.frames(1);
    expectNear("right hand on the handle", world.pos("rightHand"), world.nodePos(handle), 0.005 * world.h);
    handle.position.y -= 0.1;
    world.frames(1);
    expectNear("…moved", world.pos("rightHand"), world.nodePos(handle), 0.005 * world.h);
    expectNoWarnings(ik);
  },

  async playOn({ world, load }) {
    // AnimatorAvatar came with Babylon 9: the Babylon 8 compatibility run has nothing to call
    if ((await import("@babylonjs/core/Animations/animatorAvatar.js").catch(() => null)) === null) return;
    const m = await world.model();
    const mannequin = world.own(await loadModel("Mannequin", { scene: m.scene }));
    mannequin.root.position.x += 1.5;
    const rests = () => mannequin.skeleton.bones.map((b) => Array.from(b.getRestMatrix().m));
    const ownRest = rests();
    // a clip on UAL's upper arms and thighs (a glTF clip's shape: keys on the linked nodes)
    const roles = ["leftUpperArm", "rightUpperArm", "leftThigh", "rightThigh"] as const;
    const clip = world.own(
      proceduralIdle(
        m.scene,
        roles.map((r) => world.node(r)),
      ),
    );
    const played = world.own(
      (await load()).playOn(clip, m.skeleton, mannequin.root, mannequin.skeleton) as AnimationGroup,
    );
    expect(played.targetedAnimations.length).toBe(roles.length);
    // the rest pose is the Mannequin's own again
    expect(rests()).toEqual(ownRest);
    clip.start(true);
    const arm = mannequin.skeleton.bones.find((b) => b.name === "upperarm.l")!;
    const elbow = arm.getChildren()[0]!;
    const direction = () => worldPos(elbow).subtract(worldPos(arm)).normalize();
    const rest = direction();
    let swing = 0;
    for (let f = 0; f < 60; f++) {
      world.frames(1);
      swing = Math.max(swing, (Math.acos(Math.min(1, Vector3.Dot(rest, direction()))) * 180) / Math.PI);
    }
    // the idle swings UAL's upper arm by 0.15 rad (8.6°): the Mannequin's swings with it
    expect(swing).toBeGreaterThan(5);
  },

  async hipsAndFoot({ world, load }) {
    const m = await world.model();
    const r = m.skeleton.bones;
    const names = (await load()).hipsAndFoot(m.skeleton) as { rootNodeName: string; groundReferenceNodeName: string };
    // UAL's clips key the linked nodes: the pelvis's and the left foot's node names
    const node = (bone: string) => r.find((b) => b.name === bone)!.getTransformNode()!.name;
    expect(names).toEqual({ rootNodeName: node("DEF-hips"), groundReferenceNodeName: node("DEF-foot.L") });
    // plain Bones (a .babylon file): the bones' own names
    const figure = world.own(await loadModel("RiggedFigureBabylon", { scene: m.scene }));
    expect((await load()).hipsAndFoot(figure.skeleton)).toEqual({
      rootNodeName: "torso_joint_1",
      groundReferenceNodeName: "leg_joint_L_3",
    });
  },

  async rotationsOnly({ world, load }) {
    if ((await import("@babylonjs/core/Animations/animatorAvatar.js").catch(() => null)) === null) return;
    const { AnimatorAvatar } = await import("@babylonjs/core/Animations/animatorAvatar.js");
    const { alignRestPose, bipedNameMap, resolveBipedReferences } = await import("../../src/index.js");
    const ual = world.own(await loadModel("UAL", { clips: (n) => n === "Walk_Loop" }));
    const figure = world.own(await loadModel("RiggedFigureBabylon", { scene: ual.scene }));
    const walk = ual.scene.animationGroups.find((g) => g.name === "Walk_Loop")!;
    const avatar = new AnimatorAvatar("figure", figure.root, false, false);
    avatar.showWarnings = false;
    const restore = alignRestPose(ual.skeleton, figure.skeleton);
    const played = avatar.retargetAnimationGroup(walk, { mapNodeNames: bipedNameMap(ual.skeleton, figure.skeleton) });
    restore();
    (await load()).rotationsOnly(played);
    expect(played.targetedAnimations.length).toBeGreaterThan(10);
    expect(played.targetedAnimations.every((t) => t.animation.targetProperty === "rotationQuaternion")).toBe(true);
    const r = resolveBipedReferences(figure.skeleton).references;
    const mesh = ual.scene.meshes.find((x) => x.skeleton === figure.skeleton)!;
    const upperArm = () => r.leftForearm.getAbsolutePosition(mesh).subtract(r.leftUpperArm.getAbsolutePosition(mesh));
    ual.scene.render();
    const rest = upperArm();
    walk.start(true);
    played.start(true);
    let swing = 0;
    for (let f = 0; f < 60; f++) {
      ual.scene.render();
      // the figure keeps its size (the full retarget shrank its upper arm from 0.245 to 0.002 units)…
      expect(upperArm().length()).toBeCloseTo(rest.length(), 4);
      swing = Math.max(
        swing,
        (Math.acos(Math.min(1, Vector3.Dot(rest.normalizeToNew(), upperArm().normalize()))) * 180) / Math.PI,
      );
    }
    // …and walks: its arm swings
    expect(swing).toBeGreaterThan(10);
    walk.stop();
    played.stop();
    played.dispose();
  },

  async manualOrder({ world, load }) {
    const m = await world.model();
    let handAtIk: Vector3 | null = null;
    const ik = world.own(
      (await load()).manualOrder(m.scene, m.skeleton, () => {
        handAtIk = world.pos("rightHand");
      }) as FullBodyBipedIK,
    );
    const at = world.armReach("right", new Vector3(0.5, 0, 1));
    ik.solver.rightHandEffector.position.copyFrom(at);
    ik.solver.rightHandEffector.positionWeight = 1;
    world.frames(1);
    // afterIk sees the solved pose
    expectNear("hand when afterIk runs", handAtIk!, at, 0.005 * world.h);
    expectNoWarnings(ik);
  },

  async pauseThenRemove({ world, load, logs }) {
    const ik = await world.ik();
    const hand0 = world.pos("rightHand");
    ik.solver.rightHandEffector.position.copyFrom(world.armReach("right", new Vector3(0.3, 0.3, 1)));
    ik.solver.rightHandEffector.positionWeight = 1;
    world.frames(1);
    (await load()).pauseThenRemove(ik);
    expect(logs()).toEqual([[true]]);
    world.frames(1);
    expectNear("right hand back in the animated pose", world.pos("rightHand"), hand0, 1e-6);
  },

  async fadeOutThenRemove({ world, load }) {
    const ik = await world.ik();
    const hand0 = world.pos("rightHand");
    ik.solver.rightHandEffector.position.copyFrom(world.armReach("right", new Vector3(0.3, 0.3, 1)));
    ik.solver.rightHandEffector.positionWeight = 1;
    world.frames(1);
    const held = Vector3.Distance(world.pos("rightHand"), hand0);
    expect(held).toBeGreaterThan(0.1 * world.h);
    (await load()).fadeOutThenRemove(ik);
    expect(ik.enabled).toBe(false);
    // eased back over 0.3 s (19 frames of 16 ms), then disposed. A weight step is 1/18.75 of each joint's turn;
    // the arm turns far for this reach, so the hand runs along an arc longer than its chord: 1/17.9 of the way in
    // the first frame, 1/14.8 in the frame it moves most (measured; FBBIK_REPORT=1 prints them)
    let last = world.pos("rightHand");
    let most = 0;
    let first = 0;
    for (let f = 0; f < 19; f++) {
      world.frames(1);
      const now = world.pos("rightHand");
      most = Math.max(most, Vector3.Distance(now, last) / held);
      if (f === 0) first = Vector3.Distance(now, last) / held;
      expect(Vector3.Distance(now, last)).toBeLessThan(held / 11);
      expect(ik.isDisposed).toBe(f === 18);
      last = now;
    }
    // console.log is captured by the docs test (the examples' output): the figure goes to stdout itself
    if (process.env.FBBIK_REPORT)
      process.stdout.write(
        `[figures] fadeOutThenRemove: the hand's move in the first frame 1/${(1 / first).toFixed(1)} of the way, ` +
          `at most 1/${(1 / most).toFixed(1)}\n`,
      );
    expectNear("right hand back in the animated pose", world.pos("rightHand"), hand0, 1e-6 * world.h);
  },

  async logWarnings({ world, load, logs }) {
    await world.model();
    world.straightenArm("left"); // a straight limb: a setup warning raised inside create()
    const ik = await world.ik();
    expect(ik.warningsRaised.length).toBeGreaterThan(0);
    (await load()).logWarnings(ik);
    const setup = logs().filter((l) => l[0] === "warn");
    expect(setup).toEqual(ik.warningsRaised.map((w) => ["warn", w.message]));
    ik.solver.rightHandEffector.positionWeight = Number.NaN;
    world.frames(2);
    const frame = logs()
      .slice(setup.length)
      .map((l) => String(l[1]));
    expect(frame.length).toBe(1);
    expect(frame[0]).toMatch(/^\[fbbik\] /);
  },

  async explicitReferences({ world, load, logs }) {
    const man = await world.mannequin();
    const ik = world.own((await load()).explicitReferences(man.scene, man.skeleton) as FullBodyBipedIK);
    expect(ik.references.leftHand.name).toBe("hand.l");
    expect(ik.references.rightHand.name).toBe("hand.r");
    expect(ik.references.head).toBeNull();
    expect(ik.rootNode.name).toBe("chest");
    expect(logs()[0]![1]).toBe("chest");
    const hand = ik.solver.leftHandEffector;
    const r = ik.references;
    const at = armReach([r.leftUpperArm, r.leftForearm, r.leftHand], new Vector3(-0.5, 0, 1));
    hand.position.copyFrom(at);
    hand.positionWeight = 1;
    for (let i = 0; i < 2; i++) man.scene.render();
    expectNear("left hand", worldPos(r.leftHand), at, 0.005 * height(man));
    expectNoWarnings(ik);
  },

  async loadVrm({ world, load }) {
    // a VRM 1.0 made from the Mannequin, named as MMD's English (PMX) names, on which detection alone fails
    const bytes = vrmFile(
      readFileSync(resolve(MODELS.Mannequin.dir, MODELS.Mannequin.file)),
      MANNEQUIN_HUMANOID,
      PMX_NAMES,
      "1.0",
    );
    const url = `data:model/gltf-binary;base64,${Buffer.from(bytes).toString("base64")}`;
    const scene = await world.emptyScene();
    const ik = world.own((await (await load()).loadVrm(scene, url)) as FullBodyBipedIK);
    expect(ik.references.leftThigh.name).toBe("leg_L");
    expect(ik.references.leftHand.name).toBe("wrist_L");
    const hand = ik.solver.leftHandEffector;
    const r = ik.references;
    const at = armReach([r.leftUpperArm, r.leftForearm, r.leftHand], new Vector3(-0.5, 0, 1));
    hand.position.copyFrom(at);
    hand.positionWeight = 1;
    world.frames(2, scene);
    expectNear("left hand", worldPos(r.leftHand), at, 0.005 * skeletonHeight(ik));
    expectNoWarnings(ik);
  },

  async canUse({ world, load, logs }) {
    const m = await world.model();
    const canUse = (await load()).canUse as (s: Skeleton) => boolean;
    expect(canUse(m.skeleton)).toBe(true);
    expect(logs(), "UAL as loaded: nothing to warn about").toEqual([]);
    // a straight arm: the warning create() raises, logged
    world.straightenArm("left");
    expect(canUse(m.skeleton)).toBe(true);
    const warned = logs().length;
    const ik = await world.ik();
    expect(ik.warningsRaised.length).toBeGreaterThan(0);
    expect(logs()).toEqual(ik.warningsRaised.map((w) => ["warn", w.message]));
    expect(String(logs()[0]![1])).toMatch(/straight/);
    // a skeleton with no biped in it: what would make create() throw, logged as errors
    const tail = tailRig(await world.emptyScene(), 4, 0.1);
    expect(canUse(tail.skeleton)).toBe(false);
    const errors = logs().slice(warned);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.map((l) => l[0])).toEqual(errors.map(() => "error"));
    expect(() => FullBodyBipedIK.create(tail.skeleton.getScene(), tail.skeleton)).toThrow(FBBIKError);
  },

  async tryAttach({ world, load, logs }) {
    const m = await world.model();
    const tryAttach = (await load()).tryAttach as (s: Scene, k: typeof m.skeleton) => FullBodyBipedIK | null;
    const ik = world.own(tryAttach(m.scene, m.skeleton)!);
    expect(ik).toBeInstanceOf(FullBodyBipedIK);
    expect(tryAttach(m.scene, m.skeleton), "a second IK on the skeleton").toBeNull();
    expect(logs().length).toBe(1);
    expect(FBBIKError.name).toBe("FBBIKError");
  },

  async solveWithoutBabylon({ load, logs }) {
    const pose = (await load()).solveWithoutBabylon();
    const hand = pose.positions[pose.indexOf("hand.L")];
    expectNear("hand.L", new Vector3(hand.x, hand.y, hand.z), new Vector3(0.5, 1.1, 0.4), 0.005);
    expect(logs().length).toBe(1);
  },

  async saveAndLoadSettings({ world, load, logs }) {
    const ik = await world.ik();
    const other = await world.mannequin();
    const copy: FullBodyBipedIK = (await load()).saveAndLoadSettings(ik, other.scene, other.skeleton);
    try {
      expect(copy.skeleton).toBe(other.skeleton);
      expect(copy.solver.leftHandEffector.positionWeight).toBe(1);
      expect(copy.solver.leftArmChain.pull).toBe(0.4);
      // everything else as tuned on UAL; the part loaded afterwards went to UAL's IK alone
      const saved = ik.serialize();
      expect(copy.serialize()).toEqual({ ...saved, solver: { ...(saved.solver as object), spineStiffness: 0.5 } });
      expect(ik.solver.spineStiffness).toBe(0.8);
      expect(copy.solver.spineStiffness).toBe(0.5);
      expectNoWarnings(ik);
      expect(logs().length).toBe(0);
    } finally {
      copy.dispose();
    }
  },

  async loadWithGrounder({ world, load, logs }) {
    const ik = await world.ik();
    const grounder = GrounderFBBIK.create(ik);
    ik.solver.leftLegMapping.maintainRotationWeight = 0.5; // tuned after the grounder, which set it to 1
    grounder.solver.maxStep = 0.3;
    const [ikText, grounderText] = [JSON.stringify(ik.serialize()), JSON.stringify(grounder.serialize())];
    const other = await world.mannequin();
    const copy: GrounderFBBIK = (await load()).loadWithGrounder(ikText, grounderText, other.scene, other.skeleton);
    try {
      expect(copy.ik.skeleton).toBe(other.skeleton);
      expect(copy.ik.solver.leftLegMapping.maintainRotationWeight).toBe(0.5);
      expect(copy.ik.serialize()).toEqual(ik.serialize());
      expect(copy.serialize()).toEqual(grounder.serialize());
      expect(logs().length).toBe(0);
    } finally {
      copy.dispose();
      copy.ik.dispose();
      grounder.dispose();
    }
  },

  async copyLimbSettings({ world, load, logs }) {
    const m = await world.model();
    const bones = (side: "left" | "right") =>
      [world.bone(`${side}UpperArm`), world.bone(`${side}Forearm`), world.bone(`${side}Hand`)] as const;
    const arm = world.own(LimbIK.create(m.scene, ...bones("left")));
    const copy = world.own((await load()).copyLimbSettings(arm, m.scene, ...bones("right")) as LimbIK);
    expect(copy.bones).toEqual(bones("right"));
    expect(copy.solver.bendModifier).toBe("goal");
    expect(copy.solver.bendGoalWeight).toBe(0.6);
    const saved = arm.serialize();
    expect(saved.customType).toBe("LimbIK");
    expect(copy.serialize()).toEqual(saved);
    expectNoWarnings(arm);
    expectNoWarnings(copy);
    expect(logs().length).toBe(0);
  },

  async showInInspector({ world, load, logs }) {
    const ik = await world.ik();
    const controls = new TransformNode("IK controls", ik.scene);
    (await load()).showInInspector(ik, controls);
    const shown = (controls.inspectableCustomProperties ?? []).map((p) => p.propertyName);
    expect(shown).toContain("fbbik_ikPositionWeight");
    expect(logs().length).toBe(ik.inspector.inspectables.length);
    (controls as unknown as Record<string, number>).fbbik_ikPositionWeight = 0.5;
    expect(ik.solver.ikPositionWeight).toBe(0.5);
  },
};

/** The frame of a triangle: origin `a`, x toward `b`, y in the plane toward `c`. */
function frameAxes(a: Vector3, b: Vector3, c: Vector3): [Vector3, Vector3, Vector3] {
  const x = b.subtract(a).normalize();
  const ac = c.subtract(a);
  const y = ac.subtract(x.scale(Vector3.Dot(ac, x))).normalize();
  return [x, y, Vector3.Cross(x, y)];
}

function toFrame(p: Vector3, a: Vector3, b: Vector3, c: Vector3): Vector3 {
  const [x, y, z] = frameAxes(a, b, c);
  const d = p.subtract(a);
  return new Vector3(Vector3.Dot(d, x), Vector3.Dot(d, y), Vector3.Dot(d, z));
}

function fromFrame(l: Vector3, a: Vector3, b: Vector3, c: Vector3): Vector3 {
  const [x, y, z] = frameAxes(a, b, c);
  return a.add(x.scale(l.x)).add(y.scale(l.y)).add(z.scale(l.z));
}

/** A skeleton's joint extent along world Y. */
function skeletonHeight(ik: FullBodyBipedIK): number {
  const ys = ik.skeleton.bones.map((b) => worldPos(b).y);
  return Math.max(...ys) - Math.min(...ys);
}
