/**
 * The feet's velocity, which the grounder's `prediction` probes ahead by, is taken over the ground each foot
 * stands on (the mesh its heel ray hit), not over the world: a ship's deck moving under a standing character
 * predicts no step, a foot stepping off the deck onto a still pier is measured over the pier, and a character
 * controller moving over still ground is FinalIK's (the world's velocity) bit for bit.
 */
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { afterEach, describe, expect, it } from "vitest";
import { FullBodyBipedIK } from "../../src/babylon/full-body-biped-ik.js";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import type { GroundingRaycast } from "../../src/effectors/grounding/grounding-common.js";
import { MovingGroundRaycast } from "../../src/effectors/grounding/moving-ground-raycast.js";
import { type LoadedModel, loadModel } from "../helpers/babylon-scene.js";
import { plantedVelocity } from "../helpers/planted-velocity.js";
import { height, worldPos } from "../helpers/scene-probes.js";

const open: LoadedModel[] = [];
afterEach(() => {
  while (open.length > 0) open.pop()!.dispose();
});

interface OnDeck {
  m: LoadedModel;
  ship: TransformNode;
  h: number;
}

/** UAL idling on a deck under `ship`, a low step under its right foot, grounded with the root's up. */
async function onDeck(): Promise<OnDeck> {
  const m = await loadModel("UAL", { highPrecision: true, clips: (c) => c === "Idle_Loop" });
  open.push(m);
  m.container.animationGroups[0]!.start(true);
  const ship = new TransformNode("ship", m.scene);
  ship.rotationQuaternion = new Quaternion();
  m.root.parent = ship;
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const h = height(m);
  const y = m.root.position.y;
  const deck = CreateBox("deck", { width: 4 * h, height: 0.2 * h, depth: 4 * h }, m.scene);
  deck.parent = ship;
  deck.position.set(0, y - 0.1 * h, 0);
  // the step's top 0.03 h above the deck, its edge 0.15 h from the right foot: within a moving ship's prediction
  const step = CreateBox("step", { width: 0.3 * h, height: 0.1 * h, depth: 0.3 * h }, m.scene);
  step.parent = ship;
  const foot = worldPos(ik.references.rightFoot);
  step.position.set(foot.x, y + 0.03 * h - 0.05 * h, foot.z);
  const grounder = GrounderFBBIK.create(ik, { raycast: MovingGroundRaycast.fromMeshes([deck, step]).raycast });
  grounder.solver.rotateSolver = true;
  return { m, ship, h };
}

/** Every bone's position in the ship's frame. */
function inShip(c: OnDeck): Vector3[] {
  const inverse = c.ship.computeWorldMatrix(true).clone().invert();
  return c.m.skeleton.bones.map((b) => Vector3.TransformCoordinates(worldPos(b), inverse));
}

/** UAL walking in place (its clip's speed measured on flat ground), its IK, the walking velocity and h. */
async function walker(highPrecision = false) {
  const m = await loadModel("UAL", { highPrecision, clips: (c) => c === "Walk_Loop" });
  open.push(m);
  const ik = FullBodyBipedIK.create(m.scene, m.skeleton);
  m.scene.render();
  const h = height(m);
  m.container.animationGroups[0]!.start(true);
  const r = ik.references;
  const tracks: Vector3[][] = [[], []];
  for (let f = 0; f < 120; f++) {
    m.scene.render();
    tracks[0]!.push(worldPos(r.leftFoot));
    tracks[1]!.push(worldPos(r.rightFoot));
  }
  // the planted feet move back at the walking speed (the clip plays in place)
  const velocity = plantedVelocity(tracks, h);
  return { m, ik, h, velocity };
}

describe("GrounderFBBIK on moving ground: the feet's velocity over the ground they stand on", () => {
  it("moving, turning and tilting the deck moves the grounded pose rigidly: in its frame, the still twin's pose", async () => {
    const still = await onDeck();
    const moving = await onDeck();
    let worst = 0;
    for (let f = 0; f < 240; f++) {
      // 3.6 m/s, turning 1.2 rad/s, rolling and pitching up to 18°
      moving.ship.position.set(0.03 * f, 0.1 * Math.sin(f * 0.07), 0.05 * f);
      const tilt = (18 * Math.PI) / 180;
      Quaternion.FromEulerAnglesToRef(
        0.8 * tilt * Math.sin(f * 0.037),
        0.02 * f,
        tilt * Math.sin(f * 0.05),
        moving.ship.rotationQuaternion!,
      );
      still.m.scene.render();
      moving.m.scene.render();
      const a = inShip(still);
      const b = inShip(moving);
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Vector3.Distance(a[i]!, b[i]!) / still.h);
    }
    console.log(`worst bone off the still twin's, in the deck's frame: ${(100 * worst).toExponential(2)} % h`);
    // the feet's velocity was the world's: the deck's speed predicted the right foot off its step (5.6 % h)
    expect(worst).toBeLessThan(1e-9);
  });

  it("walking off a moving deck onto a still pier, each foot's velocity is its motion over the ground under it", async () => {
    const { m, ik, h, velocity } = await walker(true);
    const speed = velocity.length();
    const dir = velocity.scale(-1 / speed);
    const side = new Vector3(dir.z, 0, -dir.x);
    // the deck (3 h across, its far edge at the ship's origin) slides along the pier's edge at 1.5 walking speeds
    const ship = new TransformNode("ship", m.scene);
    const across = Quaternion.FromLookDirectionLH(dir, Vector3.Up());
    const deck = CreateBox("deck", { width: 40 * h, height: 0.2 * h, depth: 3 * h }, m.scene);
    deck.parent = ship;
    deck.rotationQuaternion = across;
    deck.position = dir.scale(-1.5 * h).add(new Vector3(0, -0.1 * h, 0));
    const pier = CreateBox("pier", { width: 40 * h, height: 0.2 * h, depth: 3 * h }, m.scene);
    pier.rotationQuaternion = across.clone();
    pier.position = dir.scale(1.5 * h).add(new Vector3(0, -0.1 * h, 0));
    for (const b of [deck, pier]) b.material = new StandardMaterial(b.name, m.scene);
    // the character rides the ship until its root is on the pier (a game reparents it then)
    m.root.parent = ship;
    m.root.position.addInPlace(dir.scale(-1 * h));
    const grounder = GrounderFBBIK.create(ik, { raycast: MovingGroundRaycast.fromMeshes([deck, pier]).raycast });
    grounder.resetPosition();
    const legs = grounder.solver.legs;
    const drift = side.scale((1.5 * speed) / 60);
    const frames = { deck: 0, pier: 0 };
    const worst = { deck: 0, pier: 0 };
    const last = [new Vector3(), new Vector3()];
    for (let f = 0; f < 240; f++) {
      ship.position.addInPlace(drift);
      m.root.position.addInPlace(dir.scale(speed / 60));
      if (m.root.parent === ship && Vector3.Dot(m.root.getAbsolutePosition(), dir) > 0) m.root.setParent(null);
      m.scene.render();
      for (let i = 0; i < 2; i++) {
        const p = legs[i]!.footPosition;
        const now = new Vector3(p.x, p.y, p.z);
        // the heel ray (under the foot) hit the deck last frame: the foot's last position moved with it since
        const on = Vector3.Dot(last[i]!, dir) < 0 ? "deck" : "pier";
        const from = on === "deck" ? last[i]!.add(drift) : last[i]!;
        const expected = now.subtract(from).scale(1 / grounder.solver.deltaTime);
        expected.y = 0;
        const v = legs[i]!.velocity;
        if (f > 0) {
          worst[on] = Math.max(worst[on], Math.hypot(v.x - expected.x, v.y - expected.y, v.z - expected.z) / h);
          frames[on]++;
        }
        last[i] = now;
      }
    }
    console.log(
      `feet's velocity off their motion over the ground under them (h/s): deck ${worst.deck.toExponential(2)} ` +
        `(${frames.deck} foot frames), pier ${worst.pier.toExponential(2)} (${frames.pier}); the deck moves at ` +
        `${((1.5 * speed) / h).toFixed(3)} h/s`,
    );
    expect(frames.deck).toBeGreaterThan(100);
    expect(frames.pier).toBeGreaterThan(100);
    // the world's velocity was off by the deck's speed on the deck (0.94 h/s); the root's parent's on the pier
    expect(worst.deck).toBeLessThan(1e-9);
    expect(worst.pier).toBeLessThan(1e-9);
  });

  it("under a character controller moving over still ground, the pose is FinalIK's (the world's velocity)", async () => {
    const runs: Vector3[][] = [];
    let h = 1;
    // the root under a controller node over named ground; the root itself moved over unnamed ground (FinalIK's)
    for (const controlled of [true, false]) {
      const walking = await walker(true);
      const { m, ik, velocity } = walking;
      h = walking.h;
      const speed = velocity.length();
      const dir = velocity.scale(-1 / speed);
      // steps 0.05 h high every 0.45 h along the way, up then down: a foot probed behind a step lands short of it
      const steps = [];
      for (let k = -8; k < 8; k++) {
        const rise = Math.abs((((k % 8) + 8) % 8) - 4) * 0.05 * h;
        const box = CreateBox(`step${k}`, { width: 2 * h, height: 0.2 * h + rise, depth: 0.45 * h }, m.scene);
        box.rotationQuaternion = Quaternion.FromLookDirectionLH(dir, Vector3.Up());
        box.position = dir.scale((k + 0.5) * 0.45 * h);
        box.position.y = rise / 2 - 0.1 * h;
        box.material = new StandardMaterial(box.name, m.scene);
        steps.push({ box, top: rise, from: k * 0.45 * h });
      }
      const moving = MovingGroundRaycast.fromMeshes(steps.map((s) => s.box));
      const unnamed: GroundingRaycast = (o, d, l, out) => {
        const hit = moving.raycast(o, d, l, out);
        out.ground = null;
        return hit;
      };
      unnamed.sphereCast = moving.raycast.sphereCast;
      const start = m.root.position.clone();
      const mover = controlled ? new TransformNode("controller", m.scene) : m.root;
      if (controlled) m.root.parent = mover;
      const grounder = GrounderFBBIK.create(ik, { raycast: controlled ? moving.raycast : unnamed });
      const at = dir.scale(-3 * h);
      grounder.resetPosition();
      const feet: Vector3[] = [];
      for (let f = 0; f < 500; f++) {
        at.addInPlace(dir.scale(speed / 60));
        // the character stands on the step under it
        const along = Vector3.Dot(at, dir);
        at.y = steps.find((s) => along >= s.from && along < s.from + 0.45 * h)?.top ?? 0;
        mover.position.copyFrom(controlled ? at : at.add(start));
        m.scene.render();
        feet.push(worldPos(ik.references.leftFoot), worldPos(ik.references.rightFoot));
      }
      runs.push(feet);
    }
    let worst = 0;
    for (let i = 0; i < runs[0]!.length; i++) worst = Math.max(worst, Vector3.Distance(runs[0]![i]!, runs[1]![i]!));
    console.log(`controller over still steps: feet off FinalIK's by ${((100 * worst) / h).toExponential(2)} % h`);
    // a velocity over the node the root hangs from (the controller) probed the planted feet behind: 11.8 % h
    expect(worst / h).toBeLessThan(1e-9);
  });
});
