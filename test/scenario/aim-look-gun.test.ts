/**
 * A gun aimed by AimIK on UAL walking, with what a FinalIK user adds around it (docs/API.md, "AimIK" and "LookAtIK"):
 * a LookAtIK on the chest and head, and the FBBIK keeping the left hand on a grip beyond its arm's reach. In their
 * own places a LookAtIK turns the gun off after the AimIK; solved first it does not. The FBBIK after the AimIK
 * re-bends the aiming arm; the aiming hand pinned where the AimIK left it keeps the barrel on the target.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { describe, expect, it } from "vitest";
import { resolveBipedReferences } from "../../src/babylon/biped-references.js";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { IKUpdateOrder } from "../../src/babylon/scene-updater.js";
import { aimedGun } from "../helpers/aimed-gun.js";
import { loadModel } from "../helpers/babylon-scene.js";
import { height, nodePos, worldPos } from "../helpers/scene-probes.js";

/** How the gun's aim is set up around the AimIK. */
interface Setup {
  /** The LookAtIK's updateOrder; undefined: its own place (after the AimIK). */
  lookOrder?: number;
  /** The FBBIK holds the left hand on a grip ahead of the gun; the AimIK solves before it. */
  grip?: boolean;
  /** The right hand effector pinned to the aimed hand before the FBBIK solves. */
  pin?: boolean;
}

/** UAL walking 90 frames: the barrel's largest angle to the target (degrees), and the left hand's gap to the grip (h). */
async function aimRun(setup: Setup): Promise<{ aim: number; grip: number; chest: [number, number] }> {
  const m = await loadModel("UAL", { clips: (n) => n === "Walk_Loop" });
  const { scene, skeleton } = m;
  m.container.animationGroups[0]!.start(true);
  scene.render();
  const h = height(m);
  const ik = setup.grip ? FullBodyBipedIK.create(scene, skeleton) : null;
  const r = ik?.references ?? resolveBipedReferences(skeleton).references;
  const hand = r.rightHand.getTransformNode()!;
  const { gun, aim, target, lookTarget, moveTargets } = aimedGun(
    scene,
    r,
    setup.grip ? IKUpdateOrder.FullBody - 10 : undefined,
  );
  LookAtIK.create(
    scene,
    { spine: [r.spine[r.spine.length - 1]!], head: r.head!, eyes: [] },
    { target: lookTarget, ...(setup.lookOrder !== undefined ? { updateOrder: setup.lookOrder } : {}) },
  );
  const grip = new TransformNode("grip", scene);
  if (ik) {
    // 8 % of the height ahead of the right hand, along the barrel: beyond the left arm's reach in the walk
    grip.parent = gun;
    grip.position.set(0, -0.03 * h, 0.08 * h).scaleInPlace(1 / hand.getWorldMatrix().getRow(0)!.toVector3().length());
    ik.solver.leftHandEffector.target = grip;
    ik.solver.leftHandEffector.positionWeight = 1;
    ik.solver.leftHandEffector.rotationWeight = 1;
    ik.solver.leftArmChain.pull = 0;
    if (setup.pin) {
      const rh = ik.solver.rightHandEffector;
      ik.solver.onPreUpdateObservable.add(() => {
        // the AimIK has solved: the hand where it aims
        hand.computeWorldMatrix(true).decompose(undefined, rh.rotation, rh.position);
        rh.positionWeight = aim.solver.ikPositionWeight;
        rh.rotationWeight = aim.solver.ikPositionWeight;
      });
    }
  }
  // the chest as the aim and the look-at left it, before the FBBIK solves: how far the FBBIK turns it
  const chest = r.spine[r.spine.length - 1]!.getTransformNode()!;
  const before = new Quaternion();
  const after = new Quaternion();
  ik?.solver.onPreUpdateObservable.add(() => chest.computeWorldMatrix(true).decompose(undefined, before));
  const chestTurn: [number, number] = [180, 0];
  let worstAim = 0;
  let worstGrip = 0;
  for (let f = 0; f < 90; f++) {
    moveTargets(f / 60, h);
    scene.render();
    const axis = Vector3.TransformNormal(Vector3.Forward(), gun.computeWorldMatrix(true)).normalize();
    const to = target.position.subtract(nodePos(gun)).normalize();
    worstAim = Math.max(worstAim, (Math.acos(Math.min(1, Vector3.Dot(axis, to))) * 180) / Math.PI);
    if (!ik) continue;
    worstGrip = Math.max(worstGrip, worldPos(r.leftHand).subtract(nodePos(grip)).length() / h);
    chest.computeWorldMatrix(true).decompose(undefined, after);
    const turn = (2 * Math.acos(Math.min(1, Math.abs(Quaternion.Dot(before, after)))) * 180) / Math.PI;
    chestTurn[0] = Math.min(chestTurn[0], turn);
    chestTurn[1] = Math.max(chestTurn[1], turn);
  }
  m.dispose();
  if (process.env.FBBIK_REPORT)
    console.log(`[figures] ${JSON.stringify(setup)}: aim ${worstAim}° grip ${worstGrip} h chest turned ${chestTurn}°`);
  return { aim: worstAim, grip: worstGrip, chest: chestTurn };
}

describe("AimIK with a LookAtIK and a second hand (UAL walking)", () => {
  it("a LookAtIK on the chest in its own place turns the gun off; solved before the AimIK it does not", async () => {
    // measured: 16.5° in its own place, 1.7e-5° before the AimIK
    expect((await aimRun({})).aim).toBeGreaterThan(10);
    expect((await aimRun({ lookOrder: IKUpdateOrder.Aim - 10 })).aim).toBeLessThan(1e-3);
  });

  it("the FBBIK holding a far grip re-bends the aiming arm unless the aiming hand is pinned", async () => {
    // measured: 6.5° with the left arm's pull 0 alone, the chest turned 39–51° by the FBBIK; 3.0e-5° and 3.3e-7 h
    // with the right hand pinned
    const lookFirst = IKUpdateOrder.FullBody - 20;
    const free = await aimRun({ grip: true, lookOrder: lookFirst });
    expect(free.aim).toBeGreaterThan(2);
    const pinned = await aimRun({ grip: true, lookOrder: lookFirst, pin: true });
    expect(pinned.aim).toBeLessThan(1e-3);
    expect(pinned.grip).toBeLessThan(1e-5);
  });
});
