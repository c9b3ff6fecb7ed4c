/**
 * biped: BipedIK (FinalIK's lighter biped IK: a LimbIK per hand and foot, a FABRIK spine, AimIK, LookAtIK, a pelvis)
 * instead of the FullBodyBipedIK `spawn` attaches, which is disposed first (the two never drive one character). On
 * the model's idle clip: each palm lies on a ball the user drags, facing its centre (the hand's rotation from the
 * ball's normal where the palm touches it), the feet stay where the first frame put them, the head follows a third
 * ball. The balls sway by themselves until one is dragged. The checks record the palms against the balls' surface,
 * the head's forward against the look ball and the feet against their planted spots.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { BipedIK } from "../../../src/babylon/biped-ik";
import type { LimbIK } from "../../../src/babylon/limb-ik";
import { IKUpdateOrder, SceneUpdater, type SceneUpdatable } from "../../../src/babylon/scene-updater";
import { checkbox, propSlider, section } from "../controls";
import { detachFullBodyIK } from "../dispose-character";
import { framePoints } from "../frame-box";
import { outline, visibleHeight } from "../framing";
import type { Ctx, Json, Scenario, ScenarioRun } from "../kit";
import { armLength, arr, bonePos, boneRotation, frameCamera, playClip } from "../kit";
import { type Palm, measurePalm, openFingers, palmNow, palmOnBall } from "../props/palm";
import { fingerPoints } from "../props/grip";
import { wrapFingersOnBall } from "../props/palm-wrap";
import { signalMaterial } from "../props/signal";

/** The after-IK frame whose figures the checks record (the balls sway meanwhile). */
const RECORD_FRAME = 30;
/** How far a palm's touch leans from the shoulder's way toward the ball's top (the hand rests on it). */
const FROM_ABOVE = 0.7;
/** How far the fingers open from the clip's pose toward the rest pose's straight ones, the hands' weight at 1. */
const OPEN = 0.85;
/** The look ball's diameter, in the character's height. */
const LOOK_BALL = 0.07;
/** The look ball's sway to either side of the face, in the character's height. */
const SWAY = 0.35;

/** A ball the user drags (on the plane facing the camera), kept above the floor. */
function dragBall(ctx: Ctx, name: string, diameter: number, color: Color3, onDrag: () => void): Mesh {
  const ball = CreateSphere(name, { diameter, segments: 24 }, ctx.scene);
  ball.material = signalMaterial(ctx.scene, name, color);
  ctx.shadows.addShadowCaster(ball, false);
  const drag = new PointerDragBehavior();
  ball.addBehavior(drag);
  drag.onDragStartObservable.add(onDrag);
  return ball;
}

/** The figures of one hand against its ball: the palm's gap to the surface and its normal's angle to the centre. */
function palmFigures(palm: Palm, ball: Mesh, radius: number): { gap: number; angle: number; palm: Json } {
  const p = new Vector3();
  const n = new Vector3();
  palmNow(palm, p, n);
  const toCentre = ball.position.subtract(p);
  const gap = toCentre.length() - radius;
  const cos = Vector3.Dot(n, toCentre.normalize());
  return { gap, angle: (Math.acos(Math.max(-1, Math.min(1, cos))) * 180) / Math.PI, palm: arr(p) };
}

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { h, forward, right, skeleton } = c;
  const scene = ctx.scene;
  const r = c.ik.references;
  // BipedIK refuses a character with a FullBodyBipedIK: the one `spawn` attached goes first
  detachFullBodyIK(ctx, c);
  const biped = BipedIK.create(scene, skeleton);
  c.ikName = "BipedIK";
  const s = biped.solvers;
  // the panel's IK switch fades every part (BipedIK's `enabled` sets them all, at once)
  ctx.components.push(...biped.parts);
  playClip(c, "Idle_Loop") ?? playClip(c, "idle");

  // the palms, measured in the spawn pose (the arms hang), and the head's forward in its own frame
  const nodes = new Set(
    skeleton.bones.map((b: Bone) => b.getTransformNode()).filter((n): n is TransformNode => n !== null),
  );
  const palms = [
    measurePalm(r.leftHand, r.leftForearm, nodes, false, forward, right, h),
    measurePalm(r.rightHand, r.rightForearm, nodes, true, forward, right, h),
  ];
  const head = r.head ?? r.spine[r.spine.length - 1]!;
  const headAxis = forward.applyRotationQuaternion(Quaternion.Inverse(boneRotation(head)));

  // the balls: one a hand in front of each hip, reached from the shoulder; the look ball before the face
  let sway = true;
  const stopSway = () => (sway = false);
  const radius = 0.05 * h;
  const shoulders = [bonePos(r.leftUpperArm), bonePos(r.rightUpperArm)];
  const homes = shoulders.map((sh, i) => {
    const L = armLength(c, i === 0);
    const side = right.scale((i === 0 ? -1 : 1) * 0.2 * L);
    return sh
      .add(forward.scale(0.6 * L))
      .addInPlace(side)
      .addInPlaceFromFloats(0, -0.55 * L, 0);
  });
  const handBalls = homes.map((_, i) =>
    dragBall(ctx, i === 0 ? "left ball" : "right ball", 2 * radius, new Color3(0.15, 0.55, 1), stopSway),
  );
  const face = bonePos(head);
  // a little above the face: seen from the camera's height it would otherwise sway across the hand balls
  const lookHome = face.add(forward.scale(0.75 * h)).addInPlaceFromFloats(0, 0.12 * h, 0);
  const lookBall = dragBall(ctx, "look ball", LOOK_BALL * h, new Color3(1, 0.55, 0.1), stopSway);
  const place = () => {
    handBalls.forEach((b, i) => b.position.copyFrom(homes[i]!));
    lookBall.position.copyFrom(lookHome);
  };
  place();

  // the hands' and feet's targets; the feet's taken from the first animated frame (planted where they stand)
  const target = (name: string) => {
    const t = new TransformNode(name, scene);
    t.rotationQuaternion = new Quaternion();
    return t;
  };
  const hands: [LimbIK, TransformNode][] = [
    [s.leftHand, target("left palm target")],
    [s.rightHand, target("right palm target")],
  ];
  const feet: [LimbIK, TransformNode, Bone][] = [
    [s.leftFoot, target("left foot planted"), r.leftFoot],
    [s.rightFoot, target("right foot planted"), r.rightFoot],
  ];
  for (const [limb, t] of [...hands, ...feet]) {
    limb.target = t;
    limb.solver.ikPositionWeight = 1;
    limb.solver.ikRotationWeight = 1;
  }
  // the elbows bend to the side real arms take for the reach (the hanging arms' own bend plane is arbitrary)
  s.leftHand.solver.bendModifier = "arm";
  s.rightHand.solver.bendModifier = "arm";
  s.lookAt.target = lookBall;
  const look = s.lookAt.solver;
  look.ikPositionWeight = 1;
  look.bodyWeight = 0.3;
  look.headWeight = 1;
  look.clampWeight = 0.5;
  look.clampWeightHead = 0.3;
  const weights = {
    get hands() {
      return s.leftHand.solver.ikPositionWeight;
    },
    set hands(v: number) {
      for (const [limb] of hands) limb.solver.ikPositionWeight = limb.solver.ikRotationWeight = v;
    },
    get feet() {
      return s.leftFoot.solver.ikPositionWeight;
    },
    set feet(v: number) {
      for (const [limb] of feet) limb.solver.ikPositionWeight = limb.solver.ikRotationWeight = v;
    },
  };
  const defaults = () => {
    weights.hands = 1;
    weights.feet = 1;
    look.ikPositionWeight = 1;
    look.bodyWeight = 0.3;
  };

  // after the solve (and the overlay's IK timer), the open fingers curl over the balls: straight, they stuck out
  // a finger's length past them
  const wrap: SceneUpdatable = {
    updateOrder: IKUpdateOrder.Biped + 0.75,
    _beforeAnimations: () => {},
    _beforeRender: () => {
      hands.forEach(([limb], i) => {
        const w = limb.enabled ? limb.solver.ikPositionWeight : 0;
        wrapFingersOnBall(palms[i]!, handBalls[i]!.position, radius, 0.004 * h, w);
      });
    },
  };
  SceneUpdater.for(scene).add(wrap);

  let planted = false;
  let time = 0;
  let frames = 0;
  const toCentre = new Vector3();
  const fingers = new Vector3();
  const figures = (): Json => {
    const hp = bonePos(head);
    const toLook = lookBall.position.subtract(hp).normalize();
    const headForward = headAxis.applyRotationQuaternion(boneRotation(head));
    const headAngle = (Math.acos(Math.max(-1, Math.min(1, Vector3.Dot(headForward, toLook)))) * 180) / Math.PI;
    return {
      palms: palms.map((p, i) => palmFigures(p, handBalls[i]!, radius)),
      head: headAngle,
      feet: feet.map(([, t, bone]) => Vector3.Distance(bonePos(bone), t.position)),
      fromFingers: palms.map((p) => p.fromFingers),
      // each hand's farthest fingertip from its ball's surface (straight fingers stuck out past it)
      tips: palms.map((p, i) =>
        Math.max(
          0,
          ...p.fingerChains.map((ch) => Vector3.Distance(fingerPoints(ch).at(-1)!, handBalls[i]!.position) - radius),
        ),
      ),
      balls: handBalls.map((b) => arr(b.position)),
      look: arr(lookBall.position),
      sway,
      radius,
      height: h,
    };
  };
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => figures(),
    control: (cmd, arg) => {
      // the test hook: the balls' sway on/off
      if (cmd === "sway") sway = arg === true;
      return sway;
    },
    update: (dt) => {
      if (!planted) {
        // the first animated pose: the feet stay there
        for (const [, t, bone] of feet) {
          t.position.copyFrom(bonePos(bone));
          t.rotationQuaternion!.copyFrom(boneRotation(bone));
        }
        planted = true;
      }
      time += dt;
      if (sway) {
        // the hand balls circle a little, out of step; the look ball goes from side to side
        handBalls.forEach((b, i) => {
          const a = 1.4 * time + i * Math.PI;
          b.position.copyFrom(homes[i]!).addInPlace(right.scale(0.04 * h * Math.cos(a)));
          b.position.y += 0.05 * h * Math.sin(a);
        });
        lookBall.position.copyFrom(lookHome).addInPlace(right.scale(-SWAY * h * Math.sin(0.7 * time)));
      }
      // on the floor at the lowest
      for (const b of handBalls) b.position.y = Math.max(b.position.y, radius);
      lookBall.position.y = Math.max(lookBall.position.y, 0.035 * h);
      // each palm on its ball: touched from the shoulder's way, leaning over its top, the fingers onward
      hands.forEach(([limb, t], i) => {
        // the fingers open over the ball as far as the hand is on it (the IK switched off: the clip's)
        if (limb.enabled) openFingers(palms[i]!, OPEN * limb.solver.ikPositionWeight);
        const ball = handBalls[i]!.position;
        ball.subtractToRef(shoulders[i]!, fingers).normalize();
        toCentre.copyFrom(fingers).addInPlaceFromFloats(0, -FROM_ABOVE, 0).normalize();
        palmOnBall(palms[i]!, ball, radius, toCentre, fingers, t.position, t.rotationQuaternion!);
      });
    },
    after: () => {
      if (++frames === RECORD_FRAME) {
        run.checks = { held: figures() };
        run.done = true;
      }
    },
    reset: () => {
      defaults();
      place();
      sway = true;
      time = 0;
    },
    panel: (el) => {
      const sec = section("BipedIK weights");
      const range = [0, 1, 0.05] as const;
      sec.append(
        propSlider(weights, "hands", "hands", range, "biped-hands"),
        propSlider(weights, "feet", "feet", range, "biped-feet"),
        propSlider(look, "ikPositionWeight", "look at", range, "biped-look"),
        propSlider(look, "bodyWeight", "look: body", range, "biped-look-body"),
        checkbox(
          "balls sway",
          "biped-sway",
          () => sway,
          (v) => (sway = v),
        ),
      );
      el.append(sec);
    },
    dispose: () => {
      SceneUpdater.for(scene).remove(wrap);
      biped.dispose();
    },
  };
  // in front, a little to the side: the whole character, every ball and the look ball's sway in view
  const H = visibleHeight(c);
  frameCamera(ctx, c, new Vector3(0, 0.5 * H, 0).add(forward.scale(0.2 * h)), 1.9 * H, 0.45, 1);
  // the look ball's sway whole, its top and bottom too (under the stats overlay, its centre alone left it half hidden)
  const lookRadius = new Vector3(0, 0.5 * LOOK_BALL * h, 0);
  const reach = [right.scale(SWAY * h), right.scale(-SWAY * h)]
    .map((x) => lookHome.add(x))
    .flatMap((p) => [p.add(lookRadius), p.subtract(lookRadius)]);
  framePoints(ctx.camera, [...outline(c), ...homes.flatMap((p) => [p.add(new Vector3(0, radius, 0)), p]), ...reach]);
  return run;
}

export const biped: Scenario = {
  name: "biped",
  title: "BipedIK",
  help:
    "BipedIK, the lighter biped IK (two-bone limbs, no full body): the palms rest on the blue balls, the feet " +
    "stay planted, the head follows the orange ball. Drag any ball.",
  build,
};
