/**
 * docs/API.md §7: the head lands on a reachable headset within 1e-6 of the height. A VR avatar as the docs'
 * `vrAvatar` builds it (createTrackerTarget on a headset and two controllers, bodyWeight 0.8, headClampWeight 0,
 * handsPullBody false), with the default preserveBoneLengths, the idle clip playing, feet free and pinned where they
 * stand: for 8 seeded headset poses (down, forward, sideways, turned), on every model, the head lands within 1e-6 h,
 * the hands stay on their controllers and the spine keeps its bone lengths. Before the head effector had the spine
 * mapping land the chest on its plane, Xbot missed by 5.1e-4 h and Soldier by 2.0e-3 h. The pinned feet are
 * reported, not asserted: Mannequin's straight legs leave its feet 1.6e-2 h off in these poses, with or without it.
 */
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, expect, it } from "vitest";
import { standingCharacter, vrAvatar, worldTracker } from "../helpers/vr-avatar.js";
import { type ModelName, modelAvailable } from "../helpers/babylon-scene.js";
import { disposeOpen, report, worldPos } from "../helpers/modifier-scene.js";
import { Random } from "../helpers/random.js";

afterEach(disposeOpen);

const MODELS: ModelName[] = (["UAL", "Xbot", "Soldier", "Mannequin", "Superhero"] as const).filter((m) =>
  modelAvailable(m),
);
const POSES = 8;
const FRAMES = 3;

/** The worst head, hand and pinned foot errors (h) and spine length change (relative) over the seeded poses. */
async function worst(
  name: ModelName,
  pinFeet: boolean,
): Promise<{ head: number; hands: number; feet: number; lengths: number }> {
  const { m, ik, h, forward } = await standingCharacter(name);
  const r = ik.references;
  const s = ik.solver;
  const side = Vector3.Cross(Vector3.Up(), forward);
  const tracker = (label: string, at: Vector3): TransformNode => worldTracker(m.scene, label, at);
  const headset = tracker("headset", worldPos(r.head!));
  // the controllers 60 % of the arm's length forward and down from the upper arms: in reach whatever the arm
  const arms = [
    [r.leftUpperArm, r.leftForearm, r.leftHand],
    [r.rightUpperArm, r.rightForearm, r.rightHand],
  ];
  const homes = arms.map(([upper, fore, hand]) => {
    const length =
      Vector3.Distance(worldPos(upper!), worldPos(fore!)) + Vector3.Distance(worldPos(fore!), worldPos(hand!));
    return worldPos(upper!).add(
      forward
        .subtract(Vector3.Up())
        .normalize()
        .scale(0.6 * length),
    );
  });
  const controllers = [tracker("left", homes[0]!), tracker("right", homes[1]!)] as const;
  const { headTarget, handTargets: targets, handBones } = vrAvatar(ik, headset, controllers);
  const pins: TransformNode[] = [];
  if (pinFeet) {
    const feetEffectors = [s.leftFootEffector, s.rightFootEffector];
    // where they stand at the start, as docs/API.md's vrAvatar pins them (a step off them is beyond Mannequin's legs)
    for (const [i, foot] of [r.leftFoot, r.rightFoot].entries()) {
      const pin = tracker(`pin ${i}`, worldPos(foot));
      pins.push(pin);
      feetEffectors[i]!.target = pin;
      feetEffectors[i]!.positionWeight = 1;
    }
  }
  const spine = [r.pelvis, ...r.spine];
  const lengths = (): number[] => spine.slice(1).map((b, i) => Vector3.Distance(worldPos(b), worldPos(spine[i]!)));
  const rest = lengths();
  const headHome = headset.position.clone();
  const random = new Random(24);
  const out = { head: 0, hands: 0, feet: 0, lengths: 0 };
  const at = (n: TransformNode) => n.computeWorldMatrix(true).getTranslation();
  for (let p = 0; p < POSES; p++) {
    const offset = side
      .scale(random.range(-0.1, 0.1) * h)
      .addInPlace(forward.scale(random.range(0, 0.15) * h))
      .addInPlaceFromFloats(0, -random.range(0, 0.15) * h, 0);
    headset.position.copyFrom(headHome).addInPlace(offset);
    headset.rotationQuaternion = Quaternion.RotationYawPitchRoll(
      random.range(-0.5, 0.5),
      random.range(-0.2, 0.4),
      random.range(-0.2, 0.2),
    );
    for (let i = 0; i < 2; i++) controllers[i]!.position.copyFrom(homes[i]!).addInPlace(offset);
    // a few frames a pose, the last one measured
    for (let f = 0; f < FRAMES; f++) m.scene.render();
    out.head = Math.max(out.head, Vector3.Distance(worldPos(r.head!), at(headTarget)) / h);
    for (let i = 0; i < 2; i++)
      out.hands = Math.max(out.hands, Vector3.Distance(worldPos(handBones[i]!), at(targets[i]!)) / h);
    pins.forEach((pin, i) => {
      out.feet = Math.max(out.feet, Vector3.Distance(worldPos(i === 0 ? r.leftFoot : r.rightFoot), at(pin)) / h);
    });
    lengths().forEach((l, i) => {
      out.lengths = Math.max(out.lengths, Math.abs(l / rest[i]! - 1));
    });
  }
  return out;
}

for (const name of MODELS)
  for (const pinFeet of [false, true])
    it(`${name}, feet ${pinFeet ? "pinned" : "free"}: the head on a reachable headset within 1e-6 h`, async () => {
      const e = await worst(name, pinFeet);
      const label = `head exact ${name} feet ${pinFeet ? "pinned" : "free"}: head, hands, feet (h), spine lengths`;
      report(label, e.head, e.hands, e.feet, e.lengths);
      expect(e.head).toBeLessThan(1e-6);
      expect(e.hands).toBeLessThan(1e-6);
      // the bone positions are Babylon's float32 matrices: Xbot's spine lengths read 3e-6 off with or without the IK
      expect(e.lengths).toBeLessThan(1e-5);
    });
