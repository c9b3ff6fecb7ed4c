/**
 * Runs of docs/API.md's examples of section 7 (the IK family), on the character and on rigs built in code
 * (test/scenario/docs-examples-run.test.ts). These examples are scripts: what they `declare` is given as
 * globals before they are imported, and what they create is read from their exported constants.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { expect } from "vitest";
import {
  type BipedIK,
  type CCDIK,
  type FABRIK,
  type FABRIKRoot,
  type FBBIKColliders,
  FullBodyBipedIK,
  type JacobianIK,
  type LimbIK,
  type TwistRelaxer,
} from "../../src/index.js";
import { FINGERS } from "./docs-character.js";
import { bodyWithTail, distanceToSegment, tailRig } from "./docs-rigs.js";
import { angleDeg, nodeAt, worldRotation } from "./docs-runs-biped.js";
import { type ExampleRun, expectNear, expectNoWarnings } from "./docs-world.js";
import { boneBendSide, characterFrame } from "./limb-bends.js";
import { polygonMargin, relative, swingTwist } from "./limit-reference.js";

/** A rotation's image of `v`. */
function turned(q: Quaternion, v: Vector3): Vector3 {
  return v.applyRotationQuaternion(q);
}

/**
 * The unit normal of the palm on its inner side: across the knuckles (index to pinky roots) and along the hand
 * (wrist to the middle finger's root), signed so the thumb's root lies on it.
 */
function palmSide(wrist: Vector3, roots: Vector3[]): Vector3 {
  const [thumb, index, middle, , pinky] = roots as [Vector3, Vector3, Vector3, Vector3, Vector3];
  const n = Vector3.Cross(pinky.subtract(index), middle.subtract(wrist)).normalize();
  return Vector3.Dot(n, thumb.subtract(wrist)) >= 0 ? n : n.negate();
}

export const FAMILY_RUNS: Record<string, ExampleRun> = {
  async "CCDIK and FABRIK: chains (tails, tentacles, spines, robot arms)"({ world, load }) {
    const scene = await world.emptyScene();
    const tail = tailRig(scene, 8, 0.1);
    const tentacle = tailRig(scene, 8, 0.1);
    tentacle.mesh.position.x = 0.6;
    const ball = nodeAt(scene, "ball", new Vector3(0.35, 0.45, 0.1));
    world.globals({ scene, tail: tail.tail, tentacle: tentacle.tail, ball });
    const ex = await load();
    const ccd = world.own(ex.ccd as CCDIK);
    const reach = world.own(ex.reach as FABRIK);
    world.frames(3, scene);
    expectNear("the tail's tip", tail.pos(tail.tail.at(-1)!), ball.position, 0.005);
    expectNear("the tentacle's tip", tentacle.pos(tentacle.tail.at(-1)!), ball.position, 0.005);
    // the tail's link 4 pressed against its outline (without it, it swings 18.2° past it, toward +X), to the float
    // precision of Babylon's matrices; the polygon is in the bone's frame at rest (tailRig: 0.1 rad about Z)
    const rest = Quaternion.RotationAxis(Vector3.Forward(), 0.1);
    const axis = turned(Quaternion.Inverse(rest), turned(tail.tail[4]!.rotationQuaternion, Vector3.Up()));
    const margin = polygonMargin(axis, { x: 0, y: 1, z: 0 }, ex.outline as Vector3[]);
    expect(Math.abs(margin), "from the outline, rad").toBeLessThan(1e-6);
    expectNoWarnings(ccd);
    expectNoWarnings(reach);
  },

  async "FABRIKRoot: several chains sharing a root (a hand with fingers, a multi-tail)"({ world, load }) {
    const m = await world.model();
    const fingers = world.fingers("left");
    // each fingertip 1.5 cm toward the wrist and 1.5 cm to the palm's side: reached by curling the finger (UAL's
    // fingers are straight: a target on a straight chain's line is not one FABRIK can bend toward)
    const palm = world.pos("leftHand");
    const inside = palmSide(
      palm,
      fingers.map((f) => world.pos(f[0]!)),
    );
    const grips = fingers.map((f, i) => {
      const tip = world.pos(f.at(-1)!);
      const curl = palm.subtract(tip).normalize().add(inside).scale(0.015);
      return nodeAt(m.scene, `grip ${i}`, tip.add(curl));
    });
    world.globals({ scene: m.scene, palm: world.bone("leftHand"), fingers, grips });
    const hand = world.own((await load()).hand as FABRIKRoot);
    world.frames(3);
    fingers.forEach((f, i) => expectNear(`${FINGERS[i]} tip`, world.pos(f.at(-1)!), world.nodePos(grips[i]!), 0.003));
    expectNear("palm", world.pos("leftHand"), palm, 0.01);
    expectNoWarnings(hand);
  },

  async "Rotation limits"({ world, load }) {
    const m = await world.model();
    const leg = [world.bone("leftThigh"), world.bone("leftCalf"), world.bone("leftFoot")] as const;
    const frame = characterFrame(world.bone("leftFoot"), world.bone("rightFoot"));
    const length =
      Vector3.Distance(world.pos(leg[0]), world.pos(leg[1])) + Vector3.Distance(world.pos(leg[1]), world.pos(leg[2]));
    // a crouch: the foot 40 % of the leg's length up toward the hip, a little forward
    const at = world
      .pos(leg[0])
      .add(new Vector3(0, -0.6 * length, 0))
      .add(frame.forward.scale(0.1 * length));
    const footTarget = nodeAt(m.scene, "foot target", at);
    world.globals({
      scene: m.scene,
      thigh: leg[0],
      shin: leg[1],
      foot: leg[2],
      footTarget,
    });
    const ex = await load();
    const ik = world.own(ex.leg as CCDIK);
    world.frames(3);
    expectNear("the foot", world.pos(leg[2]), at, 0.01 * length);
    // in front of the hip–ankle line by a third of the leg (behind it with the other sign)
    const knee = boneBendSide("leg", leg, frame).offset;
    expect(knee, "the knee ahead of the hip–ankle line, % of the leg").toBeGreaterThan(20);
    expectNoWarnings(ik);
  },

  async "The engine-neutral solvers, without Babylon"({ load }) {
    const ex = await load();
    const tip = ex.pose.positions[9];
    expectNear("the chain's tip", new Vector3(tip.x, tip.y, tip.z), new Vector3(0.5, 0.5, 0), 1e-3);
  },

  async "LimbIK: one arm or leg, exact"({ world, load }) {
    const m = await world.model();
    const grip = nodeAt(m.scene, "grip", world.armReach("left", new Vector3(-0.3, 0.3, 1)));
    grip.rotationQuaternion = Quaternion.RotationAxis(Vector3.Right(), -0.6).multiply(
      worldRotation(world.node("leftHand")),
    );
    const elbowHint = nodeAt(m.scene, "elbow hint", world.pos("leftForearm").add(new Vector3(0, -0.3, -0.3)));
    world.globals({
      scene: m.scene,
      upperArm: world.bone("leftUpperArm"),
      forearm: world.bone("leftForearm"),
      hand: world.bone("leftHand"),
      grip,
      elbowHint,
    });
    const arm = world.own((await load()).arm as LimbIK);
    world.frames(2);
    expectNear("left hand on the grip", world.pos("leftHand"), world.nodePos(grip), 1e-3 * world.h);
    expect(angleDeg(worldRotation(world.node("leftHand")), worldRotation(grip))).toBeLessThan(0.5);
    expectNoWarnings(arm);
  },

  async "BipedIK: FinalIK's lighter biped IK, from the family's parts"({ world, load }) {
    const m = await world.model();
    const grip = nodeAt(m.scene, "grip", world.armReach("left", new Vector3(-0.3, 0.3, 1)));
    const hips = world.pos("hips");
    world.globals({ scene: m.scene, skeleton: m.skeleton, grip });
    const biped = world.own((await load()).biped as BipedIK);
    world.frames(2);
    expectNear("left hand on the grip", world.pos("leftHand"), world.nodePos(grip), 1e-3 * world.h);
    expectNear("the hips 0.1 lower", world.pos("hips"), hips.add(new Vector3(0, -0.1, 0)), 1e-3 * world.h);
    for (const part of biped.parts) expectNoWarnings(part);
  },

  async "TwistRelaxer: forearms that share the hand's twist"({ world, load }) {
    const m = await world.model();
    const at = world.armReach("left", new Vector3(-0.3, 0.3, 1));
    const forearm = world.pos("leftHand").subtract(world.pos("leftForearm")).normalize();
    const grip = nodeAt(m.scene, "grip", at);
    // the hand turned 100° about its forearm: a twist the wrist takes alone without the relaxers
    grip.rotationQuaternion = Quaternion.RotationAxis(forearm, 1.75).multiply(worldRotation(world.node("leftHand")));
    world.globals({ scene: m.scene, skeleton: m.skeleton, grip });
    const ex = await load();
    const ik = world.own(ex.ik as FullBodyBipedIK);
    const arms = ex.arms as { left: TwistRelaxer; right: TwistRelaxer };
    world.frames(3);
    const hand = worldRotation(world.node("leftHand"));
    const relaxed = worldRotation(world.node("leftForearm"));
    arms.left.solver.weight = 0;
    world.frames(3);
    // the hand as the IK put it, with or without the relaxer; the forearm turned by half of the wrist's twist (6.8°:
    // the FBBIK's elbow plane follows the hand's rotation, so the upper arm took most of the 100°)
    expect(angleDeg(worldRotation(world.node("leftHand")), hand)).toBeLessThan(1e-3);
    expect(angleDeg(worldRotation(world.node("leftForearm")), relaxed)).toBeGreaterThan(5);
    expect(angleDeg(hand, worldRotation(grip))).toBeLessThan(0.5);
    expectNoWarnings(ik);
    expectNoWarnings(arms.left);
    ik.dispose();
    expect(arms.left.isDisposed && arms.right.isDisposed).toBe(true);
  },

  async "AimIK: point a bone, or a gun under it, at a target"({ world, load }) {
    const m = await world.model();
    const handNode = world.node("rightHand");
    const barrel = new TransformNode("barrel", m.scene);
    barrel.parent = handNode;
    const start = world.nodePos(barrel);
    const axis0 = turned(worldRotation(barrel), Vector3.Forward());
    const enemy = nodeAt(
      m.scene,
      "enemy",
      start.add(
        axis0
          .add(new Vector3(0, 0.4, 0.4))
          .normalize()
          .scale(5),
      ),
    );
    world.globals({
      scene: m.scene,
      spine: world.bone("spine"),
      chest: world.bone("chest"),
      upperArm: world.bone("rightUpperArm"),
      forearm: world.bone("rightForearm"),
      hand: world.bone("rightHand"),
      enemy,
      barrel,
    });
    const chestNode = world.node("chest");
    const chestRest = chestNode.rotationQuaternion!.clone();
    const aim = world.own((await load()).aim as FullBodyBipedIK);
    world.frames(3);
    // the chest held by its limit (it swings 6.0° without): 5° of swing about its +Y, ±5° of twist, from its pose at
    // creation
    const chest = swingTwist(relative(chestRest, chestNode.rotationQuaternion!), { x: 0, y: 1, z: 0 });
    expect((chest.swing * 180) / Math.PI, "the chest's swing, degrees").toBeCloseTo(5, 4);
    expect((Math.abs(chest.twist) * 180) / Math.PI, "the chest's twist, degrees").toBeLessThan(5 + 1e-6);
    const axis = turned(worldRotation(barrel), Vector3.Forward());
    const toEnemy = world.nodePos(enemy).subtract(world.nodePos(barrel)).normalize();
    const off = (Math.acos(Math.min(1, Vector3.Dot(axis, toEnemy))) * 180) / Math.PI;
    expect(off, "barrel's +Z off the enemy, degrees").toBeLessThan(1);
    expectNoWarnings(aim);
  },

  async "LookAtIK: spine, head and eyes follow a point"({ world, load }) {
    const m = await world.model();
    const camera = m.scene.activeCamera!;
    const at = camera.position.clone();
    world.onCleanUp(() => camera.position.copyFrom(at));
    // the viewer in front of the character, up and to one side
    const head0 = world.pos("head");
    const forward = world.forward();
    camera.position.copyFrom(head0.add(forward.scale(2)).add(new Vector3(0.8, 0.4, 0)));
    const eyes = world.eyes();
    const eye = eyes.left.getTransformNode()!;
    const eye0 = worldRotation(eye);
    world.globals({
      scene: m.scene,
      spine: world.bone("spine"),
      chest: world.bone("chest"),
      neck: world.bone("neck"),
      head: world.bone("head"),
      leftEye: eyes.left,
      rightEye: eyes.right,
    });
    const look = world.own((await load()).look as FullBodyBipedIK);
    world.frames(3);
    // the eye's forward in its rest pose is the character's: turned by the eye's change of rotation
    const turn = worldRotation(eye).multiply(Quaternion.Inverse(eye0));
    const gaze = turned(turn, forward);
    const toViewer = camera.globalPosition.subtract(world.nodePos(eye)).normalize();
    const off = (Math.acos(Math.min(1, Vector3.Dot(gaze, toViewer))) * 180) / Math.PI;
    expect(off, "left eye off the viewer, degrees").toBeLessThan(2);
    expectNoWarnings(look);
  },

  async "BoneCollider: colliders on bones"({ world, load }) {
    const scene = await world.emptyScene();
    const body = bodyWithTail(scene, 10, 0.1);
    // beside the body: without the capsule the tail would cut through it (to 0.17 of the spine's axis)
    const ball = nodeAt(scene, "ball", new Vector3(0.35, 0.2, 0.1));
    world.globals({ scene, tailBones: body.tail, spine: body.spine, ball });
    const joints = () => body.tail.map((b) => body.pos(b));
    const rest = joints();
    const tail = world.own((await load()).tail as CCDIK);
    world.frames(3, scene);
    const solved = joints();
    const a = body.pos(body.spine).add(new Vector3(0, -0.2, 0));
    const b = body.pos(body.spine).add(new Vector3(0, 1.2, 0));
    solved.forEach((p, i) => {
      expect(distanceToSegment(p, a, b), `tail joint ${i} outside the capsule`).toBeGreaterThan(0.3 - 1e-4);
      if (i === 0) return;
      const mid = Vector3.Center(p, solved[i - 1]!);
      expect(distanceToSegment(mid, a, b), `tail segment ${i} outside the capsule`).toBeGreaterThan(0.3 - 0.01);
      const length = Vector3.Distance(rest[i]!, rest[i - 1]!);
      expect(Math.abs(Vector3.Distance(p, solved[i - 1]!) - length), "segment length kept").toBeLessThan(1e-5);
    });
    // the tip as near the ball as the body lets it (measured 0.09 from it, 0.51 at rest)
    expect(Vector3.Distance(solved.at(-1)!, ball.position)).toBeLessThan(0.12);
    expect(Vector3.Distance(rest.at(-1)!, ball.position)).toBeGreaterThan(0.4);
    expectNoWarnings(tail);
  },

  async tailAroundBall({ world, load }) {
    const scene = await world.emptyScene();
    const rig = tailRig(scene, 12, 0.1);
    // the target in the ball: the tip can only rest on its surface
    const target = nodeAt(scene, "target", new Vector3(0.3, 0.6, 0));
    const tail = world.own((await load()).tailAroundBall(scene, rig.tail, target) as CCDIK);
    const ball = scene.getMeshByName("ball")!;
    expect(Vector3.Distance(rig.pos(rig.tail.at(-1)!), ball.position), "the tip at rest, off the ball").toBeGreaterThan(
      0.4,
    );
    for (const shift of [0, 0.1]) {
      // the ball moved (and the target with it): the collider follows the mesh
      ball.position.x = 0.3 + shift;
      target.position.x = 0.3 + shift;
      world.frames(3, scene);
      const joints = rig.tail.map((b) => rig.pos(b));
      joints.forEach((p, i) => {
        const d = Vector3.Distance(p, ball.position);
        expect(d, `tail joint ${i} outside the ball`).toBeGreaterThan(0.15 * (1 - 1e-6));
        if (i > 0) expect(distanceToSegment(ball.position, joints[i - 1]!, p)).toBeGreaterThan(0.15 * (1 - 1e-6));
      });
      expect(Vector3.Distance(joints.at(-1)!, ball.position), "the tip at the ball's surface").toBeLessThan(0.2);
    }
    expectNoWarnings(tail);
  },

  async shieldInHand({ world, load }) {
    const m = await world.model();
    const ik = world.own(FullBodyBipedIK.create(m.scene, m.skeleton));
    const pass = (await load()).shieldInHand(m.scene, ik) as FBBIKColliders;
    const shield = m.scene.getTransformNodeByName("shield")!;
    // the left hand in front of the chest, far from where the animation holds it
    const grip = world.armReach("left", new Vector3(0, -0.2, 1), 0.7);
    ik.solver.leftHandEffector.position.copyFrom(grip);
    ik.solver.leftHandEffector.positionWeight = 1;
    ik.solver.rightHandEffector.positionWeight = 1;
    for (let f = 0; f < 3; f++) {
      // the right hand's target inside the shield, on its side
      const centre = world.nodePos(shield);
      const toShoulder = world.pos("rightUpperArm").subtract(centre).normalize();
      ik.solver.rightHandEffector.position.copyFrom(centre.add(toShoulder.scale(0.1)));
      world.frames(1);
    }
    expectNear("the left hand on its target", world.pos("leftHand"), grip, 0.001 * world.h);
    const d = Vector3.Distance(world.pos("rightHand"), world.nodePos(shield));
    expect(d, "the right hand on the shield's surface").toBeGreaterThan(0.25 * (1 - 1e-5));
    expect(d).toBeLessThan(0.25 * 1.01);
    expect(pass.colliders.hangsOn(0)).toBe(ik.rig.idOf(ik.references.leftHand));
    expectNoWarnings(ik);
  },

  async JacobianIK({ world, load }) {
    const m = await world.model();
    const cup = nodeAt(m.scene, "cup", world.armReach("left", new Vector3(-0.3, 0.3, 1)));
    world.globals({
      scene: m.scene,
      upperArm: world.bone("leftUpperArm"),
      foreArm: world.bone("leftForearm"),
      hand: world.bone("leftHand"),
      cup,
    });
    const arm = world.own((await load()).arm as JacobianIK);
    world.frames(5);
    expectNear("left hand on the cup", world.pos("leftHand"), world.nodePos(cup), 0.005 * world.h);
    expectNoWarnings(arm);
  },

  async "FBBIKColliders: keeping FullBodyBipedIK's hands out of the body"({ world, load }) {
    const m = await world.model();
    const hips = world.pos("hips");
    const neck = world.pos("neck");
    world.globals({ scene: m.scene, skeleton: m.skeleton, hips, neck });
    const ik = world.own((await load()).ik as FullBodyBipedIK);
    // a hand target inside the torso leaves the hand on the torso
    const hand = ik.solver.rightHandEffector;
    hand.position.copyFrom(world.pos("spineMid"));
    hand.positionWeight = 1;
    world.frames(2);
    const chest = ik.references.spine.at(-1)!;
    const d = distanceToSegment(world.pos("rightHand"), world.pos(chest).add(hips.subtract(world.pos(chest))), neck);
    expect(d, "the right hand's distance from the torso's axis").toBeGreaterThan(0.15);
    expect(d).toBeLessThan(0.15 + 0.01 + 0.01);
    expectNoWarnings(ik);
  },
};
