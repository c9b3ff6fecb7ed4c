/**
 * EffectorHandles on the UAL character (glTF: mirrored `__root__` in the left-handed scene) in both
 * handednesses: handles ride on the bones and change nothing until grabbed, a grab gives weight and the
 * limb follows the handle, reset and dispose give back what the handles took. Real pointer picking and gizmo
 * drags need a browser: test/e2e/umd.test.ts drags a handle with the mouse.
 */
import type { IPointerEvent } from "@babylonjs/core/Events/deviceInputEvents.js";
import { PointerEventTypes, PointerInfo, PointerInfoPre } from "@babylonjs/core/Events/pointerEvents.js";
import { PickingInfo } from "@babylonjs/core/Collisions/pickingInfo.js";
import { Matrix, Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { EffectorHandles } from "../../src/babylon/effector-handles.js";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FullBodyBipedChain } from "../../src/solver/biped-bones.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { height, nodePos, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

async function setUp(rightHanded = false) {
  const m = await loadModel("UAL", { rightHanded, clips: (name) => name === "Walk_Loop" });
  open.push(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  return { m, ik, h: height(m) };
}

/** Every bone's world position. */
const pose = (m: LoadedModel) => m.skeleton.bones.map((b) => worldPos(b));

/** The angle between two rotations, in degrees. */
function angle(a: Quaternion, b: Quaternion): number {
  const d = Math.min(1, Math.abs(Quaternion.Dot(a, b)));
  return (2 * Math.acos(d) * 180) / Math.PI;
}

/** A press at `p` (world) as the page's input makes it: the scene's pre-pointer observers, where layers pick. */
function pressAt(scene: Scene, p: Vector3): void {
  const engine = scene.getEngine();
  const camera = scene.activeCamera!;
  const viewport = camera.viewport.toGlobal(engine.getRenderWidth(), engine.getRenderHeight());
  const s = Vector3.Project(p, Matrix.IdentityReadOnly, scene.getTransformMatrix(), viewport);
  scene.pointerX = s.x;
  scene.pointerY = s.y;
  const evt = { pointerType: "mouse", pointerId: 1, button: 0 } as unknown as IPointerEvent;
  const info = new PointerInfoPre(PointerEventTypes.POINTERDOWN, evt, s.x, s.y);
  scene.onPrePointerObservable.notifyObservers(info, PointerEventTypes.POINTERDOWN);
}

/** A drag of the selected handle beginning, as the gizmo reports it. */
function dragStart(gizmo: { onDragStartObservable: { notifyObservers(e: never): unknown } }): void {
  gizmo.onDragStartObservable.notifyObservers({ dragPlanePoint: Vector3.Zero(), pointerId: 0 } as never);
}

describe("EffectorHandles", () => {
  for (const rightHanded of [false, true]) {
    it(`rides on the bones in its own layer and changes nothing until grabbed (${rightHanded ? "RH" : "LH"})`, async () => {
      const { m, ik, h } = await setUp(rightHanded);
      const before = pose(m);
      const meshes = m.scene.meshes.length;
      const handles = EffectorHandles.create(ik);
      expect(handles.handles.map((x) => x.name)).toEqual([
        ...["body", "left shoulder", "right shoulder", "left thigh", "right thigh"],
        ...["left hand", "right hand", "left foot", "right foot"],
        ...["left arm", "right arm", "left leg", "right leg"].map((n) => `${n} bend goal`),
      ]);
      // in the utility layer's scene: not among the scene's meshes, picks and raycasts
      expect(m.scene.meshes.length).toBe(meshes);
      for (const x of handles.handles) expect(x.mesh.getScene()).toBe(handles.utilityLayer.utilityLayerScene);
      ik.solver.effectors.forEach((e, i) => {
        expect(e.target).toBe(handles.handles[i]!.mesh);
        expect([e.positionWeight, e.rotationWeight]).toEqual([0, 0]);
      });
      for (let f = 0; f < 3; f++) m.scene.render();
      // weights 0: the pose is the one without handles, bit for bit
      pose(m).forEach((p, i) => expect(p.equals(before[i]!)).toBe(true));
      // the clip moves the bones: the handles follow
      m.container.animationGroups[0]!.start(true);
      for (let f = 0; f < 10; f++) m.scene.render();
      const hand = worldPos(ik.references.leftHand);
      expect(Vector3.Distance(hand, before[m.skeleton.bones.indexOf(ik.references.leftHand)]!)).toBeGreaterThan(
        0.01 * h,
      );
      for (const x of handles.handles.filter((y) => y.effector !== null)) {
        const bone = x.effector!.bone!;
        expect(Vector3.Distance(nodePos(x.mesh), worldPos(bone))).toBeLessThan(1e-5 * h);
        const q = new Quaternion();
        bone.getTransformNode()!.computeWorldMatrix(true).decompose(undefined, q);
        // Babylon's matrices are float32: its decomposition is good to about 0.01°
        expect(angle(x.mesh.rotationQuaternion!, q)).toBeLessThan(0.05);
      }
      // a bend goal's handle beside its elbow or knee, on the side the limb bends to (a straight limb: its bend
      // constraint's direction), at 0.35 of the limb's length
      ik.solver.limbChains.forEach((chain, i) => {
        const x = handles.handles[9 + i]!;
        const [a, b, c] = chain.inner.nodes.map((n) => ik.rig.getWorldPosition(n.bone, new Vector3()));
        const line = c!.subtract(a!).normalize();
        const side = b!.subtract(a!).subtract(line.scale(Vector3.Dot(b!.subtract(a!), line)));
        const offset = nodePos(x.mesh).subtract(b!);
        const limb = Vector3.Distance(a!, b!) + Vector3.Distance(b!, c!);
        expect(offset.length() / limb).toBeCloseTo(0.35, 3);
        const toward = side.length() > 1e-3 * h ? side : chain.bendConstraint.direction;
        expect(Vector3.Dot(offset.normalize(), toward.clone().normalize())).toBeGreaterThan(0.999);
      });
    });
  }

  it("a drag gives the handle weight, and the limb follows it (position, rotation, body, bend goal)", async () => {
    const { m, ik, h } = await setUp();
    const handles = EffectorHandles.create(ik);
    const grabbed: string[] = [];
    handles.onGrabObservable.add((x) => grabbed.push(x.name));
    const hand = handles.find("left hand");
    handles.select(hand);
    expect(handles.positionGizmo.attachedNode).toBe(hand.mesh);
    expect(handles.rotationGizmo.attachedNode).toBe(hand.mesh);
    dragStart(handles.positionGizmo);
    expect(ik.solver.leftHandEffector.positionWeight).toBe(1);
    expect(ik.solver.leftHandEffector.rotationWeight).toBe(0);
    const goal = nodePos(hand.mesh).add(new Vector3(0, 0.1 * h, 0));
    hand.mesh.position.copyFrom(goal);
    for (let f = 0; f < 3; f++) m.scene.render();
    // the handle stays where it was dragged, and the hand is there
    expect(Vector3.Distance(nodePos(hand.mesh), goal)).toBeLessThan(1e-6 * h);
    expect(Vector3.Distance(worldPos(ik.references.leftHand), goal)).toBeLessThan(1e-3 * h);
    dragStart(handles.rotationGizmo);
    expect(ik.solver.leftHandEffector.rotationWeight).toBe(1);
    const turned = hand.mesh.rotationQuaternion!.multiply(Quaternion.RotationAxis(Vector3.Up(), 0.5));
    hand.mesh.rotationQuaternion = turned;
    for (let f = 0; f < 3; f++) m.scene.render();
    const q = new Quaternion();
    ik.references.leftHand.getTransformNode()!.computeWorldMatrix(true).decompose(undefined, q);
    expect(angle(q, turned)).toBeLessThan(0.05);

    // the body (a pelvis handle: weight by the drag, not by selection)
    const body = handles.find("body");
    handles.select(body);
    expect(ik.solver.bodyEffector.positionWeight).toBe(0);
    const pelvis = worldPos(ik.references.pelvis);
    dragStart(handles.positionGizmo);
    body.mesh.position.y -= 0.1 * h;
    for (let f = 0; f < 3; f++) m.scene.render();
    expect(worldPos(ik.references.pelvis).y).toBeLessThan(pelvis.y - 0.05 * h);

    // a bend goal: the elbow of a bent arm swings to the goal's side of the shoulder-hand line
    const r = ik.references;
    const rightHand = handles.find("right hand");
    handles.select(rightHand);
    dragStart(handles.positionGizmo);
    const shoulder = worldPos(r.rightUpperArm);
    rightHand.mesh.position.copyFrom(Vector3.Lerp(worldPos(r.rightHand), shoulder, 0.4));
    for (let f = 0; f < 3; f++) m.scene.render();
    const side = () => {
      const a = worldPos(r.rightUpperArm);
      const line = worldPos(r.rightHand).subtract(a).normalize();
      const e = worldPos(r.rightForearm).subtract(a);
      return e.subtract(line.scale(Vector3.Dot(e, line)));
    };
    const was = side();
    expect(was.length()).toBeGreaterThan(0.05 * h);
    const bend = handles.find("right arm bend goal");
    handles.select(bend);
    expect(handles.rotationGizmo.attachedNode).toBeNull();
    // and its rings are off the hand selected before (Babylon's sub-gizmos keep a node set as a mesh)
    expect([handles.rotationGizmo.xGizmo, handles.rotationGizmo.yGizmo].map((g) => g.attachedNode)).toEqual([
      null,
      null,
    ]);
    dragStart(handles.positionGizmo);
    expect(ik.solver.rightArmChain.bendConstraint.weight).toBe(1);
    // the goal on the other side of the line
    bend.mesh.position.copyFrom(worldPos(r.rightForearm).subtract(was.scale(2)));
    for (let f = 0; f < 3; f++) m.scene.render();
    expect(Vector3.Dot(side().normalize(), was.normalize())).toBeLessThan(-0.9);
    expect(grabbed).toEqual(["left hand", "left hand", "body", "right hand", "right arm bend goal"]);
  });

  it("a press on a handle in its layer selects it; reset gives the weights back and the handles their bones", async () => {
    const { m, ik, h } = await setUp();
    const handles = EffectorHandles.create(ik);
    const selected: (string | null)[] = [];
    handles.onSelectObservable.add((x) => selected.push(x?.name ?? null));
    const foot = handles.find("right foot");
    const pick = new PickingInfo();
    pick.hit = true;
    pick.pickedMesh = foot.mesh;
    const down = new PointerInfo(PointerEventTypes.POINTERDOWN, { pointerId: 1 } as never, pick);
    handles.utilityLayer.utilityLayerScene.onPointerObservable.notifyObservers(down, PointerEventTypes.POINTERDOWN);
    expect(handles.selected).toBe(foot);
    dragStart(handles.positionGizmo);
    foot.mesh.position.y += 0.1 * h;
    for (let f = 0; f < 3; f++) m.scene.render();
    expect(worldPos(ik.references.rightFoot).y).toBeGreaterThan(nodePos(foot.mesh).y - 1e-3 * h);
    handles.reset();
    expect(handles.selected).toBeNull();
    expect(selected).toEqual(["right foot", null]);
    expect(ik.solver.rightFootEffector.positionWeight).toBe(0);
    m.scene.render();
    expect(Vector3.Distance(nodePos(foot.mesh), worldPos(ik.references.rightFoot))).toBeLessThan(1e-5 * h);
  });

  it("reset puts back the starting pose: the targets and weights set before the handles were made", async () => {
    const { m, ik, h } = await setUp();
    const r = ik.references;
    const s = ik.solver;
    // a starting pose as an app sets it: the left hand raised on a node, the left elbow's goal half on a node
    const start = new TransformNode("left hand start", m.scene);
    start.position.copyFrom(worldPos(r.leftHand).add(new Vector3(0, 0.15 * h, 0)));
    start.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), 0.3);
    s.leftHandEffector.target = start;
    s.leftHandEffector.positionWeight = 1;
    s.leftHandEffector.rotationWeight = 1;
    const elbow = new TransformNode("left elbow goal", m.scene);
    elbow.position.copyFrom(worldPos(r.leftForearm).add(new Vector3(0, 0, -0.2 * h)));
    s.leftArmChain.bendConstraint.bendGoal = elbow;
    s.leftArmChain.bendConstraint.weight = 0.5;
    const handles = EffectorHandles.create(ik);
    const hand = handles.find("left hand");
    const goal = handles.find("left arm bend goal");
    const body = handles.find("body");
    // the user moves the hand and the elbow's goal, turns the hand, drags the body down
    hand.mesh.position.x += 0.2 * h;
    hand.mesh.rotationQuaternion = Quaternion.RotationAxis(Vector3.Right(), 1);
    goal.mesh.position.y += 0.3 * h;
    handles.select(body);
    dragStart(handles.positionGizmo);
    body.mesh.position.y -= 0.1 * h;
    for (let f = 0; f < 3; f++) m.scene.render();
    handles.reset();
    expect(Vector3.Distance(nodePos(hand.mesh), nodePos(start))).toBeLessThan(1e-6 * h);
    expect(angle(hand.mesh.rotationQuaternion!, start.rotationQuaternion)).toBeLessThan(0.05);
    expect(Vector3.Distance(nodePos(goal.mesh), nodePos(elbow))).toBeLessThan(1e-6 * h);
    expect([s.leftHandEffector.positionWeight, s.leftArmChain.bendConstraint.weight]).toEqual([1, 0.5]);
    expect(s.bodyEffector.positionWeight).toBe(0);
    m.scene.render();
    // the body's handle without weight again: on the bone its effector moves, the body where the clip has it
    expect(Vector3.Distance(nodePos(body.mesh), worldPos(s.bodyEffector.bone!))).toBeLessThan(1e-5 * h);
    expect(Vector3.Distance(worldPos(r.leftHand), nodePos(start))).toBeLessThan(1e-3 * h);
  });

  it("colours by kind, world or local axes, effector handles before bend goals (drawn and pressed)", async () => {
    const { m, ik, h } = await setUp();
    const handles = EffectorHandles.create(ik);
    const colour = (name: string) => handles.find(name).color.toHexString();
    expect(colour("left hand")).toBe(colour("right hand"));
    const kinds = ["body", "left shoulder", "left thigh", "left hand", "left foot", "left arm bend goal"];
    expect(new Set(kinds.map(colour)).size).toBe(6);
    // a handle that pulls, unselected, shows its colour as it is; a handle's colour is its own
    const hand = handles.find("left hand");
    handles.select(hand);
    handles.grab("position");
    handles.select(null);
    const emissive = () => (hand.mesh.material as StandardMaterial).emissiveColor.toHexString();
    const orange = colour("left hand");
    expect(emissive()).toBe(orange);
    hand.color.set(1, 1, 0);
    m.scene.render();
    expect([emissive(), colour("right hand")]).toEqual(["#FFFF00", orange]);

    // the gizmos' axes: the world's by default, the handle's own once switched, on every arrow and ring
    const turning = () =>
      [handles.positionGizmo, handles.rotationGizmo].flatMap((g) =>
        [g.xGizmo, g.yGizmo, g.zGizmo].map((x) => x.updateGizmoRotationToMatchAttachedMesh),
      );
    expect([handles.axes, ...new Set(turning())]).toEqual(["world", false]);
    handles.axes = "local";
    expect([handles.axes, ...new Set(turning())]).toEqual(["local", true]);
    handles.axes = "world";
    expect([handles.axes, ...new Set(turning())]).toEqual(["world", false]);

    // a bend goal's box put between the camera and the right foot's handle: drawn first and leaving no depth,
    // and a press on the foot takes the foot
    const foot = handles.find("right foot");
    const goal = handles.find("right leg bend goal");
    const eye = m.scene.activeCamera!.globalPosition;
    const at = nodePos(foot.mesh);
    goal.bendConstraint!.weight = 1;
    goal.mesh.position.copyFrom(Vector3.Lerp(eye, at, 0.8));
    m.scene.render();
    expect(goal.mesh.alphaIndex).toBeLessThan(foot.mesh.alphaIndex);
    expect((goal.mesh.material as StandardMaterial).disableDepthWrite).toBe(true);
    pressAt(m.scene, at);
    expect(handles.selected?.name).toBe("right foot");
    // the box moved aside, clear of every effector's handle: a press on it takes it again
    goal.mesh.position.x += 0.3 * h;
    m.scene.render();
    pressAt(m.scene, nodePos(goal.mesh));
    expect(handles.selected?.name).toBe("right leg bend goal");
  });

  it("dispose gives back targets, weights and bend goals; disposing the IK disposes the handles", async () => {
    const { m, ik } = await setUp();
    const cup = new TransformNode("cup", m.scene);
    const goal = new TransformNode("elbow goal", m.scene);
    ik.solver.leftHandEffector.target = cup;
    ik.solver.leftHandEffector.positionWeight = 0.5;
    ik.solver.leftArmChain.bendConstraint.bendGoal = goal;
    ik.solver.leftArmChain.bendConstraint.weight = 0.25;
    const observers = ik.solver.onPostUpdateObservable.observers.length;
    const handles = EffectorHandles.create(ik, { effectors: [5, 6], size: 0.04 });
    expect(handles.handles.map((x) => x.name)).toEqual([
      "left hand",
      "right hand",
      ...["left arm", "right arm", "left leg", "right leg"].map((n) => `${n} bend goal`),
    ]);
    // a weighted effector's handle starts on its target, so nothing jumps
    expect(Vector3.Distance(nodePos(handles.find("left hand").mesh), nodePos(cup))).toBe(0);
    expect(Vector3.Distance(nodePos(handles.find("left arm bend goal").mesh), nodePos(goal))).toBe(0);
    const disposed: string[] = [];
    handles.onDisposeObservable.add((x) => disposed.push(x.getClassName()));
    const layerScene = handles.utilityLayer.utilityLayerScene;
    handles.dispose();
    handles.dispose();
    expect(disposed).toEqual(["EffectorHandles"]);
    expect(ik.solver.leftHandEffector.target).toBe(cup);
    expect(ik.solver.leftHandEffector.positionWeight).toBe(0.5);
    expect(ik.solver.rightHandEffector.target).toBeNull();
    expect(ik.solver.leftArmChain.bendConstraint.bendGoal).toBe(goal);
    expect(ik.solver.leftArmChain.bendConstraint.weight).toBe(0.25);
    expect(ik.solver.rightArmChain.bendConstraint.bendGoal).toBeNull();
    expect(handles.handles.every((x) => x.mesh.isDisposed())).toBe(true);
    expect(layerScene.isDisposed).toBe(true);
    // Babylon takes removed observers out on the next tick
    await new Promise((ok) => setTimeout(ok, 0));
    expect(ik.solver.onPostUpdateObservable.observers.length).toBe(observers);

    const again = EffectorHandles.create(ik);
    ik.dispose();
    expect(again.handles.every((x) => x.mesh.isDisposed())).toBe(true);

    // the scene disposed under live handles (its IK first, then the layers): once, without an error
    const other = FullBodyBipedIK.create(m.scene, m.skeleton);
    const last = EffectorHandles.create(other);
    let notified = 0;
    last.onDisposeObservable.add(() => notified++);
    m.scene.dispose();
    expect([notified, other.isDisposed, last.handles.every((x) => x.mesh.isDisposed())]).toEqual([1, true, true]);
  });

  it("a hand handle rides where FBBIKColliders, created after the handles, pushed the hand", async () => {
    const { m, ik, h } = await setUp();
    const handles = EffectorHandles.create(ik);
    // a ball on the chest around the right hand: the pass pushes the hand out of it on frames the IK solves
    const hand = ik.references.rightHand;
    const chest = ik.references.spine[ik.references.spine.length - 1]!;
    const at = worldPos(hand);
    FBBIKColliders.create(ik, {
      colliders: [BoneCollider.fromWorld(chest, at, at.add(new Vector3(0, 1e-3 * h, 0)), 0.05 * h)],
      limbs: [FullBodyBipedChain.RightArm],
    });
    // a little body weight so that the IK solves (the pass runs only then)
    ik.solver.bodyEffector.positionWeight = 0.01;
    for (let f = 0; f < 3; f++) m.scene.render();
    const pushed = Vector3.Distance(worldPos(hand), at);
    expect(pushed, "the pass moved the hand").toBeGreaterThan(0.03 * h);
    const handle = handles.find("right hand")!;
    const off = Vector3.Distance(nodePos(handle.mesh), worldPos(hand));
    console.log(
      `hand pushed ${((100 * pushed) / h).toFixed(2)} % h; its handle ${((100 * off) / h).toFixed(5)} % h off it`,
    );
    expect(off).toBeLessThan(1e-5 * h);
  });

  it("names a bad option and an unknown handle", async () => {
    const { ik } = await setUp();
    expect(() => EffectorHandles.create(ik, { size: 0 })).toThrow(FBBIKError);
    expect(() => EffectorHandles.create(ik, { size: 0 })).toThrow(/EffectorHandles/);
    // a throw leaves nothing behind: no utility layer listening to the scene's pointer
    const listening = ik.scene.onPrePointerObservable.observers.length;
    expect(() => EffectorHandles.create(ik, { effectors: [5, 9 as never] })).toThrow(/effector 9/);
    expect(ik.scene.onPrePointerObservable.observers.length).toBe(listening);
    expect(EffectorHandles.create(ik, { effectors: [5, 5], bendGoals: false }).handles.length).toBe(1);
    const handles = EffectorHandles.create(ik, { bendGoals: false });
    expect(handles.handles.length).toBe(9);
    expect(() => handles.find("tail")).toThrow(/"left hand"/);
  });
});
