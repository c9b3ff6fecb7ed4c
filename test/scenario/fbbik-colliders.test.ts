/**
 * FullBodyBipedIK's after-solve collider pass on a real model (Xbot, else the UAL character): a torso capsule
 * on the chest, the left-hand target at the chest's centre, and the hand ending on the capsule's surface; no
 * collider, or a frame the FBBIK does not solve, changes nothing.
 */
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { BoneCollider } from "../../src/babylon/bone-collider.js";
import { FBBIKColliders } from "../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type LoadedModel, loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { worldPos } from "../helpers/scene-probes.js";

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
  const w = c.bone.getTransformNode()!.computeWorldMatrix(true);
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
