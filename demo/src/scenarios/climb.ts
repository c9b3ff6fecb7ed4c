import type { Bone } from "@babylonjs/core/Bones/bone";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { ClimbSequencer, type ClimbStep } from "../../../src/effectors/interaction/climb-sequencer";
import { InteractionSystem } from "../../../src/effectors/interaction/interaction-system";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import {
  armLength,
  arr,
  bonePos,
  type Ctx,
  cylinderBetween,
  frameCamera,
  type Json,
  mat,
  type ScenarioRun,
  worldPos,
  type Scenario,
} from "../kit";

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const lShoulder = bonePos(r.leftUpperArm);
  const rShoulder = bonePos(r.rightUpperArm);
  const L = armLength(c, true);
  const ankleY = (bonePos(r.leftFoot).y + bonePos(r.rightFoot).y) / 2;
  const chestFront = lShoulder
    .add(rShoulder)
    .scale(0.5)
    .add(forward.scale(0.45 * L));
  const spacing = 0.1 * h;
  const holdNode = (side: Vector3, k: number, label: string) => {
    const n = new TransformNode(`rung ${k} ${label}`, scene);
    n.position.set(side.x, ankleY + k * spacing, side.z);
    n.rotationQuaternion = Quaternion.Identity();
    return n;
  };
  const lateral = (p: Vector3, scale: number) => {
    const cc = lShoulder.add(rShoulder).scale(0.5);
    const d = p.subtract(cc);
    const along = forward.scale(Vector3.Dot(d, forward));
    const across = d.subtract(along);
    across.y = 0;
    return chestFront.add(across.scale(scale));
  };
  const lHandX = lateral(lShoulder, 0.8);
  const rHandX = lateral(rShoulder, 0.8);
  const lFootX = bonePos(r.leftFoot).add(forward.scale(0.04 * h));
  const rFootX = bonePos(r.rightFoot).add(forward.scale(0.04 * h));
  const k0 = Math.round((lShoulder.y - 0.12 * h - ankleY) / spacing);
  const RUNGS = 3;
  const holds = (x: Vector3, label: string, from: number) =>
    Array.from({ length: RUNGS + 1 }, (_, i) => holdNode(x, from + i, label));
  const lh = holds(lHandX, "L hand", k0);
  const rh = holds(rHandX, "R hand", k0);
  const lf = holds(lFootX, "L foot", 1);
  const rf = holds(rFootX, "R foot", 1);
  // the ladder: rungs at the holds' heights, two rails through the left and right holds (plus a bit)
  const wood = mat(scene, "ladder", new Color3(0.6, 0.45, 0.25));
  const beam = (name: string, from: Vector3, to: Vector3, diameter: number, extra: number) => {
    const cyl = cylinderBetween(scene, name, from, to, diameter, extra);
    cyl.material = wood;
    ctx.shadows.addShadowCaster(cyl, false);
  };
  // rungs through each pair of holds, a bit longer than the span
  for (let i = 0; i <= RUNGS; i++) {
    for (const [a, b] of [
      [lh[i]!, rh[i]!],
      [lf[i]!, rf[i]!],
    ] as const)
      beam("rung", worldPos(a), worldPos(b), 0.03 * h, 0.1 * h);
  }
  // rails: from below the lowest foot rung to above the top hand rung, along each side
  const side = (lst: TransformNode[], lst2: TransformNode[], out: number) => {
    const a = worldPos(lst[0]!).add(c.right.scale(out * 0.05 * h));
    const b = worldPos(lst2[RUNGS]!).add(c.right.scale(out * 0.05 * h));
    const dir = b.subtract(a).normalize();
    const from = a.subtract(dir.scale(a.y / Math.max(0.2, dir.y)));
    const to = b.add(dir.scale(0.1 * h));
    beam("rail", from, to, 0.04 * h, 0);
  };
  side(lf, lh, -1);
  side(rf, rh, 1);

  const { LeftHand: LH, RightHand: RH, LeftFoot: LF, RightFoot: RF } = FullBodyBipedEffector;
  const T = 0.7;
  const steps: ClimbStep[] = [
    { time: 0, limb: LH, hold: lh[0]! },
    { time: 0, limb: RH, hold: rh[0]! },
    { time: 0, limb: LF, hold: lf[0]! },
    { time: 0, limb: RF, hold: rf[0]! },
  ];
  const order: [FullBodyBipedEffector, TransformNode[]][] = [
    [RH, rh],
    [LF, lf],
    [LH, lh],
    [RF, rf],
  ];
  for (let rung = 1; rung <= RUNGS; rung++)
    order.forEach(([limb, list], i) =>
      steps.push({ time: 0.8 + T * (4 * (rung - 1) + i + 1), limb, hold: list[rung]! }),
    );
  const bones: Record<number, Bone> = { [LH]: r.leftHand, [RH]: r.rightHand, [LF]: r.leftFoot, [RF]: r.rightFoot };
  const limbName: Record<number, string> = { [LH]: "leftHand", [RH]: "rightHand", [LF]: "leftFoot", [RF]: "rightFoot" };
  let system: InteractionSystem | null = null;
  let seq: ClimbSequencer | null = null;
  let restart = 0;
  let loops = 0;
  let finished = false;
  // frames measured (after the solve), to order the recorded moments
  let frame = 0;
  // per limb: the worst bone-to-hold distance while it holds (paused at full weight)
  const worst: Record<string, { hold: number; frames: number; holds: string[] }> = {};
  for (const l of [LH, RH, LF, RF]) worst[limbName[l]!] = { hold: 0, frames: 0, holds: [] };
  // per limb: its hold on the last rung (where the climb ends)
  const top: { [k: string]: Json } = {};
  for (const [limb, list] of order) top[limbName[limb]!] = list[RUNGS]!.name;
  const pelvisStart = bonePos(r.pelvis);
  const holdState = () => {
    const out: { [k: string]: Json } = {};
    for (const limb of [LH, RH, LF, RF]) {
      const hold = seq?.getHold(limb) ?? null;
      const holding =
        hold !== null && system?.isPaused(limb) === true && system.getInteractionEffector(limb).weight >= 1;
      out[limbName[limb]!] = {
        bone: arr(bonePos(bones[limb]!)),
        hold: hold === null ? null : arr(worldPos(hold)),
        holdName: hold?.name ?? null,
        holding,
      };
    }
    return out;
  };
  const startClimb = () => {
    seq?.dispose();
    system?.dispose();
    system = new InteractionSystem(ik);
    seq = new ClimbSequencer(system, { steps, moveTime: 0.45, liftHeight: 0.03 * h });
    seq.onFinished.add(() => {
      if (loops++ === 0) finished = true;
      restart = 1.5;
    });
    seq.start();
  };
  startClimb();
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({ limbs: holdState(), height: h }),
    after: () => {
      // after this frame's solve: every limb paused on its hold at full weight (until the checks are recorded)
      const sys = system;
      if (run.done || seq === null || sys === null) return;
      frame++;
      let all = true;
      for (const limb of [LH, RH, LF, RF]) {
        const hold = seq.getHold(limb);
        if (hold === null || !sys.isPaused(limb) || sys.getInteractionEffector(limb).weight < 1) {
          all = false;
          continue;
        }
        const p = bonePos(bones[limb]!);
        const w = worst[limbName[limb]!]!;
        w.hold = Math.max(w.hold, Vector3.Distance(p, worldPos(hold)));
        w.frames++;
        if (!w.holds.includes(hold.name)) w.holds.push(hold.name);
      }
      // a moment with all four on holds, above the first rung
      if (all && loops === 0 && run.checks.allHolding === undefined && (seq.getHold(RH)?.name ?? "") !== rh[0]!.name)
        run.checks.allHolding = { frame, limbs: holdState() };
      if (finished && all) {
        // the top, after this frame's solve: every limb on the last rung's holds, the body carried up
        finished = false;
        run.checks.finish = {
          frame,
          limbs: holdState(),
          top,
          pelvisStart: arr(pelvisStart),
          pelvis: arr(bonePos(r.pelvis)),
          spacing,
          rungsClimbed: RUNGS,
          height: h,
        };
        run.checks.worst = worst as unknown as Json;
        run.done = run.checks.allHolding !== undefined;
      }
    },
    update: (dt) => {
      if (restart > 0) {
        restart -= dt;
        if (restart <= 0) startClimb();
      }
    },
    dispose: () => {
      seq?.dispose();
      system?.dispose();
    },
  };
  // from behind and to the side: the back of the climber, hands and feet on the rungs beyond
  frameCamera(ctx, c, new Vector3(0, 0.85 * h, 0).add(forward.scale(0.25 * h)), 4.6 * h, 1, -0.8);
  ctx.camera.beta = 1.25;
  return run;
}

export const climb: Scenario = {
  name: "climb",
  title: "Climb",
  help: "ClimbSequencer: hands and feet go from rung to rung up a ladder; the body follows.",
  build,
};
