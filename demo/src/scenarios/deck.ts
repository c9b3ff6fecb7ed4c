/** Deck: the character stands on a raft that heaves, rolls and pitches; GrounderFBBIK keeps both feet on it. */
import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder";
import { GrounderFBBIK } from "../../../src/effectors/grounding/grounder-fbbik";
import { MovingGroundRaycast } from "../../../src/effectors/grounding/moving-ground-raycast";
import type { Ctx, Json, Scenario, ScenarioRun } from "../kit";
import { bonePos, feetOnSurfaces, frameCamera, mat, playClip, surfaceAt } from "../kit";
import { visibleHeight } from "../framing";
import { createDeck } from "../props/deck";

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward, right } = c;
  const r = ik.references;
  const scene = ctx.scene;
  playClip(c, "Idle_Loop") ?? playClip(c, "idle") ?? playClip(c, "Idle");
  const feet = [r.leftFoot, r.rightFoot];
  const names = ["leftFoot", "rightFoot"] as const;
  const centre = bonePos(r.leftFoot).add(bonePos(r.rightFoot)).scale(0.5);
  centre.y = 0;
  // a raft on still water: its top a quarter of h above the water, heaving 9 % of h, rolling 9°, pitching 4°
  const water = CreateGround("water", { width: 14 * h, height: 14 * h }, scene);
  water.position.set(centre.x, 0.02 * h, centre.z);
  water.material = mat(scene, "water", new Color3(0.2, 0.38, 0.5), 0.92);
  water.receiveShadows = true;
  const level = water.position.y + 0.25 * h;
  const heave = 0.09 * h;
  const roll = (9 * Math.PI) / 180;
  const pitch = (4 * Math.PI) / 180;
  const deck = createDeck(scene, ctx.shadows, "deck", {
    width: 1.5 * h,
    length: 1.2 * h,
    thick: 0.05 * h,
    hull: 0.45 * h,
    forward,
    right,
    rails: ["left", "back"],
    railHeight: 0.5 * h,
    crate: 0.28 * h,
  });
  const start = c.root.position.clone();
  const tilt = new Quaternion();
  let time = 0;
  const place = (): void => {
    const p = deck.pivot;
    p.position.set(centre.x, level + heave * Math.sin((2 * Math.PI * time) / 5), centre.z);
    Quaternion.RotationAxisToRef(forward, roll * Math.sin((2 * Math.PI * time) / 6.5), p.rotationQuaternion!);
    p.rotationQuaternion!.multiplyInPlace(Quaternion.RotationAxisToRef(right, pitch * Math.sin(time * 0.81), tilt));
    // the character rides the heave (its root on the deck under it); the grounder takes the roll and pitch
    c.root.position.set(start.x, start.y + p.position.y, start.z);
  };
  place();
  // the deck moves: MovingGroundRaycast follows its world matrix every ray, nothing re-baked
  const grounder = GrounderFBBIK.create(ik, { raycast: MovingGroundRaycast.fromMeshes([deck.top]).raycast });
  ctx.components.push(grounder);
  const surfaces: AbstractMesh[] = [deck.top];
  let rootY = c.root.position.y;
  let worst = 0;
  let frames = 0;
  // the most the IK put one foot above the other, beyond what the clip does
  let spread = 0;
  const range = () => [Infinity, -Infinity];
  const footRange = [range(), range()];
  const deckRange = [range(), range()];
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({ feet: feetOnSurfaces(scene, surfaces, feet), time, height: h }),
    update: (dt) => {
      rootY = c.root.position.y;
      if (ctx.paused()) return;
      time += dt;
      place();
    },
    after: () => {
      // once settled (1 s), each ankle stands as high above the deck under it as the clip has it above the root
      if (run.done || time < 1) return;
      frames++;
      const [al, ar] = [c.animated.leftFoot, c.animated.rightFoot];
      if (al !== undefined && ar !== undefined)
        spread = Math.max(spread, Math.abs(bonePos(r.leftFoot).y - bonePos(r.rightFoot).y - (al.y - ar.y)));
      feet.forEach((f, i) => {
        const p = bonePos(f);
        const g = surfaceAt(scene, surfaces, p);
        const a = c.animated[names[i]!];
        if (g === null || a === undefined) return;
        const err = p.y - g.y - (a.y - rootY);
        if (Math.abs(err) > Math.abs(worst)) worst = err;
        const fr = footRange[i]!;
        const dr = deckRange[i]!;
        fr[0] = Math.min(fr[0]!, p.y);
        fr[1] = Math.max(fr[1]!, p.y);
        dr[0] = Math.min(dr[0]!, g.y);
        dr[1] = Math.max(dr[1]!, g.y);
      });
      // a full roll (6.5 s) seen, or enough frames on a slow machine
      if (time > 7.5 && frames >= 20) {
        run.checks = {
          worst,
          frames,
          footRange: footRange as unknown as Json,
          deckRange: deckRange as unknown as Json,
          feetSpread: spread,
          tolerance: 0.01 * h,
          height: h,
        };
        run.done = true;
      }
    },
    reset: () => {
      time = 0;
      place();
      grounder.resetPosition();
    },
    dispose: () => grounder.dispose(),
  };
  // low and from the front-side: the deck's tilt reads against the water line and the horizon
  const size = visibleHeight(c);
  frameCamera(ctx, c, centre.add(new Vector3(0, level + 0.45 * size, 0)), 3.2 * size, 0.8, 1);
  ctx.camera.beta = 1.32;
  return run;
}

export const deck: Scenario = {
  name: "deck",
  title: "Deck",
  help: "GrounderFBBIK on moving ground: the raft heaves and rolls, the feet stay planted on it and the legs adapt.",
  build,
};
