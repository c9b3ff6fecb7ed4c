/**
 * Babylon's conventions on every component with a dispose(): getClassName(), onDisposeObservable (notified
 * once, inside dispose, while the component is still whole; then cleared), and the observables' naming
 * rule (docs/API.md, "Hooks as Observables"): the names used before it are aliases of the same objects.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { AimIK } from "../../../src/babylon/aim-ik.js";
import { BoneCollider } from "../../../src/babylon/bone-collider.js";
import { CCDIK, FABRIK, FABRIKRoot } from "../../../src/babylon/chain-ik.js";
import { FBBIKColliders } from "../../../src/babylon/fbbik-colliders.js";
import { FullBodyBipedIK } from "../../../src/babylon/full-body-biped-ik.js";
import { JacobianIK } from "../../../src/babylon/jacobian-ik.js";
import { LimbIK } from "../../../src/babylon/limb-ik.js";
import { IKLevelOfDetail } from "../../../src/babylon/lod/ik-level-of-detail.js";
import { LookAtIK } from "../../../src/babylon/look-at-ik.js";
import { TwistRelaxer } from "../../../src/babylon/twist-relaxer.js";
import { GrounderFBBIK } from "../../../src/effectors/grounding/grounder-fbbik.js";
import { FBBIKHeadEffector } from "../../../src/effectors/head/fbbik-head-effector.js";
import { ClimbSequencer } from "../../../src/effectors/interaction/climb-sequencer.js";
import { HandPoser } from "../../../src/effectors/interaction/hand-poser.js";
import { InteractionSystem } from "../../../src/effectors/interaction/interaction-system.js";
import { Amplifier } from "../../../src/effectors/modifiers/amplifier.js";
import { BodyTilt } from "../../../src/effectors/modifiers/body-tilt.js";
import { EffectorOffset } from "../../../src/effectors/modifiers/effector-offset.js";
import { HitReaction } from "../../../src/effectors/modifiers/hit-reaction.js";
import { Inertia } from "../../../src/effectors/modifiers/inertia.js";
import { Recoil } from "../../../src/effectors/modifiers/recoil.js";
import { type LoadedModel, loadModel } from "../../helpers/babylon-scene.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

/** What the test needs of a component. */
interface Component {
  getClassName(): string;
  /** (ik.solver has none: the IK disposes it) */
  dispose?(): void;
  onDisposeObservable: {
    add(cb: (c: unknown) => void): unknown;
    hasObservers(): boolean;
  };
}

/** Every component of the library on one character, by the class name it must report. */
async function everyComponent(): Promise<{ m: LoadedModel; ik: FullBodyBipedIK; all: [string, Component][] }> {
  const m = await loadModel("Mannequin");
  open.push(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  const r = ik.references;
  const target = new TransformNode("target", m.scene);
  target.position.set(0, 1, 1);
  const interactions = new InteractionSystem(ik);
  const all: [string, Component][] = [
    ["FullBodyBipedIK", ik],
    ["FBBIKSolver", ik.solver],
    ["CCDIK", CCDIK.create(m.scene, [r.leftUpperArm, r.leftForearm, r.leftHand], { target })],
    ["FABRIK", FABRIK.create(m.scene, [r.rightUpperArm, r.rightForearm, r.rightHand], { target })],
    ["FABRIKRoot", FABRIKRoot.create(m.scene, r.leftUpperArm, [[r.leftForearm, r.leftHand]])],
    ["LimbIK", LimbIK.create(m.scene, r.leftThigh, r.leftCalf, r.leftFoot, { target })],
    ["AimIK", AimIK.create(m.scene, [...r.spine, r.head!], { target })],
    ["LookAtIK", LookAtIK.create(m.scene, { spine: r.spine, head: r.head }, { target })],
    ["JacobianIK", JacobianIK.create(m.scene, [r.rightThigh, r.rightCalf, r.rightFoot])],
    ["TwistRelaxer", TwistRelaxer.create(m.scene, r.rightForearm)],
    ["FBBIKColliders", FBBIKColliders.create(ik, { colliders: [BoneCollider.sphere(r.spine[0]!, 0.1)] })],
    ["IKLevelOfDetail", IKLevelOfDetail.for(m.scene)],
    ["GrounderFBBIK", GrounderFBBIK.create(ik, { raycast: () => false })],
    ["FBBIKHeadEffector", FBBIKHeadEffector.create(ik)],
    ["ClimbSequencer", new ClimbSequencer(interactions)],
    ["InteractionSystem", interactions],
    ["HandPoser", new HandPoser(r.leftHand.getTransformNode()!, m.skeleton)],
    ["Amplifier", new Amplifier(ik)],
    ["BodyTilt", new BodyTilt(ik)],
    ["EffectorOffset", new EffectorOffset(ik)],
    ["HitReaction", new HitReaction(ik)],
    ["Inertia", new Inertia(ik)],
    ["Recoil", new Recoil(ik)],
  ];
  return { m, ik, all };
}

describe("Babylon conventions on every component", () => {
  it("getClassName() names the class; onDisposeObservable fires once, inside dispose, then is cleared", async () => {
    const { m, ik, all } = await everyComponent();
    m.scene.render();
    for (const [name, c] of all) expect(c.getClassName(), name).toBe(name);
    const colliders = all.find(([n]) => n === "FBBIKColliders")![1] as FBBIKColliders;
    expect(colliders.colliders.getClassName()).toBe("BoneColliderSet");
    expect(BoneCollider.sphere(ik.references.head!, 0.1).getClassName()).toBe("BoneCollider");
    const seen: string[] = [];
    for (const [name, c] of all) {
      c.onDisposeObservable.add((arg) => {
        expect(arg, name).toBe(c);
        // still whole: the IK's solver and bones are readable from inside the observer
        expect(ik.solver.leftHandEffector.positionWeight, name).toBe(ik.solver.leftHandEffector.positionWeight);
        seen.push(name);
      });
    }
    // the components on the IK first, the IK (and its solver) last
    for (const [, c] of all.slice(2).reverse()) c.dispose!();
    ik.dispose();
    expect(seen.sort()).toEqual(all.map(([n]) => n).sort());
    for (const [name, c] of all) expect(c.onDisposeObservable.hasObservers(), name).toBe(false);
    // a second dispose notifies nobody again
    for (const [, c] of all) c.dispose?.();
    expect(seen.length).toBe(all.length);
  });

  it("disposing the IK disposes what is attached to it, and nothing else; isDisposed says so", async () => {
    const { m, ik, all } = await everyComponent();
    m.scene.render();
    // attached to the IK (or to its interaction system); the IK family, the LOD and a hand poser stand alone
    const attached = new Set([
      "FBBIKSolver",
      "FBBIKColliders",
      "GrounderFBBIK",
      "FBBIKHeadEffector",
      "ClimbSequencer",
      "InteractionSystem",
      "Amplifier",
      "BodyTilt",
      "EffectorOffset",
      "HitReaction",
      "Inertia",
      "Recoil",
    ]);
    const seen = new Map<string, number>();
    for (const [name, c] of all) c.onDisposeObservable.add(() => seen.set(name, (seen.get(name) ?? 0) + 1));
    // one hook gone before: not notified again, and the IK does not hold it
    const hit = all.find(([n]) => n === "HitReaction")![1] as HitReaction;
    hit.dispose();
    ik.dispose();
    for (const [name, c] of all) {
      const disposed = (c as { isDisposed?: boolean }).isDisposed;
      if (name === "FullBodyBipedIK") continue;
      if (attached.has(name)) {
        expect(seen.get(name), name).toBe(1);
        if (disposed !== undefined) expect(disposed, name).toBe(true);
      } else {
        expect(seen.get(name), name).toBeUndefined();
        expect(disposed, name).toBe(false);
      }
    }
    expect(ik.onDisposeObservable.hasObservers()).toBe(false);
  });

  it("a character disposed without ik.dispose() takes the hooks with its IK", async () => {
    const m = await loadModel("Mannequin");
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const hooks = [
      GrounderFBBIK.create(ik, { raycast: () => false }),
      FBBIKHeadEffector.create(ik),
      FBBIKColliders.create(ik, { colliders: [BoneCollider.sphere(ik.references.spine[0]!, 0.1)] }),
      new Recoil(ik),
    ];
    m.scene.render();
    for (const mesh of m.scene.meshes.filter((x) => x.skeleton === m.skeleton)) mesh.dispose();
    m.skeleton.dispose();
    m.scene.render();
    expect(ik.isDisposed).toBe(true);
    for (const h of hooks) expect(h.isDisposed, h.getClassName()).toBe(true);
    m.dispose();
  });

  it("the IK's onDisposeObservable sees the IK before it lets go (not yet disposed: bones, rig readable)", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    m.scene.render();
    let rigBones = -1;
    ik.onDisposeObservable.add(() => {
      rigBones = ik.rig.count;
    });
    ik.dispose();
    expect(rigBones).toBeGreaterThan(0);
    expect(ik.isDisposed).toBe(true);
  });
});

describe("the observables' naming rule: old names are aliases", () => {
  it("ik.solver.onPreUpdate … onPostUpdate are the on…Observable objects, and they fire", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const s = ik.solver;
    const pairs = [
      [s.onPreUpdate, s.onPreUpdateObservable],
      [s.onPreRead, s.onPreReadObservable],
      [s.onPreSolve, s.onPreSolveObservable],
      [s.onPreIteration, s.onPreIterationObservable],
      [s.onPostIteration, s.onPostIterationObservable],
      [s.onPreBend, s.onPreBendObservable],
      [s.onPostSolve, s.onPostSolveObservable],
      [s.onPostUpdate, s.onPostUpdateObservable],
    ] as const;
    for (const [old, now] of pairs) expect(old).toBe(now);
    let fired = 0;
    s.onPostUpdate.add(() => fired++);
    s.leftHandEffector.position.copyFrom(new Vector3(0.3, 1, 0.3));
    s.leftHandEffector.positionWeight = 1;
    m.scene.render();
    expect(fired).toBe(1);
    expect(s.onPostUpdateObservable.observers.length).toBe(1);
  });

  it("the interaction system's and the climb sequencer's old names are the on…Observable objects", async () => {
    const m = await loadModel("Mannequin");
    open.push(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const i = new InteractionSystem(ik);
    const climb = new ClimbSequencer(i);
    expect(i.onInteractionStart).toBe(i.onInteractionStartObservable);
    expect(i.onInteractionPause).toBe(i.onInteractionPauseObservable);
    expect(i.onInteractionPickUp).toBe(i.onInteractionPickUpObservable);
    expect(i.onInteractionResume).toBe(i.onInteractionResumeObservable);
    expect(i.onInteractionStop).toBe(i.onInteractionStopObservable);
    expect(i.onInteractionEvent).toBe(i.onInteractionEventObservable);
    expect(i.onPreInteractionUpdate).toBe(i.onPreInteractionUpdateObservable);
    expect(i.onPostInteractionUpdate).toBe(i.onPostInteractionUpdateObservable);
    expect(climb.onStep).toBe(climb.onStepObservable);
    expect(climb.onFinished).toBe(climb.onFinishedObservable);
    let updates = 0;
    i.onPreInteractionUpdate.add(() => updates++);
    m.scene.render();
    expect(updates).toBe(1);
  });
});
