/**
 * aim: the model's Pistol_Aim_Neutral clip (or Pistol_Idle_Loop, else the procedural idle) with a box pistol
 * in the right hand. AimIK turns the spine and the right arm so the barrel points at a target the user drags
 * (it wanders by itself until then); a click elsewhere fires a shot: Recoil kicks the hands and shoulders
 * back through the FBBIK, which also keeps the left hand on the gun. AimIK solves before the FBBIK
 * (FinalIK's order for a gun), so the recoil is not aimed away.
 */
import { PointerDragBehavior } from "@babylonjs/core/Behaviors/Meshes/pointerDragBehavior";
import { PointerEventTypes } from "@babylonjs/core/Events/pointerEvents";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Matrix, Vector3 } from "@babylonjs/core/Maths/math.vector";
import { CreateCylinder } from "@babylonjs/core/Meshes/Builders/cylinderBuilder";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { AimIK } from "../../../src/babylon/aim-ik";
import { jointDirection } from "../../../src/babylon/joint-direction";
import { IKUpdateOrder, type SceneUpdatable, SceneUpdater } from "../../../src/babylon/scene-updater";
import { Recoil } from "../../../src/effectors/modifiers/index";
import { FullBodyBipedEffector } from "../../../src/solver/biped-bones";
import { checkbox } from "../controls";
import { framePoints } from "../frame-box";
import { outline } from "../framing";
import { type Ctx, type Json, type Scenario, type ScenarioRun, arr, bonePos, frameCamera, mat } from "../kit";
import { playClip, worldPos } from "../kit";
import { hangFrame, hangOnBone } from "../bone-world";
import { RotationLimitPolygonal } from "../../../src/joints/limits/rotation-limit-polygonal";
import { Vec3 } from "../../../src/math/vec3";
import type { Bone } from "@babylonjs/core/Bones/bone";
import { makePistol } from "../props/pistol";
import { limitExcess } from "../limit-excess";

/** The barrel's world axis (the muzzle's +Z), its ancestors recomputed first. */
function barrelAxis(muzzle: TransformNode): Vector3 {
  worldPos(muzzle);
  return Vector3.TransformNormal(Vector3.Forward(), muzzle.getWorldMatrix()).normalize();
}

/** A spine bone's reach (degrees of swing: forward, to either side, back) and twist, for the spine limit. */
const SPINE_SWING = { forward: 16, side: 9, back: 6 };
const SPINE_TWIST = 14;

/**
 * A polygonal swing limit for `bone` (a spine bone: its axis toward `child`), in its own frame at rest: bending
 * forward as far as SPINE_SWING.forward, sideways and back less (the spine's own range, not a cone), and a twist
 * range. The frame's directions come from the world through `jointDirection` (a mirrored glTF root included).
 */
function spineLimit(bone: Bone, child: Bone, forward: Vector3): RotationLimitPolygonal {
  const toLocal = (v: Vector3) => {
    const d = jointDirection(bone, v);
    return new Vector3(d.x, d.y, d.z);
  };
  const axis = toLocal(bonePos(child).subtract(bonePos(bone)));
  const ahead = toLocal(forward);
  ahead.subtractInPlace(axis.scale(Vector3.Dot(ahead, axis))).normalize();
  const side = Vector3.Cross(axis, ahead).normalize();
  // eight directions around the axis: forward, its diagonals, the sides, back
  const reach = [
    SPINE_SWING.forward,
    (SPINE_SWING.forward + SPINE_SWING.side) / 2,
    SPINE_SWING.side,
    (SPINE_SWING.side + SPINE_SWING.back) / 2,
    SPINE_SWING.back,
    (SPINE_SWING.side + SPINE_SWING.back) / 2,
    SPINE_SWING.side,
    (SPINE_SWING.forward + SPINE_SWING.side) / 2,
  ];
  const points = reach.map((deg, k) => {
    const phi = (k * Math.PI) / 4;
    const t = (deg * Math.PI) / 180;
    const d = axis
      .scale(Math.cos(t))
      .add(ahead.scale(Math.sin(t) * Math.cos(phi)))
      .add(side.scale(Math.sin(t) * Math.sin(phi)));
    return new Vec3(d.x, d.y, d.z);
  });
  return new RotationLimitPolygonal(new Vec3(axis.x, axis.y, axis.z), points, SPINE_TWIST);
}

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const clip = playClip(c, "Pistol_Aim_Neutral") ?? playClip(c, "Pistol_Idle_Loop");
  // the clip's first pose now: the pistol is fitted to the hand where the clip holds it
  clip?.goToFrame(clip.from);
  const hand = bonePos(r.rightHand);
  const forearm = hand.subtract(bonePos(r.rightForearm)).normalize();
  // the clip aims ahead; an arm hanging in the idle points the pistol along the forearm
  const barrel = clip !== null ? forward : forearm;
  const up = Math.abs(barrel.y) > 0.7 ? forward : Vector3.Up();
  const pistol = makePistol(scene, ctx.shadows, r.rightHand, h, barrel, up);
  const twoHanded = clip !== null && Vector3.Distance(bonePos(r.leftHand), hand) < 0.2 * h;

  // the target: a sphere in front of the chest, dragged by the user
  const chest = bonePos(r.spine[r.spine.length - 1]!);
  const home = chest.add(forward.scale(1.8 * h));
  const target = CreateSphere("aim target", { diameter: 0.08 * h, segments: 16 }, scene);
  const targetMat = mat(scene, "aim target", new Color3(0.9, 0.1, 0.1));
  targetMat.emissiveColor = new Color3(0.4, 0, 0);
  target.material = targetMat;
  target.position.copyFrom(home);
  ctx.shadows.addShadowCaster(target, false);
  const drag = new PointerDragBehavior(); // on the plane facing the camera
  target.addBehavior(drag);
  let wander = true;
  drag.onDragStartObservable.add(() => (wander = false));

  // AimIK on the spine and the right arm, the pistol's barrel as its axis; before the FBBIK
  const spine = [...new Set([r.spine[Math.min(1, r.spine.length - 1)]!, r.spine[r.spine.length - 1]!])];
  const chain = [...spine, r.rightUpperArm, r.rightForearm, r.rightHand];
  const aim = AimIK.create(scene, chain, {
    target,
    aimTransform: pistol.muzzle,
    updateOrder: IKUpdateOrder.FullBody - 10,
  });
  [0.3, 0.4, 0.8, 0.6, 1].slice(-chain.length).forEach((w, i) => (aim.solver.bones[i]!.weight = w));
  aim.solver.clampWeight = 0;
  ctx.components.push(aim);
  // the spine's own range on its bones (off until the panel turns it on): the arm makes up the rest of the aim
  const spineLimits = spine.map((b, i) => spineLimit(b, chain[i + 1]!, forward));
  spineLimits.forEach((l, i) => aim.solver.setLimit(i, l));
  aim.solver.useRotationLimits = false;
  /** How far (degrees) the spine's bones turn beyond their limits now, measured by the limits' own clamp. */
  const spineOverNow = () => {
    let over = 0;
    spine.forEach((b, i) => {
      over = Math.max(over, limitExcess(spineLimits[i]!, (b.getTransformNode() ?? b).rotationQuaternion!));
    });
    return over;
  };
  // measured right after AimIK's solve, before the FBBIK's (which moves the spine for the hands and the recoil)
  let spineOver = 0;
  const afterAim: SceneUpdatable = {
    updateOrder: IKUpdateOrder.FullBody - 5,
    _beforeAnimations: () => {},
    _beforeRender: () => {
      spineOver = spineOverNow();
    },
  };
  SceneUpdater.for(scene).add(afterAim);

  // the left hand stays where the clip holds it relative to the right hand: a node under the right hand
  const support = new TransformNode("left hand on the gun", scene);
  hangOnBone(support, r.rightHand);
  if (twoHanded) {
    ik.solver.leftHandEffector.target = support;
    ik.solver.leftHandEffector.positionWeight = 1;
    ik.solver.leftHandEffector.rotationWeight = 1;
    ik.solver.leftArmChain.pull = 0; // the left hand must not pull the body off the aim
  }
  const rel = new Matrix();
  const inv = new Matrix();

  // Recoil: the hands (and the shoulders a little) kick back along the barrel and up, the hand turns up
  const E = FullBodyBipedEffector;
  const recoil = new Recoil(ik, {
    offsets: [
      {
        offset: { x: 0, y: 0.02 * h, z: -0.07 * h },
        effectorLinks: [
          { effector: E.RightHand },
          { effector: E.LeftHand },
          { effector: E.RightShoulder, weight: 0.5 },
          { effector: E.LeftShoulder, weight: 0.3 },
        ],
      },
    ],
    handRotationOffset: { x: -20, y: 0, z: 0 },
    twoHanded: false,
  });
  ctx.components.push(recoil);
  const flash = CreateSphere("muzzle flash", { diameter: 0.05 * h, segments: 8 }, scene);
  const flashMat = mat(scene, "muzzle flash", new Color3(1, 0.8, 0.3));
  flashMat.emissiveColor = new Color3(1, 0.7, 0.2);
  flashMat.disableLighting = true;
  flash.material = flashMat;
  flash.parent = pistol.muzzle;
  flash.position.z = 0.02 * h;
  flash.isPickable = false;
  flash.setEnabled(false);
  // a laser along the barrel, as long as the distance to the target: where the gun points, seen at once
  const laser = CreateCylinder("laser", { height: 1, diameter: 0.006 * h, tessellation: 6 }, scene);
  const laserMat = mat(scene, "laser", new Color3(1, 0.1, 0.1), 0.6);
  laserMat.emissiveColor = new Color3(1, 0, 0);
  laser.material = laserMat;
  laser.parent = pistol.muzzle;
  laser.rotation.x = Math.PI / 2;
  laser.isPickable = false;

  let flashT = 1;
  let frames = 0;
  let autoFire = true;
  let nextShot = 1.5;
  let time = 0;
  const fire = () => {
    recoil.aimDirection = barrelAxis(pistol.muzzle);
    recoil.fire(1);
    flash.setEnabled(true);
    flashT = 0;
    if (shot === null) shot = { base: bonePos(r.rightHand), peak: 0, after: 0 };
  };
  const pointer = scene.onPointerObservable.add((pi) => {
    if (pi.type === PointerEventTypes.POINTERTAP && pi.pickInfo?.pickedMesh !== target) fire();
  });

  // a shot's measurement: the right hand's displacement from before the shot, its peak, then the rest
  let shot: { base: Vector3; peak: number; after: number } | null = null;
  const shots: Json[] = [];
  const angle = () => {
    const a = barrelAxis(pistol.muzzle);
    const toTarget = target.position.subtract(worldPos(pistol.muzzle)).normalize();
    return (Math.acos(Math.min(1, Vector3.Dot(a, toTarget))) * 180) / Math.PI;
  };
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      target: arr(target.position),
      home: arr(home),
      muzzle: arr(worldPos(pistol.muzzle)),
      barrel: arr(barrelAxis(pistol.muzzle)),
      angle: angle(),
      rightHand: arr(bonePos(r.rightHand)),
      recoil: recoil.inProgress,
      shots: shots.length,
      twoHanded,
      spineLimit: aim.solver.useRotationLimits,
      spineOver,
      height: h,
    }),
    control: (cmd, arg) => {
      if (cmd === "auto") wander = autoFire = arg === true;
      if (cmd === "target" && Array.isArray(arg)) target.position.fromArray(arg as number[]);
      if (cmd === "fire") fire();
      if (cmd === "aimIK") aim.enabled = arg === true;
      if (cmd === "spineLimit") aim.solver.useRotationLimits = arg === true;
      return wander;
    },
    update: (dt) => {
      time += dt;
      // the target stays in front of the character, above the floor
      const ahead = Vector3.Dot(target.position.subtract(chest), forward);
      if (ahead < 0.8 * h) target.position.addInPlace(forward.scale(0.8 * h - ahead));
      target.position.y = Math.max(target.position.y, 0.1 * h);
      if (wander) {
        // a slow figure in front of the character: across, up and down
        target.position.copyFrom(home);
        target.position.addInPlace(right.scale(0.9 * h * Math.sin(0.6 * time)));
        target.position.y += 0.4 * h * Math.sin(1.1 * time);
      }
      if (autoFire && (nextShot -= dt) <= 0) {
        fire();
        nextShot = 1.5;
      }
      if (twoHanded) {
        // the left hand's animated pose in the right hand's frame (the bones are animated here, before the IK)
        hangFrame(r.rightHand, inv).invertToRef(inv);
        hangFrame(r.leftHand, rel).multiplyToRef(inv, rel);
        rel.decompose(support.scaling, support.rotationQuaternion ?? undefined, support.position);
      }
      flashT = Math.min(1, flashT + dt / 0.08);
      if (flashT >= 1) flash.setEnabled(false);
    },
    after: () => {
      // the laser reaches the target; the shot's measurement
      const d = Vector3.Distance(worldPos(pistol.muzzle), target.position);
      laser.scaling.y = d;
      laser.position.z = d / 2;
      // the first key moment: on target after a few frames
      if (++frames === 5) {
        run.checks = { aimed: { angle: angle(), height: h }, shots };
        run.done = true;
      }
      const s = shot;
      if (s === null) return;
      const moved = Vector3.Distance(bonePos(r.rightHand), s.base);
      s.peak = Math.max(s.peak, moved);
      if (!recoil.inProgress && ++s.after >= 5) {
        shots.push({ peak: s.peak, residual: moved, angle: angle(), height: h });
        shot = null;
      }
    },
    panel: (el) => {
      el.append(
        checkbox(
          "target wanders",
          "aim-wander",
          () => wander,
          (v) => (wander = v),
        ),
        checkbox(
          "fire every 1.5 s",
          "aim-autofire",
          () => autoFire,
          (v) => (autoFire = v),
        ),
        checkbox(
          "spine limit (polygonal)",
          "aim-spine-limit",
          () => aim.solver.useRotationLimits,
          (v) => (aim.solver.useRotationLimits = v),
        ),
      );
    },
    // the target back in front of the chest, wandering again from the start of its figure, shots every 1.5 s,
    // the spine's limit off as built
    reset: () => {
      target.position.copyFrom(home);
      wander = autoFire = true;
      aim.solver.useRotationLimits = false;
      time = 0;
      nextShot = 1.5;
    },
    dispose: () => {
      scene.onPointerObservable.remove(pointer);
      SceneUpdater.for(scene).remove(afterAim);
      recoil.dispose();
      aim.dispose();
    },
  };
  frameCamera(ctx, c, chest.add(forward.scale(0.5 * h)), 3.2 * h, 1.3, 0.5);
  // the character and the target's whole wander (0.9 h to each side, 0.4 h up and down), clear of the panel
  const sway = [right.scale(0.95 * h), right.scale(-0.95 * h)].flatMap((x) =>
    [0.45, -0.45].map((y) => home.add(x).addInPlaceFromFloats(0, y * h, 0)),
  );
  framePoints(ctx.camera, [...outline(c), ...sway]);
  return run;
}

export const aim: Scenario = {
  name: "aim",
  title: "Aim and recoil",
  help: "AimIK points the pistol at the red target (drag it); click elsewhere to fire: Recoil kicks the arms back.",
  build,
};
