/**
 * climb: a ClimbSequencer on a ladder sized from the character. Hands and feet go rung to rung (one limb at
 * a time, three rungs up, then down again), swinging out to clear the rungs; the sequencer carries the character's
 * root with the holds (its `root` option), so the whole body climbs rung by rung. The hands grip their rungs:
 * each hold turns its hand over the rung (`handRotationWeight`) and the fingers close around it (`gripPose`, wrapped
 * to the rung from the rig: demo/src/props/grip.ts); TwistRelaxer spreads that turn along the forearms. Camera from
 * the front, through the ladder: three quarters where the hands' rungs stay under the head (a chibi's), else as
 * near straight on as the head beside the hands needs.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { ClimbSequencer, type ClimbStep } from "../../../src/effectors/interaction/climb-sequencer";
import { InteractionSystem } from "../../../src/effectors/interaction/interaction-system";
import { TwistRelaxer } from "../../../src/babylon/twist-relaxer";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import { framePoints } from "../frame-box";
import { outline, visibleHeight } from "../framing";
import { type Ladder, ladderCorners, makeLadder } from "../props/ladder";
import { handReach, headBox, toCharacter } from "../head-box";
import type { Character, Ctx, Json, Scenario, ScenarioRun } from "../kit";
import { arr, bonePos, frameCamera, playClip, worldPos } from "../kit";

/** Rungs climbed before coming down; seconds between two moves; seconds per move. */
const CLIMB = 3;
const STEP = 0.55;
const MOVE = 0.45;

/**
 * How far to the character's right the camera stands per unit ahead (tan of its bearing from the front). Three
 * quarters (0.45) where the hands' rungs stay under the head (a chibi's); where they pass beside it (a realistic
 * head, as high as the top rungs), the head hid the far hand from there in up to a third of the climb (Xbot's, 18
 * of 57 samples): the bearing at which the line of sight grazing the head's side still clears the fist, straight
 * on if none does (Xbot's and the UAL's; the Soldier's hands pass under its head).
 */
function viewSide(c: Character, ladder: Ladder): number {
  const box = headBox(c);
  const r = c.ik.references;
  const holds = ladder.hands.slice(ladder.handStart, ladder.handStart + 2).flatMap((pair) => pair.map(worldPos));
  const at = holds.map((p) => toCharacter(c, p));
  if (Math.max(...at.map((p) => p.y)) < box.lo.y) return 0.45;
  const reach = Math.max(handReach(c, r.leftHand), handReach(c, r.rightHand));
  const gap = Math.min(...at.map((p) => Math.abs(p.x))) - Math.max(-box.lo.x, box.hi.x) - reach;
  return Math.min(0.45, Math.max(0, gap / (box.hi.z - box.lo.z)));
}

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward } = c;
  const r = ik.references;
  playClip(c, "Idle_Loop");
  const ladder = makeLadder(ctx, c, CLIMB);
  const { LeftHand: LH, RightHand: RH, LeftFoot: LF, RightFoot: RF } = FullBodyBipedEffector;
  const k0 = ladder.handStart;
  // the limbs in climbing order: each its holds per rung and its first rung
  const limbs: { limb: FullBodyBipedEffector; holds: TransformNode[]; first: number; bone: Bone; name: string }[] = [
    { limb: RH, holds: ladder.hands.map((p) => p[1]!), first: k0, bone: r.rightHand, name: "rightHand" },
    { limb: LF, holds: ladder.feet.map((p) => p[0]!), first: 0, bone: r.leftFoot, name: "leftFoot" },
    { limb: LH, holds: ladder.hands.map((p) => p[0]!), first: k0, bone: r.leftHand, name: "leftHand" },
    { limb: RF, holds: ladder.feet.map((p) => p[1]!), first: 0, bone: r.rightFoot, name: "rightFoot" },
  ];
  // the script: every limb to its first hold, up CLIMB rungs one limb at a time, a pause, and down again
  const steps: ClimbStep[] = limbs.map((l) => ({ time: 0, limb: l.limb, hold: l.holds[l.first]! }));
  let time = 0.6;
  for (let k = 1; k <= CLIMB; k++)
    for (const l of limbs) steps.push({ time: (time += STEP), limb: l.limb, hold: l.holds[l.first + k]! });
  time += 1.2;
  for (let k = CLIMB - 1; k >= 0; k--)
    for (const l of [...limbs].reverse())
      steps.push({ time: (time += STEP), limb: l.limb, hold: l.holds[l.first + k]! });
  // the feet carry the body: a hand a rung ahead pulls less, so it does not lift a foot off its rung
  ik.solver.leftArmChain.pull = 0.5;
  ik.solver.rightArmChain.pull = 0.5;
  const system = new InteractionSystem(ik);
  // each grip turns its hand over the rung, twisting the wrist 100° on average (up to 180°): each forearm takes
  // half of it (disposed with the IK, switched with it)
  const relax = TwistRelaxer.createForArms(ik);
  ctx.components.push(relax.left, relax.right);
  // the root climbs with the holds (the animation plays from the climbing height), not the body effector: pulled
  // toward the holds' centre, it lifts a long-legged character's lower foot off its rung (Xbot); each moving
  // limb swings out from the ladder so fingers and toes clear the rungs
  // both hands' closed fingers under one pose root (the hand posers match their fingers by name); the feet keep
  // the animation's turn, the hands take their holds' (the grip's)
  // (none for hands without fingers, the Mannequin's: the holds then get no PoserWeight curve to warn of)
  const posed = ladder.grips.filter((g) => g.pose !== null);
  const gripPose = posed.length > 0 ? new TransformNode("rung grip", ctx.scene) : null;
  for (const g of posed) g.pose!.parent = gripPose;
  const seq = new ClimbSequencer(system, {
    steps,
    moveTime: MOVE,
    liftHeight: 0.04 * h,
    bodyWeight: 0,
    root: c.root,
    swingBack: 0.08 * h,
    handRotationWeight: 1,
    gripPose,
  });
  let restart = 0;
  let loop = 0;
  seq.onFinishedObservable.add(() => {
    loop++;
    restart = 1.2;
  });
  seq.start();

  // from the front, through the ladder: the hands and feet on the rungs before the body (from the side and
  // behind, the head hid the far hand: a chibi's both, realistic figures' the left one a third of the time)
  const tall = visibleHeight(c);
  const side = viewSide(c, ladder);
  frameCamera(ctx, c, new Vector3(0, 0.6 * tall, 0).add(forward.scale(0.1 * h)), 2.3 * tall, side, 1);
  // straight on, a higher view (30° above the horizon) keeps the depth: the rungs before the body, the feet on them
  // from above; at 16° or 24° the rungs hid more of a slim figure (Xbot: 7.1 %, 7.9 % of its box drawn; 8.5 % now)
  ctx.camera.beta = side < 0.2 ? 1.05 : 1.3;
  // the whole climb in view, clear of the panel, at any aspect: the ladder to its top, the character at the
  // start and at the top (a camera following the climb lost the ladder's top, at the bottom on every model)
  const top = CLIMB * ladder.spacing;
  const atTop = forward.scale(ladder.lean * top).addInPlaceFromFloats(0, top, 0);
  const body = outline(c);
  framePoints(ctx.camera, [...ladderCorners(ladder), ...body, ...body.map((p) => p.add(atTop))]);
  // where the pelvis is once all four hold, the feet on the first rung
  let pelvisStart: Vector3 | null = null;
  const holding = (limb: FullBodyBipedEffector) =>
    system.isPaused(limb) && system.getInteractionEffector(limb).weight >= 1 && seq.getHold(limb) !== null;
  const state = (): Json => {
    const out: { [k: string]: Json } = {};
    for (const l of limbs) {
      const hold = seq.getHold(l.limb);
      out[l.name] = {
        bone: arr(bonePos(l.bone)),
        hold: hold === null ? null : arr(worldPos(hold)),
        holdName: hold?.name ?? null,
        rung: hold === null ? null : l.holds.indexOf(hold),
        holding: holding(l.limb),
      };
    }
    return out;
  };
  // per limb: the worst bone-to-hold distance while holding, and the holds it held
  const worst: Record<string, { hold: number; frames: number; holds: string[] }> = {};
  for (const l of limbs) worst[l.name] = { hold: 0, frames: 0, holds: [] };
  let frame = 0;
  /** The pelvis' lowest and highest point since all four first held (NaN, once there, stays). */
  const pelvisRange = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  /** The pelvis' largest move between two frames since then (a restart or a rung out of reach once popped). */
  let pelvisJump = 0;
  let pelvisLast: Vector3 | null = null;
  /** The worst hand or foot to hold distance while holding, over every climb (the checks cover the first). */
  let holdWorst = 0;
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      limbs: state(),
      height: h,
      loops: loop,
      pelvisRange: [...pelvisRange],
      pelvisJump,
      holdWorst,
    }),
    update: (dt) => {
      system.speed = ctx.paused() ? 0 : 1;
      if (ctx.paused()) return;
      // a restart keeps every limb on its hold; the root moves on from where the climb left it
      if (restart > 0 && (restart -= dt) <= 0) seq.start();
    },
    after: () => {
      if (pelvisStart !== null) {
        const p = bonePos(r.pelvis);
        pelvisRange[0] = Math.min(pelvisRange[0]!, p.y);
        pelvisRange[1] = Math.max(pelvisRange[1]!, p.y);
        if (pelvisLast !== null) pelvisJump = Math.max(pelvisJump, Vector3.Distance(p, pelvisLast));
        pelvisLast = p;
      }
      if (!run.done) frame++;
      let all = true;
      for (const l of limbs) {
        const hold = seq.getHold(l.limb);
        if (hold === null || !holding(l.limb)) {
          all = false;
          continue;
        }
        const d = Vector3.Distance(bonePos(l.bone), worldPos(hold));
        holdWorst = Math.max(holdWorst, d);
        if (run.done) continue;
        const w = worst[l.name]!;
        w.hold = Math.max(w.hold, d);
        w.frames++;
        if (!w.holds.includes(hold.name)) w.holds.push(hold.name);
      }
      if (run.done || !all || loop > 0) return;
      const rungs = limbs.map((l) => l.holds.indexOf(seq.getHold(l.limb)!) - l.first);
      const feetDown = limbs.every((l, i) => (l.limb !== LF && l.limb !== RF) || rungs[i] === 0);
      if (pelvisStart === null && feetDown) pelvisStart = bonePos(r.pelvis);
      // all four holding on the way up, then all four on the top rungs
      if (run.checks.allHolding === undefined && rungs.some((k) => k > 0) && rungs.some((k) => k < CLIMB))
        run.checks.allHolding = { frame, limbs: state() };
      if (run.checks.top === undefined && pelvisStart !== null && rungs.every((k) => k === CLIMB)) {
        run.checks.top = {
          frame,
          limbs: state(),
          pelvisStart: arr(pelvisStart),
          pelvis: arr(bonePos(r.pelvis)),
          rungs,
          spacing: ladder.spacing,
          rungsClimbed: CLIMB,
          height: h,
        };
        run.checks.worst = worst as unknown as Json;
        run.done = run.checks.allHolding !== undefined;
      }
    },
    dispose: () => {
      seq.dispose();
      system.dispose();
    },
  };
  return run;
}

export const climb: Scenario = {
  name: "climb",
  title: "Climb",
  help:
    "ClimbSequencer: hands and feet go rung to rung, one at a time, swinging clear of the rungs; the character's " +
    "root climbs with the holds, three rungs up and back down.",
  build,
};
