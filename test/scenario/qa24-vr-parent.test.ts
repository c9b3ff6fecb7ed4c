/**
 * A VR avatar as docs/API.md §7's `vrAvatar` builds it (createTrackerTarget on a headset and two controllers,
 * bodyWeight 0.8, headClampWeight 0, handsPullBody false, the hands eased over 0.3 s, both feet pinned), the whole
 * rig (character, trackers and pins) under a parent scaled ×0.01 or ×100, or turned and tilted: a crouch, a lean
 * and a reach forward with the idle clip playing give, in the parent's frame over the character's height, the
 * pose the same rig gives unparented; the head stays on the headset within 1e-6 h (1.6e-7 h measured; Xbot's missed
 * by 7.4e-4 h before the head effector had the spine mapping land the chest on its plane) and the hands on the
 * controllers within 1e-3 h.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { vrAvatar } from "../helpers/vr-avatar.js";
import { type ModelName, modelAvailable } from "../helpers/babylon-scene.js";
import { disposeOpen, load, report, worldPos } from "../helpers/modifier-scene.js";

afterEach(disposeOpen);

const MODELS: ModelName[] = (["UAL", "Xbot"] as const).filter((m) => modelAvailable(m));
const FRAMES = 90;

interface Parent {
  label: string;
  scale: number;
  turn: Quaternion;
}

const PARENTS: Parent[] = [
  { label: "×0.01", scale: 0.01, turn: Quaternion.Identity() },
  { label: "×100", scale: 100, turn: Quaternion.Identity() },
  { label: "turned and tilted", scale: 1, turn: Quaternion.RotationYawPitchRoll(1.2, 0.3, -0.2) },
];

/** Every frame's bones in the parent's frame, over the character's height; and the worst head and hand errors (h). */
async function track(
  name: ModelName,
  parent: Parent | null,
): Promise<{ frames: Vector3[][]; head: number; hands: number }> {
  const m = await load(name, false, (n, i) => /idle/i.test(n) || i === 0);
  const world = new TransformNode("world", m.scene);
  world.scaling.setAll(parent?.scale ?? 1);
  world.rotationQuaternion = parent?.turn.clone() ?? Quaternion.Identity();
  m.root.parent = world;
  const idle = m.container.animationGroups.find((g) => /idle/i.test(g.name)) ?? m.container.animationGroups[0]!;
  idle.start(true);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const r = ik.references;
  const s = ik.solver;
  const toParent = world.computeWorldMatrix(true).clone().invert();
  const local = (p: Vector3) => Vector3.TransformCoordinates(p, toParent);
  // the rig in the parent's frame: heights along its y, the character's forward from its toes
  const feet = local(worldPos(r.leftFoot).add(worldPos(r.rightFoot)).scale(0.5));
  const h = local(worldPos(r.head!)).y - feet.y;
  const forward = new Vector3();
  for (const foot of [r.leftFoot, r.rightFoot])
    forward.addInPlace(local(worldPos(foot.children[0]!)).subtract(local(worldPos(foot))));
  forward.y = 0;
  forward.normalize();
  const origin = new TransformNode("xr origin", m.scene);
  origin.parent = world;
  const tracker = (label: string, at: Vector3): TransformNode => {
    const t = new TransformNode(label, m.scene);
    t.parent = origin;
    t.position.copyFrom(at);
    t.rotationQuaternion = Quaternion.Identity();
    t.computeWorldMatrix(true);
    return t;
  };
  const headset = tracker("headset", local(worldPos(r.head!)));
  const held = forward.scale(0.2 * h).addInPlaceFromFloats(0, -0.25 * h, 0);
  const homes = [local(worldPos(r.leftUpperArm)).add(held), local(worldPos(r.rightUpperArm)).add(held)];
  const controllers = homes.map((p, i) => tracker(i === 0 ? "left" : "right", p));
  const { headTarget, handTargets: targets, handBones } = vrAvatar(ik, headset, controllers, { fadeSeconds: 0.3 });
  const feetEffectors = [s.leftFootEffector, s.rightFootEffector];
  for (const [i, foot] of [r.leftFoot, r.rightFoot].entries()) {
    const pin = tracker(`pin ${i}`, local(worldPos(foot)));
    const q = new Quaternion();
    foot.getTransformNode()!.computeWorldMatrix(true).multiply(toParent).decompose(undefined, q);
    pin.rotationQuaternion = q;
    feetEffectors[i]!.target = pin;
    feetEffectors[i]!.positionWeight = 1;
    feetEffectors[i]!.rotationWeight = 1;
  }
  const headHome = headset.position.clone();
  const out = { frames: [] as Vector3[][], head: 0, hands: 0 };
  const measured = (n: TransformNode) => n.computeWorldMatrix(true).getTranslation();
  for (let f = 0; f < FRAMES; f++) {
    const k = Math.sin((Math.PI * f) / FRAMES);
    // down 0.2 h, forward 0.15 h, turned 25° and pitched 20°; the hands go with it, 0.1 h forward
    headset.position
      .copyFrom(headHome)
      .addInPlace(forward.scale(0.15 * h * k))
      .addInPlaceFromFloats(0, -0.2 * h * k, 0);
    headset.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.44 * k, 0.35 * k, 0);
    for (let i = 0; i < 2; i++)
      controllers[i]!.position.copyFrom(homes[i]!)
        .addInPlace(forward.scale(0.1 * h * k))
        .addInPlaceFromFloats(0, -0.2 * h * k, 0);
    m.scene.render();
    const rigScale = h * (parent?.scale ?? 1);
    out.frames.push(m.skeleton.bones.map((b) => local(worldPos(b)).scaleInPlace(1 / h)));
    out.head = Math.max(out.head, Vector3.Distance(worldPos(r.head!), measured(headTarget)) / rigScale);
    for (let i = 0; i < 2; i++)
      out.hands = Math.max(out.hands, Vector3.Distance(worldPos(handBones[i]!), measured(targets[i]!)) / rigScale);
  }
  return out;
}

describe("a VR avatar under a scaled or turned parent", () => {
  for (const name of MODELS)
    it(`${name}: ×0.01, ×100, turned and tilted give the unparented pose`, async () => {
      const plain = await track(name, null);
      report(`${name} unparented: head, hands (h)`, plain.head, plain.hands);
      expect(plain.head).toBeLessThan(1e-6);
      expect(plain.hands).toBeLessThan(1e-3);
      disposeOpen();
      for (const parent of PARENTS) {
        const run = await track(name, parent);
        disposeOpen();
        let worst = 0;
        for (let f = 0; f < FRAMES; f++)
          for (let b = 0; b < plain.frames[f]!.length; b++)
            worst = Math.max(worst, Vector3.Distance(plain.frames[f]![b]!, run.frames[f]![b]!));
        report(`${name} ${parent.label}: bones off the unparented pose, head, hands (h)`, worst, run.head, run.hands);
        expect(worst).toBeLessThan(1e-3);
        expect(run.head).toBeLessThan(1e-6);
        expect(run.hands).toBeLessThan(1e-3);
      }
    });
});
