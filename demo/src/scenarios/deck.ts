import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh";
import { CreateBox } from "@babylonjs/core/Meshes/Builders/boxBuilder";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { GrounderFBBIK } from "../../../src/effectors/grounding/grounder-fbbik";
import { MovingGroundRaycast } from "../../../src/effectors/grounding/moving-ground-raycast";
import {
  bonePos,
  type Ctx,
  feetOnSurfaces,
  frameCamera,
  type Json,
  mat,
  type ScenarioRun,
  surfaceAt,
  type Scenario,
} from "../kit";

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const c = ctx.spawn(Vector3.Zero());
  const { ik, h, forward } = c;
  const r = ik.references;
  const scene = ctx.scene;
  const feet = [r.leftFoot, r.rightFoot];
  const restPos = feet.map(bonePos);
  const centre = restPos[0]!.add(restPos[1]!).scale(0.5);
  centre.y = 0;
  // the deck's top heaves around the height the character stands at, 0.06 h above the floor
  const mean = 0.06 * h;
  const heave = 0.04 * h;
  const roll = (4 * Math.PI) / 180;
  const thick = 0.05 * h;
  const start = c.root.position.clone();
  c.root.position.y += mean;
  const deckMesh = CreateBox("deck", { width: 1.4 * h, height: thick, depth: 1.1 * h }, scene);
  deckMesh.material = mat(scene, "deck", new Color3(0.55, 0.42, 0.3));
  deckMesh.receiveShadows = true;
  ctx.shadows.addShadowCaster(deckMesh, false);
  // a pivot on the deck's top under the feet: it rolls about the character's forward axis
  const pivot = new TransformNode("deck pivot", scene);
  pivot.rotationQuaternion = Quaternion.Identity();
  deckMesh.parent = pivot;
  deckMesh.rotationQuaternion = Quaternion.FromLookDirectionLH(forward, Vector3.Up());
  deckMesh.position.y = -thick / 2;
  let time = 0;
  const place = (): void => {
    pivot.position.set(centre.x, mean + heave * Math.sin((2 * Math.PI * time) / 6), centre.z);
    Quaternion.RotationAxisToRef(forward, roll * Math.sin((2 * Math.PI * time) / 7), pivot.rotationQuaternion!);
  };
  place();
  // the deck moves: MovingGroundRaycast follows its world matrix every ray, nothing re-baked
  const grounder = GrounderFBBIK.create(ik, { raycast: MovingGroundRaycast.fromMeshes([deckMesh]).raycast });
  grounder.resetPosition();
  const surfaces: AbstractMesh[] = [deckMesh];
  let worst = 0;
  let frames = 0;
  const footRange = [
    [Infinity, -Infinity],
    [Infinity, -Infinity],
  ];
  const deckRange = [
    [Infinity, -Infinity],
    [Infinity, -Infinity],
  ];
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({
      feet: feetOnSurfaces(scene, surfaces, feet),
      rest: restPos.map((p) => p.y),
      time,
      height: h,
    }),
    update: (dt) => {
      time += dt;
      place();
    },
    after: () => {
      // once settled (1 s), each ankle should stand as high above the deck under it as above the floor at rest
      if (run.done || time < 1) return;
      frames++;
      feet.forEach((f, i) => {
        const p = bonePos(f);
        const g = surfaceAt(scene, surfaces, p);
        if (g === null) return;
        const err = p.y - g.y - restPos[i]!.y;
        if (Math.abs(err) > Math.abs(worst)) worst = err;
        const fr = footRange[i]!;
        const dr = deckRange[i]!;
        fr[0] = Math.min(fr[0]!, p.y);
        fr[1] = Math.max(fr[1]!, p.y);
        dr[0] = Math.min(dr[0]!, g.y);
        dr[1] = Math.max(dr[1]!, g.y);
      });
      // a full heave (6 s) seen, or enough frames on a slow machine
      if (time > 7 && frames >= 20) {
        run.checks = {
          worst,
          frames,
          footRange: footRange as unknown as Json,
          deckRange: deckRange as unknown as Json,
          tolerance: 0.01 * h,
          height: h,
        };
        run.done = true;
      }
    },
    dispose: () => {
      grounder.dispose();
      c.root.position.copyFrom(start);
    },
  };
  frameCamera(ctx, c, centre.add(new Vector3(0, 0.5 * h, 0)), 4.8 * h, 0.9, 1);
  ctx.camera.beta = 1.25;
  return run;
}

export const deck: Scenario = {
  name: "deck",
  title: "Deck",
  help: "GrounderFBBIK on a moving deck: the deck heaves and rolls, the feet stay on it.",
  build,
};
