/**
 * FullBodyBipedIK on the real models in Babylon's NullEngine, in left- and right-handed scenes:
 * detection, exact pass-through at weight 0, reaching, rotations, bone lengths, body, crouch, pull,
 * bend goals on a moved/rotated/scaled character, and dispose.
 */
import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { Bone } from "@babylonjs/core/Bones/bone.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { Random } from "../helpers/random.js";
import {
  type LoadedModel,
  type ModelName,
  loadModel,
  modelAvailable,
  proceduralIdle,
} from "../helpers/babylon-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

/** What each usable model must detect (names of the biped bones). */
const EXPECTED: Record<
  Exclude<ModelName, "RobotExpressive" | "UAL" | "RiggedFigure" | "RiggedFigureBabylon">,
  {
    pelvis: string;
    spine: string[];
    head: string;
    arm: string[];
    leg: string[];
    clavicle: string | null;
    clip: string | null;
  }
> = {
  Mannequin: {
    pelvis: "hips",
    spine: ["spine", "chest"],
    head: "head",
    arm: ["upperarm.l", "lowerarm.l", "wrist.l"],
    leg: ["upperleg.l", "lowerleg.l", "foot.l"],
    clavicle: null,
    clip: null,
  },
  Superhero: {
    pelvis: "pelvis",
    spine: ["spine_01", "spine_02", "spine_03"],
    head: "Head",
    arm: ["upperarm_l", "lowerarm_l", "hand_l"],
    leg: ["thigh_l", "calf_l", "foot_l"],
    clavicle: "clavicle_l",
    clip: null,
  },
  Xbot: {
    pelvis: "mixamorig:Hips",
    spine: ["mixamorig:Spine", "mixamorig:Spine1", "mixamorig:Spine2"],
    head: "mixamorig:Head",
    arm: ["mixamorig:LeftArm", "mixamorig:LeftForeArm", "mixamorig:LeftHand"],
    leg: ["mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot"],
    clavicle: "mixamorig:LeftShoulder",
    clip: "idle",
  },
  Soldier: {
    pelvis: "mixamorig:Hips",
    spine: ["mixamorig:Spine", "mixamorig:Spine1", "mixamorig:Spine2"],
    head: "mixamorig:Head",
    arm: ["mixamorig:LeftArm", "mixamorig:LeftForeArm", "mixamorig:LeftHand"],
    leg: ["mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot"],
    clavicle: "mixamorig:LeftShoulder",
    clip: "Idle",
  },
};

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

async function load(name: ModelName, rightHanded: boolean): Promise<LoadedModel> {
  // the one clip playIdle plays (the others are not loaded: most of a load is clips)
  const idle = (EXPECTED as Partial<Record<ModelName, { clip: string | null }>>)[name]?.clip ?? null;
  const m = await loadModel(name, { rightHanded, clips: (clip) => clip === idle });
  open.push(m);
  return m;
}

/** Plays the model's clip, or a procedural idle on spine and arms for models without clips. */
function playIdle(m: LoadedModel, name: keyof typeof EXPECTED): AnimationGroup {
  const clip = EXPECTED[name].clip;
  if (clip !== null) {
    const g = m.container.animationGroups.find((a) => a.name === clip)!;
    g.start(true);
    return g;
  }
  const names = [EXPECTED[name].spine[0]!, EXPECTED[name].arm[0]!, EXPECTED[name].arm[1]!, EXPECTED[name].leg[0]!];
  const nodes = names.map((n) => m.skeleton.bones.find((b) => b.name === n)!.getTransformNode()!);
  const g = proceduralIdle(m.scene, nodes);
  g.start(true);
  return g;
}

/** Bone pairs (parent, child) of the skeleton for length checks. */
function bonePairs(m: LoadedModel): [Bone, Bone][] {
  return m.skeleton.bones.filter((b) => b.getParent() !== null).map((b) => [b.getParent()!, b]);
}

const USABLE = (Object.keys(EXPECTED) as (keyof typeof EXPECTED)[]).filter(
  (n) => (n !== "Xbot" && n !== "Soldier") || modelAvailable(n),
);

for (const name of Object.keys(EXPECTED) as (keyof typeof EXPECTED)[]) {
  for (const rightHanded of [false, true]) {
    const title = `${name} in a ${rightHanded ? "right" : "left"}-handed scene`;
    const available = USABLE.includes(name);
    describe.skipIf(!available)(
      available ? title : `${title} (skipped: ../shared/assets/models/${name}.glb is not on this machine)`,
      () => {
        it("detects the references", async () => {
          const m = await load(name, rightHanded);
          const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
          const e = EXPECTED[name];
          const r = ik.references;
          expect(r.pelvis.name).toBe(e.pelvis);
          expect(r.spine.map((b) => b.name)).toEqual(e.spine);
          expect(r.head?.name).toBe(e.head);
          expect([r.leftUpperArm, r.leftForearm, r.leftHand].map((b) => b.name)).toEqual(e.arm);
          expect([r.leftThigh, r.leftCalf, r.leftFoot].map((b) => b.name)).toEqual(e.leg);
          expect(r.leftClavicle?.name ?? null).toBe(e.clavicle);
          // right side mirrors the left side's naming
          expect(r.rightHand.name).toBe(e.arm[2]!.replace("Left", "Right").replace(/\.l$/, ".r").replace(/_l$/, "_r"));
        });

        it("with all effector weights 0 the bones equal the animation exactly, frame after frame", async () => {
          const withIk = await load(name, rightHanded);
          const reference = await load(name, rightHanded);
          const ik = FullBodyBipedIK.create(withIk.scene, withIk.skeleton);
          playIdle(withIk, name);
          playIdle(reference, name);
          let compared = 0;
          for (let frame = 0; frame < 12; frame++) {
            withIk.scene.render();
            reference.scene.render();
            for (let i = 0; i < withIk.skeleton.bones.length; i++) {
              const a = withIk.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
              const b = reference.skeleton.bones[i]!.getTransformNode()!.computeWorldMatrix(true).m;
              for (let k = 0; k < 16; k++)
                if (a[k] !== b[k]) throw new Error(`frame ${frame} bone ${withIk.skeleton.bones[i]!.name} differs`);
              compared++;
            }
          }
          expect(compared).toBe(12 * withIk.skeleton.bones.length);
          // and the animation really moved something
          expect(ik.solver.inner.solvedLastUpdate).toBe(false);
        });

        it("puts hands and feet on reachable targets around the body within 0.1 % of the height, keeping bone lengths", async () => {
          const m = await load(name, rightHanded);
          const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
          m.scene.render();
          const h = height(m);
          const pairs = bonePairs(m);
          const restLengths = pairs.map(([a, b]) => Vector3.Distance(worldPos(a), worldPos(b)));
          const rng = new Random(31);
          const limbs = [
            {
              effector: ik.solver.leftHandEffector,
              bones: [ik.references.leftUpperArm, ik.references.leftForearm, ik.references.leftHand],
            },
            {
              effector: ik.solver.rightHandEffector,
              bones: [ik.references.rightUpperArm, ik.references.rightForearm, ik.references.rightHand],
            },
            {
              effector: ik.solver.leftFootEffector,
              bones: [ik.references.leftThigh, ik.references.leftCalf, ik.references.leftFoot],
            },
            {
              effector: ik.solver.rightFootEffector,
              bones: [ik.references.rightThigh, ik.references.rightCalf, ik.references.rightFoot],
            },
          ];
          let worst = 0;
          for (let trial = 0; trial < 24; trial++) {
            const limb = limbs[trial % 4]!;
            for (const l of limbs) l.effector.positionWeight = 0;
            const [b1, b2, b3] = limb.bones.map(worldPos) as [Vector3, Vector3, Vector3];
            const reach = Vector3.Distance(b1, b2) + Vector3.Distance(b2, b3);
            const d = rng.unitVector();
            const target = b1.add(new Vector3(d.x, d.y, d.z).scale(rng.range(0.35, 0.85) * reach));
            limb.effector.position.copyFrom(target);
            limb.effector.positionWeight = 1;
            m.scene.render();
            worst = Math.max(worst, Vector3.Distance(worldPos(limb.bones[2]!), target) / h);
            pairs.forEach(([a, b], i) => {
              const l = Vector3.Distance(worldPos(a), worldPos(b));
              // bone world lengths (the clavicle → upper arm link may stretch as in FinalIK)
              if (b !== ik.references.leftUpperArm && b !== ik.references.rightUpperArm) {
                expect(Math.abs(l - restLengths[i]!) / h).toBeLessThan(1e-3);
              }
            });
          }
          expect(worst).toBeLessThan(1e-3);
        });

        it("rotation weight 1 gives the hand the target node's world rotation in Babylon's convention (Y flipped under a left-handed glTF's mirror)", async () => {
          const m = await load(name, rightHanded);
          const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
          m.scene.render();
          const target = new TransformNode("hand target", m.scene);
          target.position.copyFrom(worldPos(ik.references.leftHand));
          target.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.7, -0.4, 1.1);
          const e = ik.solver.leftHandEffector;
          e.target = target;
          e.positionWeight = 1;
          e.rotationWeight = 1;
          m.scene.render();
          const handNode = ik.references.leftHand.getTransformNode()!;
          const hm = handNode.computeWorldMatrix(true).m;
          const tm = target.computeWorldMatrix(true).m;
          const axis = (mm: ArrayLike<number>, row: number) =>
            new Vector3(mm[row * 4]!, mm[row * 4 + 1]!, mm[row * 4 + 2]!).normalize();
          const mirrored = !rightHanded;
          // the hand's absoluteRotationQuaternion is the target's: X and Z always match; Y matches in a
          // right-handed scene and is flipped under glTF's __root__ in a left-handed one, as Matrix.decompose
          // flips it there
          expect(
            Math.abs(Quaternion.Dot(handNode.absoluteRotationQuaternion, target.absoluteRotationQuaternion)),
          ).toBeGreaterThan(1 - 1e-6);
          expect(Vector3.Dot(axis(hm, 0), axis(tm, 0))).toBeGreaterThan(0.9999);
          expect(Vector3.Dot(axis(hm, 2), axis(tm, 2))).toBeGreaterThan(0.9999);
          expect(Vector3.Dot(axis(hm, 1), axis(tm, 1))).toBeCloseTo(mirrored ? -1 : 1, 4);
          expect(Vector3.Distance(handNode.getAbsolutePosition(), target.position) / height(m)).toBeLessThan(1e-3);
        });

        it("moves the pelvis with the body effector; a crouch keeps the feet and bends the knees forward", async () => {
          const m = await load(name, rightHanded);
          const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
          m.scene.render();
          const h = height(m);
          const r = ik.references;
          const feet = [worldPos(r.leftFoot), worldPos(r.rightFoot)];
          const knees = [worldPos(r.leftCalf), worldPos(r.rightCalf)];
          const pelvis = worldPos(r.pelvis);
          // the character's forward in the world: from the heels to the toes
          const toe = r.leftFoot.children[0];
          const forward = toe !== undefined ? worldPos(toe).subtract(feet[0]!) : new Vector3(0, 0, 1);
          forward.y = 0;
          forward.normalize();
          ik.solver.leftFootEffector.pinToBone(1, 1);
          ik.solver.rightFootEffector.pinToBone(1, 1);
          const body = ik.solver.bodyEffector;
          body.pinToBone(1, 0);
          body.position.y -= 0.2 * h;
          m.scene.render();
          expect(pelvis.y - worldPos(r.pelvis).y).toBeGreaterThan(0.15 * h);
          [r.leftFoot, r.rightFoot].forEach((f, i) =>
            expect(Vector3.Distance(worldPos(f), feet[i]!) / h).toBeLessThan(1e-3),
          );
          [r.leftCalf, r.rightCalf].forEach((c, i) =>
            expect(Vector3.Dot(worldPos(c).subtract(knees[i]!), forward)).toBeGreaterThan(0.03 * h),
          );
        });

        it("an unreachable hand target pulls the body toward it (pull 1), closer than the arm alone reaches (pull 0)", async () => {
          const run = async (pull: number) => {
            const m = await load(name, rightHanded);
            const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
            m.scene.render();
            const h = height(m);
            const r = ik.references;
            const pelvis = worldPos(r.pelvis);
            const chest = worldPos(r.spine[r.spine.length - 1]!);
            const hand = worldPos(r.leftHand);
            const outward = hand.subtract(worldPos(r.rightHand)).normalize();
            const target = hand.add(outward.scale(0.4 * h));
            ik.solver.leftArmChain.pull = pull;
            ik.solver.leftHandEffector.position.copyFrom(target);
            ik.solver.leftHandEffector.positionWeight = 1;
            m.scene.render();
            return {
              pelvis: Vector3.Dot(worldPos(r.pelvis).subtract(pelvis), outward) / h,
              chest: Vector3.Dot(worldPos(r.spine[r.spine.length - 1]!).subtract(chest), outward) / h,
              hand: Vector3.Distance(worldPos(r.leftHand), target) / h,
            };
          };
          const pulled = await run(1);
          const armOnly = await run(0);
          expect(pulled.pelvis).toBeGreaterThan(0.002);
          expect(pulled.chest).toBeGreaterThan(pulled.pelvis);
          expect(pulled.hand).toBeLessThan(armOnly.hand - 0.01);
          expect(Math.abs(armOnly.pelvis)).toBeLessThan(0.5 * pulled.pelvis);
        });

        it("a bend goal turns the knee toward it, the same on a character moved, rotated 90° and scaled ×3", async () => {
          const relative: Vector3[] = [];
          for (const transformed of [false, true]) {
            const m = await load(name, rightHanded);
            if (transformed) {
              m.root.position.set(3, -1, 2);
              m.root.rotationQuaternion = Quaternion.RotationAxis(Vector3.Up(), Math.PI / 2).multiply(
                m.root.rotationQuaternion ?? Quaternion.Identity(),
              );
              m.root.scaling.scaleInPlace(3);
            }
            const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
            m.scene.render();
            const r = ik.references;
            const h = height(m);
            const world = m.root.computeWorldMatrix(true);
            const toLocal = world.clone().invert();
            const knee = worldPos(r.leftCalf);
            const outward = worldPos(r.leftThigh).subtract(worldPos(r.rightThigh)).normalize();
            const goal = new TransformNode("knee goal", m.scene);
            goal.position.copyFrom(knee.add(outward.scale(0.5 * h)));
            const leg = ik.solver.leftLegChain;
            leg.bendConstraint.bendGoal = goal;
            leg.bendConstraint.weight = 1;
            // bend the leg by bringing the foot up and forward
            const foot = ik.solver.leftFootEffector;
            foot.position.copyFrom(worldPos(r.leftFoot).add(new Vector3(0, 0.15 * h, 0)));
            foot.positionWeight = 1;
            m.scene.render();
            const thigh = worldPos(r.leftThigh);
            const axis = worldPos(r.leftFoot).subtract(thigh).normalize();
            const k = worldPos(r.leftCalf).subtract(thigh);
            const perp = k.subtract(axis.scale(Vector3.Dot(k, axis))).normalize();
            const toGoal = goal.position.subtract(thigh);
            const goalPerp = toGoal.subtract(axis.scale(Vector3.Dot(toGoal, axis))).normalize();
            expect(Vector3.Dot(perp, goalPerp)).toBeGreaterThan(0.99);
            // the knee in the model's own frame, in units of its height
            relative.push(
              Vector3.TransformCoordinates(worldPos(r.leftCalf), toLocal).scale(1 / (h / (transformed ? 3 : 1))),
            );
          }
          expect(Vector3.Distance(relative[0]!, relative[1]!)).toBeLessThan(1e-3);
        });

        it("dispose leaves no observer behind and the bones as the animation left them", async () => {
          const m = await load(name, rightHanded);
          const before = [
            m.scene.onBeforeRenderTargetsRenderObservable.observers.length,
            m.scene.onBeforeAnimationsObservable.observers.length,
          ];
          const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
          const twin = m.container.instantiateModelsToScene((n) => `twin_${n}`, false, { doNotInstantiate: true });
          const ik2 = FullBodyBipedIK.create(m.scene, twin.skeletons[0]!);
          // many characters share one observer pair
          expect(m.scene.onBeforeRenderTargetsRenderObservable.observers.length).toBe(before[0]! + 1);
          ik.solver.leftHandEffector.position.y -= 0.2;
          ik.solver.leftHandEffector.positionWeight = 1;
          m.scene.render();
          const handAnimated = worldPos(ik.references.leftForearm);
          ik2.dispose();
          ik.dispose();
          // Babylon unregisters removed observers on a later tick
          await new Promise((r) => setTimeout(r, 0));
          expect([
            m.scene.onBeforeRenderTargetsRenderObservable.observers.length,
            m.scene.onBeforeAnimationsObservable.observers.length,
          ]).toEqual(before);
          expect(ik.solver.onPostUpdateObservable.hasObservers()).toBe(false);
          // bones back to the animated (here: rest) pose
          const reference = await load(name, rightHanded);
          reference.scene.render();
          m.scene.render();
          for (let i = 0; i < m.skeleton.bones.length; i++) {
            expect(
              Vector3.Distance(worldPos(m.skeleton.bones[i]!), worldPos(reference.skeleton.bones[i]!)),
            ).toBeLessThan(1e-6);
          }
          expect(Vector3.Distance(handAnimated, worldPos(ik.references.leftForearm))).toBeGreaterThan(0.01);
        });
      },
    );
  }
}

describe("a rig that cannot work", () => {
  it("RobotExpressive (feet hang off the root) gets an FBBIKError that says exactly why", async () => {
    const m = await load("RobotExpressive", false);
    let error: unknown = null;
    try {
      FullBodyBipedIK.create(m.scene, m.skeleton);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FBBIKError);
    const message = (error as FBBIKError).message;
    expect(message).toMatch(/left foot/i);
    expect(message).toMatch(/Foot\.L/);
    expect(message).toMatch(/Bone/);
    expect(m.scene.onBeforeRenderTargetsRenderObservable.observers.length).toBe(0);
  });

  it("explicit references by name override detection, and a wrong name is reported with the bones considered", async () => {
    const m = await load("Mannequin", false);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton, {
      references: { leftHand: "hand.l", rightHand: "hand.r" },
      rootNode: "chest",
    });
    expect(ik.references.leftHand.name).toBe("hand.l");
    expect(ik.rootNode.name).toBe("chest");
    ik.dispose();
    expect(() => FullBodyBipedIK.create(m.scene, m.skeleton, { references: { leftHand: "nope" } })).toThrow(
      /no bone named "nope".*hips/,
    );
  });
});
