/**
 * FullBodyBipedIK's after-solve collider pass on a real model (Xbot, else the UAL character): a torso capsule
 * on the chest, the left-hand target at the chest's centre, and the hand ending on the capsule's surface; no
 * collider, or a frame the FBBIK does not solve, changes nothing. A pillar mesh in the world (a collider on a
 * node, not a bone) keeps the hand out the same way, in left- and right-handed scenes (component space mirrored
 * in the first), and is ignored once disposed.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder.js";
import type { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { afterEach, describe, expect, it } from "vitest";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { Vec3 } from "../../src/math/vec3.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type LoadedModel, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const MODEL = modelAvailable("Xbot") ? ("Xbot" as const) : ("UAL" as const);
const NAMES =
  MODEL === "Xbot"
    ? { low: "mixamorig:Spine", chest: "mixamorig:Spine2", neck: "mixamorig:Neck", clip: "idle" }
    : { low: "DEF-spine.001", chest: "DEF-spine.003", neck: "DEF-neck", clip: null };

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

async function load(rightHanded = false): Promise<LoadedModel> {
  const m = await loadModel(MODEL, { rightHanded, clips: (clip) => clip === NAMES.clip });
  open.push(m);
  return m;
}

function bone(m: LoadedModel, name: string): Bone {
  const b = m.skeleton.bones.find((x) => x.name === name);
  if (b === undefined) throw new Error(`no bone ${name} in ${MODEL}`);
  return b;
}

/** A torso capsule on the chest from the lower spine to the neck, and its world radius. */
function torso(m: LoadedModel): { collider: BoneCollider; radius: number } {
  const a = worldPos(bone(m, NAMES.low));
  const b = worldPos(bone(m, NAMES.neck));
  const radius = 0.35 * Vector3.Distance(a, b);
  return { collider: BoneCollider.fromWorld(bone(m, NAMES.chest), a, b, radius), radius };
}

/** Distance from `p` to the collider's axis (world), and the collider's world radius. */
function probe(c: BoneCollider, p: Vector3): { distance: number; radius: number; centre: Vector3 } {
  const w = (c.bone?.getTransformNode() ?? c.node)!.computeWorldMatrix(true);
  const a = Vector3.TransformCoordinates(c.start, w);
  const b = Vector3.TransformCoordinates(c.end, w);
  const scale = new Vector3();
  w.decompose(scale);
  const ab = b.subtract(a);
  const t = Math.min(1, Math.max(0, Vector3.Dot(p.subtract(a), ab) / ab.lengthSquared()));
  const closest = a.add(ab.scale(t));
  const s = (Math.abs(scale.x) + Math.abs(scale.y) + Math.abs(scale.z)) / 3;
  return { distance: Vector3.Distance(p, closest), radius: c.radius * s, centre: a.add(b).scale(0.5) };
}

describe(`FBBIKColliders on ${MODEL}`, () => {
  for (const rightHanded of [false, true]) {
    it(`a hand target inside the torso leaves the hand on the capsule's surface (${rightHanded ? "RH" : "LH"})`, async () => {
      const m = await load(rightHanded);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const { collider, radius } = torso(m);
      const pass = FBBIKColliders.create(ik, { colliders: [collider] });
      const hand = ik.references.leftHand;
      const centre = probe(collider, worldPos(hand)).centre;
      ik.solver.leftHandEffector.position.copyFrom(centre);
      ik.solver.leftHandEffector.positionWeight = 1;
      pass.enabled = false;
      m.scene.render();
      const through = probe(collider, worldPos(hand));
      // without the pass the FBBIK puts the hand deep inside the torso
      expect(through.distance).toBeLessThan(0.5 * radius);
      pass.enabled = true;
      for (let f = 0; f < 5; f++) {
        // the target follows the chest's centre as the solved body moves
        ik.solver.leftHandEffector.position.copyFrom(probe(collider, worldPos(hand)).centre);
        m.scene.render();
        const p = probe(collider, worldPos(hand));
        expect(p.radius).toBeCloseTo(radius, 6);
        expect(p.distance).toBeGreaterThanOrEqual(p.radius * (1 - 1e-5));
        expect(p.distance).toBeLessThanOrEqual(p.radius * 1.01);
      }
      expect(ik.warningsRaised.filter((w) => w.cause.startsWith("exception"))).toEqual([]);
    });
  }

  it("keeps the clearance and the arm's bone lengths", async () => {
    const m = await load();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const { collider, radius } = torso(m);
    FBBIKColliders.create(ik, { colliders: [collider], clearance: 0.02 });
    const r = ik.references;
    const lengths = () => [
      Vector3.Distance(worldPos(r.leftUpperArm), worldPos(r.leftForearm)),
      Vector3.Distance(worldPos(r.leftForearm), worldPos(r.leftHand)),
    ];
    const before = lengths();
    ik.solver.leftHandEffector.position.copyFrom(probe(collider, worldPos(r.leftHand)).centre);
    ik.solver.leftHandEffector.positionWeight = 1;
    m.scene.render();
    const p = probe(collider, worldPos(r.leftHand));
    expect(p.distance).toBeGreaterThanOrEqual((radius + 0.02) * (1 - 1e-5));
    expect(p.distance).toBeLessThanOrEqual((radius + 0.02) * 1.01);
    lengths().forEach((l, i) => expect(l).toBeCloseTo(before[i]!, 5));
  });

  it("without colliders, or on frames the FBBIK does not solve, the pose is bit-exact", async () => {
    const plain = await load();
    const withPass = await load();
    const idle = await load();
    const iks = [plain, withPass].map((m) => FullBodyBipedIK.create(m.scene, m.skeleton));
    const empty = FBBIKColliders.create(iks[1]!);
    const idleIk = FullBodyBipedIK.create(idle.scene, idle.skeleton);
    FBBIKColliders.create(idleIk, { colliders: [torso(idle).collider] });
    const reference = await load();
    for (const m of [plain, withPass, idle, reference]) {
      if (NAMES.clip !== null) m.container.animationGroups.find((g) => g.name === NAMES.clip)?.start(true);
    }
    for (const ik of iks) ik.solver.leftHandEffector.positionWeight = 1;
    for (let f = 0; f < 8; f++) {
      for (const ik of iks) ik.solver.leftHandEffector.position.set(0.05 * f, 1.1, 0.1);
      for (const m of [plain, withPass, idle, reference]) m.scene.render();
      const pose = (m: LoadedModel) =>
        m.skeleton.bones.map((b) => [
          ...b.getTransformNode()!.position.asArray(),
          ...b.getTransformNode()!.rotationQuaternion!.asArray(),
        ]);
      expect(pose(withPass)).toEqual(pose(plain));
      expect(pose(idle)).toEqual(pose(reference));
    }
    expect(empty.colliders.colliders).toEqual([]);
  });

  it("throws naming the bone for a collider off the IK's rig", async () => {
    const m = await load();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const finger = m.skeleton.bones.find((b) => /index|finger/i.test(b.name) && b.getChildren().length === 0)!;
    expect(() => FBBIKColliders.create(ik, { colliders: [BoneCollider.sphere(finger, 0.1)] })).toThrow(FBBIKError);
    expect(() => FBBIKColliders.create(ik, { colliders: [BoneCollider.sphere(finger, 0.1)] })).toThrow(finger.name);
  });
});

/** A tilted, scaled pillar mesh between the left shoulder and hand, a capsule on it, and its world radius. */
function pillar(m: LoadedModel, ik: FullBodyBipedIK): { mesh: Mesh; collider: BoneCollider; radius: number } {
  const h = height(m);
  const radius = 0.06 * h;
  const r = ik.references;
  // built at half size and scaled ×2: the collider's numbers are in the mesh's local units
  const mesh = CreateCylinder("pillar", { height: 0.5 * h, diameter: radius }, m.scene);
  mesh.scaling.setAll(2);
  mesh.rotationQuaternion = Quaternion.RotationAxis(new Vector3(1, 0, 0.3).normalize(), 0.25);
  mesh.position = Vector3.Lerp(worldPos(r.leftUpperArm), worldPos(r.leftHand), 0.6);
  const end = new Vector3(0, 0.25 * h, 0);
  return { mesh, collider: BoneCollider.capsule(mesh, end.negate(), end, radius / 2), radius };
}

describe(`FBBIKColliders with a pillar mesh in the world (${MODEL})`, () => {
  for (const rightHanded of [false, true]) {
    it(`a hand target inside the pillar leaves the hand on its surface (${rightHanded ? "RH" : "LH"})`, async () => {
      const m = await load(rightHanded);
      const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
      const { mesh, collider, radius } = pillar(m, ik);
      const pass = FBBIKColliders.create(ik, { colliders: [collider] });
      const hand = ik.references.leftHand;
      ik.solver.leftHandEffector.position.copyFrom(mesh.position);
      ik.solver.leftHandEffector.positionWeight = 1;
      pass.enabled = false;
      m.scene.render();
      expect(probe(collider, worldPos(hand)).distance).toBeLessThan(0.2 * radius);
      pass.enabled = true;
      for (let f = 0; f < 5; f++) {
        // the pillar sways: the collider follows the mesh
        mesh.position.x += 0.01 * radius;
        ik.solver.leftHandEffector.position.copyFrom(mesh.position);
        m.scene.render();
        const p = probe(collider, worldPos(hand));
        expect(p.radius).toBeCloseTo(radius, 6);
        expect(p.distance).toBeGreaterThanOrEqual(p.radius * (1 - 1e-5));
        expect(p.distance).toBeLessThanOrEqual(p.radius * 1.01);
      }
      expect(ik.warningsRaised.filter((w) => /^(exception|collider)/.test(w.cause))).toEqual([]);
    });
  }

  it("a disposed pillar is ignored, warned once, and nothing throws", async () => {
    const m = await load();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const { mesh, collider, radius } = pillar(m, ik);
    FBBIKColliders.create(ik, { colliders: [collider] });
    const hand = ik.references.leftHand;
    const centre = mesh.position.clone();
    ik.solver.leftHandEffector.position.copyFrom(centre);
    ik.solver.leftHandEffector.positionWeight = 1;
    m.scene.render();
    expect(Vector3.Distance(worldPos(hand), centre)).toBeGreaterThan(0.9 * radius);
    mesh.dispose();
    for (let f = 0; f < 3; f++) expect(() => m.scene.render()).not.toThrow();
    const causes = ik.warningsRaised.map((w) => w.cause).filter((c) => /^(exception|collider)/.test(c));
    expect(causes).toEqual(["collider:disposed:pillar"]);
    expect(Vector3.Distance(worldPos(hand), centre)).toBeLessThan(0.2 * radius);
  });

  it("a collider on a bone's own node follows the solved bone, as one on the bone does", async () => {
    const m = await load();
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const chest = bone(m, NAMES.chest);
    const onBone = BoneCollider.sphere(chest, 0.1, new Vector3(0, 0.2, 0.1));
    const onNode = BoneCollider.sphere(chest.getTransformNode()!, 0.1, new Vector3(0, 0.2, 0.1));
    const pass = FBBIKColliders.create(ik, { colliders: [onBone, onNode] });
    // a hand target far away pulls the body: the solved chest is not the animated one
    const r = ik.references;
    ik.solver.leftHandEffector.position.copyFrom(
      worldPos(r.leftHand).add(worldPos(r.leftHand).subtract(worldPos(r.rightHand)).scale(2)),
    );
    ik.solver.leftHandEffector.positionWeight = 1;
    let placed: Vector3[] = [];
    ik.solver.onPostUpdateObservable.add(() => {
      const a = new Vec3();
      const b = new Vec3();
      placed = [0, 1].map((i) => {
        pass.colliders.inner.getPlaced(i, 1, a, b);
        return new Vector3(a.x, a.y, a.z);
      });
    });
    const before = worldPos(chest);
    m.scene.render();
    expect(Vector3.Distance(worldPos(chest), before)).toBeGreaterThan(0.01 * height(m));
    expect(placed.length).toBe(2);
    expect(Vector3.Distance(placed[0]!, placed[1]!)).toBeLessThan(1e-9 * height(m));
  });
});
