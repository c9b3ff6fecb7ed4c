/**
 * vr: a VR-style body from three trackers. FBBIKHeadEffector puts the head on the headset (the body crouches,
 * leans and turns under it) and the hand effectors put the hands on the controllers; the feet stay planted.
 * A scripted motion plays until a tracker is dragged.
 */
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import { CreateTorus } from "@babylonjs/core/Meshes/Builders/torusBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import type { Bone } from "@babylonjs/core/Bones/bone";
import { createTrackerTarget } from "../../../src/babylon/tracker-target";
import { FBBIKHeadEffector } from "../../../src/effectors/head/fbbik-head-effector";
import { checkbox, slider } from "../controls";
import {
  armLength,
  arr,
  bonePos,
  boneRotation,
  type Ctx,
  type Json,
  playClip,
  type Scenario,
  type ScenarioRun,
  legLength,
  worldPos,
} from "../kit";
import { frameWhole } from "../framing";
import { behindHeadBox, handReach, headBox, toWorld } from "../head-box";
import { legend } from "../props/legend";
import { signalMaterial } from "../props/signal";
import { onTop, trackerGizmos } from "../props/tracker-gizmos";

const HEADSET = new Color3(0.25, 0.9, 1);
const LEFT = new Color3(1, 0.55, 0.1);
const RIGHT = new Color3(1, 0.2, 0.45);

/** Gives `node` (under a parent) the world rotation `q`, keeping its place. */
function setWorldRotation(node: TransformNode, q: Quaternion): void {
  const parent = node.parent as TransformNode;
  node.setParent(null);
  node.rotationQuaternion = q;
  node.setParent(parent);
}

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  playClip(c, "Idle_Loop");
  const { ik, h, forward, right } = c;
  const s = ik.solver;
  const r = ik.references;
  const scene = ctx.scene;
  const up = Vector3.Up();
  // the character's frame: local x to its side, y up, z forward
  const facing = Quaternion.RotationQuaternionFromAxis(Vector3.Cross(up, forward), up, forward);

  // the headset: a visor box on the face at the eyes, a little wider than the head's skin (a chibi's head is
  // far bigger and higher than its head bone says, its face low on it), no deeper than a realistic one's; its
  // back sunk a quarter into the face, which is rounder than the skin's box. The head bone's target hangs under it
  const box = headBox(c);
  const width = 1.1 * (box.hi.x - box.lo.x);
  const thick = Math.min(0.56 * width, 0.07 * h);
  const headset = CreateBox("headset", { width, height: 0.5 * width, depth: thick }, scene);
  headset.material = signalMaterial(scene, "headset", new Color3(0.16, 0.17, 0.2));
  const visor = CreateBox("visor", { width: 0.875 * width, height: 0.375 * width, depth: 0.15 * thick }, scene);
  visor.material = signalMaterial(scene, "visor", HEADSET);
  visor.parent = headset;
  visor.position.z = 0.5 * thick;
  const face = new Vector3(0.5 * (box.lo.x + box.hi.x), box.eyes, box.hi.z + 0.25 * thick);
  headset.position.copyFrom(toWorld(c, face));
  headset.rotationQuaternion = facing.clone();
  const headTarget = createTrackerTarget(headset, r.head!, { name: "head target" });
  const head = FBBIKHeadEffector.create(ik, { target: headTarget, headClampWeight: 0 });
  ctx.components.push(head);

  // the controllers: a grip with a tracking ring, held in front of the chest; the hands' targets hang under them
  const L = armLength(c, true);
  const controllers: [Mesh, TransformNode][] = [];
  for (const [side, hand, upper, color] of [
    [-1, r.leftHand, r.leftUpperArm, LEFT],
    [1, r.rightHand, r.rightUpperArm, RIGHT],
  ] as const) {
    const name = side < 0 ? "left controller" : "right controller";
    const grip = CreateCylinder(name, { height: 0.075 * h, diameter: 0.024 * h, tessellation: 12 }, scene);
    const ring = CreateTorus(`${name} ring`, { diameter: 0.055 * h, thickness: 0.01 * h, tessellation: 20 }, scene);
    ring.parent = grip;
    ring.position.y = 0.045 * h;
    ring.rotation.x = 0.6;
    grip.material = signalMaterial(scene, name, color);
    ring.material = grip.material;
    grip.rotationQuaternion = facing.multiply(Quaternion.RotationAxis(Vector3.Right(), 0.5));
    // the grip in the palm: past the wrist toward the fingers, then the whole controller moved to the front
    const wrist = bonePos(hand);
    const fingers = hand.children.map(bonePos).reduce((a, p) => a.addInPlace(p), Vector3.Zero());
    const palm = hand.children.length > 0 ? fingers.scale(1 / hand.children.length) : wrist;
    grip.position.copyFrom(Vector3.Lerp(wrist, palm, 0.6));
    const target = createTrackerTarget(grip, hand, { name: `${name} target` });
    const front = bonePos(upper)
      .add(forward.scale(0.4 * L))
      .add(up.scale(-0.35 * L))
      .add(right.scale(side * 0.1 * L));
    grip.position.addInPlace(front.subtract(wrist));
    const effector = side < 0 ? s.leftHandEffector : s.rightHandEffector;
    effector.target = target;
    effector.positionWeight = 1;
    // the hands take the controllers' rotation once the arms have settled on them (see `after`)
    effector.rotationWeight = 0;
    controllers.push([grip, target]);
  }
  // the feet stay where they stand (a VR user's real feet); the headset leads the body, the hands reach from
  // it: with the arms' pull (1), controllers dragged 2.5 m out tore the feet 1.7 m off the floor
  s.leftArmChain.pull = s.rightArmChain.pull = 0;
  const pins: [Bone, TransformNode][] = [];
  for (const [e, foot] of [
    [s.leftFootEffector, r.leftFoot],
    [s.rightFootEffector, r.rightFoot],
  ] as const) {
    const pin = new TransformNode(`pin ${foot.name}`, scene);
    pin.position.copyFrom(bonePos(foot));
    pin.rotationQuaternion = boneRotation(foot);
    e.target = pin;
    e.positionWeight = 1;
    e.rotationWeight = 1;
    pins.push([foot, pin]);
  }
  const trackers = [headset, controllers[0]![0], controllers[1]![0]];
  // from the front left, on the waving hand's side: seen from the right, the body's turn to its left (yaw −0.4
  // to −0.55) swung the left hand back, at the top of its wave, behind a chibi's head (8 % of the script's poses)
  // the view now: the controllers go lower, and the left one waves less high, until neither hides behind the
  // head at either end of its motion (a chibi's head overhangs its chest; a realistic figure's never hides them)
  frameWhole(ctx, c, 1.35, -0.6);
  const fistReach = Math.max(...[r.leftHand, r.rightHand].map((b) => handReach(c, b)));
  let rise = 0.35 * L;
  for (let k = 0; k < 8; k++) {
    const [leftAt, rightAt] = [trackers[1]!.position, trackers[2]!.position];
    const ends = [
      leftAt,
      leftAt.add(up.scale(rise)).addInPlace(right.scale((-0.15 * L * rise) / (0.35 * L))),
      rightAt,
      rightAt.add(forward.scale(0.3 * L)),
    ];
    if (!ends.some((p) => behindHeadBox(ctx.camera, c, box, p, 0.1 * fistReach))) break;
    for (const m of trackers.slice(1)) m.position.y -= 0.05 * L;
    rise -= 0.025 * L;
  }
  for (const m of trackers) onTop(m);
  const home = trackers.map((m) => ({ p: m.position.clone(), q: m.rotationQuaternion!.clone() }));

  // the script: crouch, lean and turn under the headset; the left hand waves, the right one reaches. The deepest
  // crouch stays where the head still reaches the headset: below 0.72–0.79 of the legs' length (measured on the
  // menu's models) minKneeAngle stops the legs' fold and the headset would sink to the chest
  const depth = 0.68 * legLength(c);
  let script = true;
  let t = 0;
  const yaw = new Quaternion();
  const offset = new Vector3();
  const tmp = new Vector3();
  const pose = (time: number) => {
    const crouch = 0.5 - 0.5 * Math.cos((2 * Math.PI * time) / 6);
    Quaternion.RotationAxisToRef(up, 0.55 * Math.sin((2 * Math.PI * time) / 9), yaw);
    offset.set(0, -depth * crouch, 0);
    offset.addInPlace(right.scale(0.08 * h * Math.sin((2 * Math.PI * time) / 7)));
    offset.addInPlace(forward.scale(0.06 * h * crouch));
    trackers.forEach((m, i) => {
      // each tracker keeps its place relative to the headset, turned with it
      home[i]!.p.subtractToRef(home[0]!.p, tmp);
      tmp.rotateByQuaternionToRef(yaw, tmp);
      m.position.copyFrom(home[0]!.p).addInPlace(offset).addInPlace(tmp);
      yaw.multiplyToRef(home[i]!.q, m.rotationQuaternion!);
    });
    const wave = Math.sin((2 * Math.PI * time) / 2.5);
    trackers[1]!.position
      .addInPlace(up.scale(rise * wave))
      .addInPlace(right.scale((-0.15 * L * rise * wave) / (0.35 * L)));
    const reach = 0.5 - 0.5 * Math.cos((2 * Math.PI * time) / 4);
    trackers[2]!.position.addInPlace(forward.scale(0.3 * L * reach).rotateByQuaternionToRef(yaw, tmp));
  };
  const gizmos = trackerGizmos(scene, trackers, () => setScript(false));
  const setScript = (on: boolean) => {
    script = on;
    const box = document.getElementById("vr-script") as HTMLInputElement | null;
    if (box !== null) box.checked = on;
  };

  // the knees' lead: how far each knee stands ahead of its thigh-to-ankle line (× h; negative: bent backward)
  const legs = [
    [r.leftThigh, r.leftCalf, r.leftFoot],
    [r.rightThigh, r.rightCalf, r.rightFoot],
  ] as const;
  const kneesAhead = (): number[] =>
    legs.map(([thigh, calf, foot]) => {
      const mid = bonePos(thigh).add(bonePos(foot)).scale(0.5);
      return Vector3.Dot(bonePos(calf).subtract(mid), forward) / h;
    });
  // the largest move of any bone in one frame since the scenario began or `control('jumps')` (× h): a flip of the
  // legs shows here
  const bones = c.skeleton.bones;
  const last = bones.map(() => new Vector3());
  let jump = 0;
  const trackJumps = (): void => {
    bones.forEach((b, i) => {
      const p = bonePos(b);
      if (frames > 30) jump = Math.max(jump, Vector3.Distance(p, last[i]!) / h);
      last[i]!.copyFrom(p);
    });
  };

  // the key moments for the e2e test: the trackers and the bones they drive, after the solve
  const sample = (): Json => ({
    head: arr(bonePos(r.head!)),
    headTarget: arr(worldPos(headTarget)),
    hands: [arr(bonePos(r.leftHand)), arr(bonePos(r.rightHand))],
    handTargets: controllers.map(([, x]) => arr(worldPos(x))),
    pelvis: arr(bonePos(r.pelvis)),
    pelvisAnimated: c.animated.pelvis !== undefined ? arr(c.animated.pelvis) : null,
    headsetMoved: Vector3.Distance(headset.position, home[0]!.p),
    feetOff: Math.max(...pins.map(([foot, pin]) => Vector3.Distance(bonePos(foot), pin.position))),
    kneesAhead: kneesAhead(),
    jump,
    height: h,
  });
  const moments = [1, 2, 3];
  let frames = 0;
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: sample,
    update: (dt) => {
      if (frames < 3 || !script || ctx.paused()) return;
      t += dt;
      pose(t);
    },
    after: () => {
      if (++frames === 3) {
        // the arms have settled on the controllers: their hands' rotation becomes the controllers' own
        controllers.forEach(([, target], i) => {
          setWorldRotation(target, boneRotation(i === 0 ? r.leftHand : r.rightHand));
          (i === 0 ? s.leftHandEffector : s.rightHandEffector).rotationWeight = 1;
        });
      }
      if (!ctx.paused()) trackJumps();
      const k = Object.keys(run.checks).length;
      if (script && k < moments.length && t >= moments[k]!) {
        run.checks[`t${moments[k]}`] = sample();
        run.done = k + 1 === moments.length;
      }
    },
    control: (cmd, arg) => {
      // `script` on/off; `pose` t: the script's pose at time t; `move` [tracker, right, up, forward] (× height);
      // `jumps`: the largest bone move counts from now
      if (cmd === "script") setScript(arg === true);
      if (cmd === "jumps") jump = 0;
      if (cmd === "pose" && typeof arg === "number") pose(arg);
      if (cmd === "move" && Array.isArray(arg)) {
        const [i, x, y, z] = arg as number[];
        trackers[i!]!.position.addInPlace(
          right
            .scale(x! * h)
            .add(up.scale(y! * h))
            .add(forward.scale(z! * h)),
        );
      }
      return sample();
    },
    panel: (el) => {
      el.append(
        legend([
          { label: "headset", color: HEADSET, shape: "square" },
          { label: "left controller", color: LEFT, shape: "round" },
          { label: "right controller", color: RIGHT, shape: "round" },
        ]),
        checkbox("scripted motion", "vr-script", () => script, setScript),
        slider(
          "head bodyWeight",
          0,
          1,
          0.01,
          () => head.bodyWeight,
          (v) => (head.bodyWeight = v),
          "vr-bodyWeight",
        ),
        gizmos.axesControl(),
      );
    },
    reset: () => {
      trackers.forEach((m, i) => {
        m.position.copyFrom(home[i]!.p);
        m.rotationQuaternion!.copyFrom(home[i]!.q);
      });
      head.bodyWeight = 0.8;
      // the panel's reset restored the parameters as built: the hands had no rotation weight yet
      s.leftHandEffector.rotationWeight = s.rightHandEffector.rotationWeight = frames >= 3 ? 1 : 0;
      t = 0;
      setScript(true);
      gizmos.manager.attachToMesh(null);
      gizmos.resetAxes();
    },
    dispose: () => {
      gizmos.manager.dispose();
      head.dispose();
    },
  };
  return run;
}

export const vr: Scenario = {
  name: "vr",
  title: "VR body: headset and two controllers",
  help:
    "The head follows the headset (FBBIKHeadEffector) and the hands the controllers; the body crouches, " +
    "leans and turns under them. Click a tracker and drag it to take over.",
  build,
};
