/**
 * free: all nine effectors and the four bend goals as the library's draggable handles (EffectorHandles) over
 * the character's idle clip. Hands and feet start pinned (position and rotation) in a pose of their own; the
 * body, shoulders, thighs and bend goals ride on the pose until dragged, which gives them full weight. Both
 * forearms are relaxed (TwistRelaxer): a hand turned about a held elbow's forearm twists the forearm half as much.
 */
import type { Bone } from "@babylonjs/core/Bones/bone";
import { Space } from "@babylonjs/core/Maths/math.axis";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { type EffectorHandle, type EffectorHandleKind, EffectorHandles } from "../../../src/babylon/effector-handles";
import type { BabylonEffector } from "../../../src/babylon/babylon-effector";
import { TwistRelaxer } from "../../../src/babylon/twist-relaxer";
import { bodyColliders } from "../body-colliders";
import { checkbox, choice } from "../controls";
import { frameWhole } from "../framing";
import {
  armLength,
  arr,
  bonePos,
  boneRotation,
  type Ctx,
  playClip,
  type Scenario,
  type ScenarioRun,
  worldPos,
} from "../kit";
import { type LegendItem, legend } from "../props/legend";

/** The legend's lines, in its order: each kind's label. */
const LEGEND: readonly (readonly [EffectorHandleKind, string])[] = [
  ["hand", "hands"],
  ["foot", "feet"],
  ["body", "body"],
  ["shoulder", "shoulders"],
  ["thigh", "thighs"],
  ["bendGoal", "bend goals"],
];

/** A bone's world rotation as `[x, y, z, w]`. */
const quat = (bone: Bone) => {
  const q = boneRotation(bone);
  return [q.x, q.y, q.z, q.w];
};

/** Turns `node` (no parent) in world space by the shortest arc from direction `from` to direction `to`. */
function swingWith(node: TransformNode, from: Vector3, to: Vector3): void {
  const [a, b] = [from.normalizeToNew(), to.normalizeToNew()];
  const axis = Vector3.Cross(a, b);
  if (axis.length() < 1e-9) return;
  node.rotate(axis.normalize(), Math.acos(Math.min(1, Vector3.Dot(a, b))), Space.WORLD);
}

/** The handles' diameter on screen (a fraction of the view's height): the library's 0.03 is small at 1280×720. */
const SIZE = 0.04;

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  playClip(c, "Idle_Loop");
  const { ik, h, forward: f, right: rt } = c;
  const s = ik.solver;
  const r = ik.references;
  const scene = ctx.scene;
  const up = Vector3.Up();

  // the starting pose, set before the handles are made: their reset (the panel's "reset all") comes back to it.
  // The left hand up in front, the right hand out to the side, the left foot raised and out, the right one stays
  const L = armLength(c, true);
  // `bone`'s position moved `x` to the right, `y` up and `z` forward
  const at = (bone: Bone, x: number, y: number, z: number) =>
    bonePos(bone).add(rt.scale(x)).add(up.scale(y)).add(f.scale(z));
  const poses: [BabylonEffector, Bone, Vector3, Bone | null][] = [
    [s.leftHandEffector, r.leftHand, at(r.leftUpperArm, 0, 0.3 * L, 0.55 * L), r.leftUpperArm],
    [s.rightHandEffector, r.rightHand, at(r.rightHand, 0.25 * L, 0, 0.2 * L), r.rightUpperArm],
    [s.leftFootEffector, r.leftFoot, at(r.leftFoot, -0.05 * h, 0.1 * h, 0.12 * h), null],
    [s.rightFootEffector, r.rightFoot, at(r.rightFoot, 0, 0, 0), null],
  ];
  const starts = poses.map(([effector, bone, where, shoulder]) => {
    const t = new TransformNode(`${bone.name} start`, scene);
    t.position.copyFrom(where);
    t.rotationQuaternion = boneRotation(bone);
    // a hand turns with its arm (shoulder to hand), keeping its angle to it: the hanging hand's own turn, raised
    // in front, folded UAL's wrist back 173° (now 56°), where a turn about the forearm is no twist of the wrist
    if (shoulder !== null) swingWith(t, bonePos(bone).subtract(bonePos(shoulder)), where.subtract(bonePos(shoulder)));
    effector.target = t;
    effector.positionWeight = 1;
    effector.rotationWeight = 1;
    return t;
  });
  const handles = EffectorHandles.create(ik, { size: SIZE });
  // a hand turned with its gizmo twists the wrist alone, and the skin there pinches: each forearm takes half of
  // it (disposed with the IK; the panel's IK switch turns them off with it). Weight 0, not `enabled`, is the
  // panel's "relax forearms" off, so that the IK switch does not turn them back on
  const relax = TwistRelaxer.createForArms(ik);
  const relaxers = [relax.left, relax.right];
  ctx.components.push(...relaxers);
  const relaxed = () => relax.left.solver.weight > 0;
  const setRelaxed = (on: boolean) => {
    for (const x of relaxers) x.solver.weight = on ? 1 : 0;
  };
  const body = bodyColliders(c);
  const leftHand = handles.find("left hand");
  // the whole body and the raised hand in view, a little from the character's right
  frameWhole(ctx, c, 1.35, 0.45);

  // the panel's effector and chain lists follow the selected handle: a bend goal's limb, and no effector
  const selection = (x: EffectorHandle) => {
    const effector = x.effector === null ? null : s.effectors.indexOf(x.effector);
    const chain =
      x.bendConstraint !== null
        ? s.limbChains.findIndex((ch) => ch.bendConstraint === x.bendConstraint)
        : effector !== null && effector >= 5
          ? effector - 5
          : null;
    return { effector, chain };
  };
  handles.onSelectObservable.add((x) => {
    if (x !== null) run.onSelect?.(selection(x));
  });
  // a first drag gives the handle weight: the panel's sliders show it
  handles.onGrabObservable.add((x) => run.onSelect?.(selection(x)));

  let frames = 0;
  const run: ScenarioRun = {
    checks: {},
    done: false,
    onSelect: null,
    effectorHandles: handles,
    world: () => ({
      handles: Object.fromEntries(handles.handles.map((x) => [x.name, arr(worldPos(x.mesh))])),
      // the colour each handle is meant to show (its legend swatch's); the e2e test reads the pixels against it
      colors: Object.fromEntries(handles.handles.map((x) => [x.name, x.color.toHexString()])),
      leftHand: arr(bonePos(r.leftHand)),
      // the left arm's world rotations and the forearm's ends: the e2e test measures the twist from them
      leftArm: {
        upper: quat(r.leftUpperArm),
        forearm: quat(r.leftForearm),
        hand: quat(r.leftHand),
        elbow: arr(bonePos(r.leftForearm)),
        wrist: arr(bonePos(r.leftHand)),
      },
      relaxed: relaxed(),
      rightHand: arr(bonePos(r.rightHand)),
      body: arr(bonePos(r.pelvis)),
      rootNode: arr(bonePos(ik.rootNode)),
      // what the arrows do, not what the switch says
      gizmoWorld: handles.positionGizmo.xGizmo.updateGizmoRotationToMatchAttachedMesh === false,
      selected: handles.selected?.name ?? null,
      colliders: body.world(),
      height: h,
    }),
    select: (sel) => {
      // the panel chose an effector, or a chain (its end effector): the gizmos go to its handle
      const type = sel.effector ?? (sel.chain !== null ? sel.chain + 5 : null);
      const x = handles.handles.find((y) => y.effector !== null && s.effectors.indexOf(y.effector) === type);
      if (x !== undefined) handles.select(x);
    },
    after: () => {
      if (++frames === 40) {
        run.checks.leftHand = { bone: arr(bonePos(r.leftHand)), handle: arr(worldPos(leftHand.mesh)), height: h };
        run.done = true;
      }
    },
    panel: (el) => {
      const items: LegendItem[] = LEGEND.map(([kind, label]) => ({
        label,
        color: handles.handles.find((x) => x.kind === kind)!.color,
        shape: kind === "bendGoal" ? "square" : "round",
      }));
      const axes = choice("gizmo axes", "gizmo-axes", ["world", "local"], handles.axes === "world" ? 0 : 1, (i) => {
        handles.axes = i === 0 ? "world" : "local";
      });
      const hint = document.createElement("div");
      hint.className = "hint";
      hint.textContent =
        "Click a handle, drag its gizmo; hands, feet and the body also turn. A faint handle rides on the pose " +
        "and pulls once dragged. With body colliders, a hand dragged into the body stops on it. Drag an elbow's " +
        "green box, then turn its hand: relaxed forearms share the wrist's twist.";
      // a hand dragged into the body stops on its surface (FBBIKColliders on the chest and pelvis)
      const colliders = checkbox(
        "body colliders",
        "free-colliders",
        () => body.colliders.enabled,
        (v) => (body.colliders.enabled = v),
      );
      colliders.title = "FBBIKColliders: capsules on the chest and pelvis keep the hands out of the body";
      const forearms = checkbox("relax forearms", "free-relax", relaxed, setRelaxed);
      forearms.title =
        "TwistRelaxer: each forearm takes half of its hand's twist, so a turned wrist does not pinch like a candy " +
        "wrapper; off, the wrist twists alone. Hold the elbow (drag its green box) to see it: else the whole arm turns";
      el.append(legend(items), axes.el, forearms, colliders, hint);
    },
    // the weights the panel restored, the handles back on the starting pose (the targets they found), the
    // panel's own switches as built
    reset: () => {
      handles.reset();
      handles.axes = "world";
      body.colliders.enabled = false;
      setRelaxed(true);
    },
    dispose: () => {
      handles.dispose();
      body.colliders.dispose();
      for (const t of starts) t.dispose();
    },
  };
  return run;
}

export const free: Scenario = {
  name: "free",
  title: "Free: all nine effectors",
  help:
    "Click a handle and drag its gizmo: hands and feet move and turn, the body, shoulders and thighs pull " +
    "the torso, green boxes bend elbows and knees; the rest of the body follows.",
  build,
};
