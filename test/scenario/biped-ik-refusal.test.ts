/**
 * BipedIK and FullBodyBipedIK refuse each other on one character (FinalIK users sometimes put both on one): on the
 * same skeleton and on a second skeleton over the same nodes (a glTF model's other skin), in both orders, with an
 * FBBIKError naming both skeletons and what to dispose; a refused create attaches nothing; disposing either frees
 * the character for the other in the same frame. A GrounderIK beside a BipedIK keeps its legs in their own place:
 * only an FBBIK moves them before it.
 */
import type { Skeleton } from "@babylonjs/core/Bones/skeleton.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { BipedIK } from "../../src/babylon/biped-ik.js";
import { removeBodySolver } from "../../src/babylon/body-solver.js";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LimbIK } from "../../src/babylon/limb-ik.js";
import { IKUpdateOrder, SceneUpdater } from "../../src/babylon/scene-updater.js";
import { GrounderIK } from "../../src/effectors/grounding/grounder-ik.js";
import { StaticGroundRaycast } from "../../src/effectors/grounding/static-ground-raycast.js";
import { FBBIKError } from "../../src/solver/errors.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { report } from "../helpers/modifier-scene.js";
import { height, worldPos } from "../helpers/scene-probes.js";

/** The Mannequin, and with `secondSkin` a second skeleton over its nodes (a glTF model's other skin). */
async function mannequin(secondSkin: boolean): Promise<{ m: LoadedModel; first: Skeleton; second: Skeleton }> {
  const m = await loadModel("Mannequin");
  let second = m.skeleton;
  if (secondSkin) {
    second = m.skeleton.clone("second skin", "second skin");
    second.bones.forEach((b, i) => b.linkTransformNode(m.skeleton.bones[i]!.getTransformNode()));
  }
  onTestFinished(() => {
    if (second !== m.skeleton) second.dispose();
    m.dispose();
  });
  m.scene.render();
  return { m, first: m.skeleton, second };
}

/** What `create` threw (null: nothing). */
function thrown(create: () => unknown): unknown {
  try {
    create();
  } catch (e) {
    return e;
  }
  return null;
}

type Kind = "FullBodyBipedIK" | "BipedIK";
const create = (kind: Kind, m: LoadedModel, skeleton: Skeleton): FullBodyBipedIK | BipedIK =>
  kind === "FullBodyBipedIK" ? FullBodyBipedIK.create(m.scene, skeleton) : BipedIK.create(m.scene, skeleton);

const ORDERS: { first: Kind; second: Kind }[] = [
  { first: "FullBodyBipedIK", second: "BipedIK" },
  { first: "BipedIK", second: "FullBodyBipedIK" },
];

/**
 * The message of the FBBIKError `later` (a component's class) threw, created on `skeleton` where a `first` is on
 * `one`; checks that nothing was attached.
 */
function refusal(first: Kind, later: Kind, m: LoadedModel, one: Skeleton, skeleton: Skeleton): string {
  const ik = create(first, m, one);
  const items = SceneUpdater.for(m.scene).items.length;
  const error = thrown(() => create(later, m, skeleton));
  expect(error).toBeInstanceOf(FBBIKError);
  expect((error as FBBIKError).component).toBe(later);
  expect(SceneUpdater.for(m.scene).items.length).toBe(items);
  ik.dispose();
  return (error as Error).message;
}

describe.each(ORDERS)("$second where a $first is", ({ first, second: later }) => {
  it("on the same skeleton: refused, naming the skeleton and what to dispose; nothing attached", async () => {
    const { m, first: skeleton } = await mannequin(false);
    expect(refusal(first, later, m, skeleton, skeleton)).toContain(
      `skeleton "${skeleton.name}" already has a ${first}, which a ${later} would fight over the bones; ` +
        "dispose it before creating another one",
    );
  });

  it("on another skin's skeleton over the same nodes: refused, naming both skeletons; nothing attached", async () => {
    const { m, first: one, second } = await mannequin(true);
    const message = refusal(first, later, m, one, second);
    expect(message).toContain(
      `skeleton "second skin" moves the same nodes as skeleton "${one.name}", which already has a ${first}`,
    );
    expect(message).toContain("dispose it before creating another one");
  });

  it("disposing it frees the character for the other in the same frame, on either skin", async () => {
    const { m, first: one, second } = await mannequin(true);
    for (const skeleton of [one, second]) {
      const ik = create(first, m, one);
      ik.dispose();
      // no frame between: the registry is freed at dispose
      const other = create(later, m, skeleton);
      expect(other.isDisposed).toBe(false);
      other.dispose();
    }
    m.scene.render();
  });
});

describe("why: a BipedIK and an FBBIK on one character fight over the bones", () => {
  it("the refusal bypassed, an FBBIK hand pinned near its target ends far off with a BipedIK hand target above", async () => {
    const { m } = await mannequin(false);
    const h = height(m);
    const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
    const hand = ik.solver.rightHandEffector;
    const bone = ik.references.rightHand;
    hand.position.copyFrom(worldPos(bone)).addInPlaceFromFloats(0, -0.05 * h, 0);
    hand.positionWeight = 1;
    const miss = (frames: number): number => {
      for (let f = 0; f < frames; f++) m.scene.render();
      return worldPos(bone).subtract(hand.position).length() / h;
    };
    const alone = miss(10);
    // what the refusal stops: the FBBIK's registration dropped, a BipedIK created beside it
    removeBodySolver(ik);
    const biped = BipedIK.create(m.scene, m.skeleton);
    biped.solvers.rightHand.targetPosition.copyFrom(hand.position).addInPlaceFromFloats(0, 0.3 * h, 0);
    biped.solvers.rightHand.solver.ikPositionWeight = 1;
    const both = miss(30);
    report("FBBIK hand off its target alone / with a BipedIK hand target 0.3 h above (h)", alone, both);
    expect(alone).toBeLessThan(0.05);
    expect(both).toBeGreaterThan(0.1);
    biped.dispose();
    ik.dispose();
  });
});

describe("a refused create leaves nothing behind", () => {
  it("after a refused BipedIK and a refused FBBIK, the first one disposed frees the character", async () => {
    const { m, first: one, second } = await mannequin(true);
    const ik = FullBodyBipedIK.create(m.scene, one);
    expect(thrown(() => BipedIK.create(m.scene, second))).toBeInstanceOf(FBBIKError);
    expect(thrown(() => FullBodyBipedIK.create(m.scene, second))).toBeInstanceOf(FBBIKError);
    ik.dispose();
    const biped = BipedIK.create(m.scene, second);
    expect(thrown(() => FullBodyBipedIK.create(m.scene, one))).toBeInstanceOf(FBBIKError);
    biped.dispose();
    FullBodyBipedIK.create(m.scene, one).dispose();
  });
});

describe("a GrounderIK beside a BipedIK keeps its own update order", () => {
  it("on the BipedIK's own feet: the legs stay at IKUpdateOrder.Biped, the grounder one below, nothing warned", async () => {
    const { m } = await mannequin(false);
    const biped = BipedIK.create(m.scene, m.skeleton);
    const grounder = GrounderIK.create([biped.solvers.leftFoot, biped.solvers.rightFoot], biped.references.pelvis, {
      raycast: StaticGroundRaycast.fromMeshes([]).raycast,
    });
    m.scene.render();
    expect(biped.solvers.leftFoot.updateOrder).toBe(IKUpdateOrder.Biped);
    expect(biped.solvers.rightFoot.updateOrder).toBe(IKUpdateOrder.Biped);
    expect(grounder.updateOrder).toBe(IKUpdateOrder.Biped - 1);
    // the pelvis part solves first, then the feet: the grounder's legs keep the BipedIK's order
    const items = SceneUpdater.for(m.scene).items;
    expect(items.indexOf(biped.solvers.pelvis)).toBeLessThan(items.indexOf(biped.solvers.leftFoot));
    expect(biped.solvers.leftFoot.warningsRaised.map((w) => w.cause)).not.toContain("grounder:order");
    grounder.dispose();
    biped.dispose();
  });

  it.each([false, true])(
    "on LimbIK legs, the BipedIK created before or after (second skin: %s): the legs keep their kind's order",
    async (secondSkin) => {
      const { m, first: one, second } = await mannequin(secondSkin);
      const r = resolveBipedReferences(one).references;
      const legs = () =>
        (["left", "right"] as const).map((s) => LimbIK.create(m.scene, r[`${s}Thigh`], r[`${s}Calf`], r[`${s}Foot`]));
      const options = { raycast: StaticGroundRaycast.fromMeshes([]).raycast };
      // the BipedIK before the grounder
      const before = BipedIK.create(m.scene, second);
      const early = legs();
      const g1 = GrounderIK.create(early, r.pelvis, options);
      expect(early.map((l) => l.updateOrder)).toEqual([IKUpdateOrder.Limb, IKUpdateOrder.Limb]);
      expect(g1.updateOrder).toBe(IKUpdateOrder.Limb - 1);
      g1.dispose();
      for (const l of early) l.dispose();
      before.dispose();
      // the BipedIK after the grounder
      const late = legs();
      const g2 = GrounderIK.create(late, r.pelvis, options);
      const after = BipedIK.create(m.scene, second);
      expect(late.map((l) => l.updateOrder)).toEqual([IKUpdateOrder.Limb, IKUpdateOrder.Limb]);
      expect(g2.updateOrder).toBe(IKUpdateOrder.Limb - 1);
      after.dispose();
      // an FBBIK there instead still moves them before it
      const body = FullBodyBipedIK.create(m.scene, second);
      expect(late[0]!.updateOrder).toBeLessThan(IKUpdateOrder.FullBody);
      expect(g2.updateOrder).toBe(late[0]!.updateOrder - 1);
      body.dispose();
      expect(late.map((l) => l.updateOrder)).toEqual([IKUpdateOrder.Limb, IKUpdateOrder.Limb]);
      g2.dispose();
      for (const l of late) l.dispose();
    },
  );
});
