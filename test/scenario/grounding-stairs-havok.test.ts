/**
 * GrounderFBBIK on stairs over Havok (@babylonjs/havok's wasm in Node): UAL walks up and then down eight static
 * boxes (rise 0.15, tread 0.3, as a game level's stairs) with its root on the stairs' pitch line (the ideal root
 * a character controller would give), probing through HavokGroundRaycast. Where the clip plants a foot, the lowest
 * of its sole's heel, ball and toe tip is measured against the surface right under it (a Havok ray): negative, a
 * toe in a riser; positive, the foot above the tread. The figures of docs/API.md's stairs recipe. Going down, no
 * planted foot may hang from a straight leg (`pelvisReachWeight`).
 */
import "@babylonjs/core/Materials/standardMaterial.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import "@babylonjs/core/Physics/joinedPhysicsEngineComponent.js";
import { PhysicsRaycastResult } from "@babylonjs/core/Physics/physicsRaycastResult.js";
import { describe, expect, it } from "vitest";
import { GrounderFBBIK } from "../../src/effectors/grounding/grounder-fbbik.js";
import { HavokGroundRaycast } from "../../src/effectors/grounding/havok-ground-raycast.js";
import { loadModel, modelAvailable } from "../helpers/babylon-scene.js";
import { loadHavok } from "../helpers/havok.js";
import { havokCharacter, staticBox } from "../helpers/havok-character.js";
import { report } from "../helpers/modifier-scene.js";
import { worldPos } from "../helpers/scene-probes.js";
import { spread } from "../helpers/spread.js";

const havok = await loadHavok();
const RISE = 0.15;
const TREAD = 0.3;
const STEPS = 8;
const STAIR_Z = 1.5;
const TOP = STEPS * RISE;
const LANDING_Z = STAIR_Z + STEPS * TREAD;

/** The pitch line through the treads' middles, flat below and on the landing. */
function pitchLine(z: number): number {
  return Math.min(TOP, Math.max(0, (RISE * (z - STAIR_Z + TREAD / 2)) / TREAD));
}

const title = havok.engine
  ? "GrounderFBBIK on Havok stairs (UAL)"
  : `GrounderFBBIK on Havok stairs (skipped: @babylonjs/havok's wasm did not load: ${havok.reason})`;

describe.skipIf(!havok.engine || !modelAvailable("UAL"))(title, () => {
  it("with the probe fitted to the sole, no planted toe goes into a riser; FinalIK's defaults put them there", async () => {
    const m = await loadModel("UAL", { clips: (c) => c === "Walk_Loop" });
    try {
      const { scene, plugin, root, ik, h, feet } = havokCharacter(m, havok.engine);
      const r = ik.references;
      // the soles at rest, in each foot bone's space: heel, ball (under the toe bone), toe tip (the skin's extent)
      const soleZ = [Infinity, -Infinity];
      for (const mesh of scene.meshes) {
        const positions = mesh.getVerticesData("position");
        if (positions === null || mesh.skeleton !== m.skeleton) continue;
        const world = mesh.computeWorldMatrix(true);
        for (let i = 0; i < positions.length; i += 3) {
          const v = Vector3.TransformCoordinates(Vector3.FromArray(positions, i), world);
          if (v.y > 0.02 * h) continue;
          soleZ[0] = Math.min(soleZ[0]!, v.z);
          soleZ[1] = Math.max(soleZ[1]!, v.z);
        }
      }
      const ankleZ = worldPos(r.leftFoot).z;
      const soles = feet.map((foot) => {
        const node = foot.getTransformNode()!;
        const toWorld = node.computeWorldMatrix(true).clone();
        const inverse = toWorld.clone().invert();
        const ankle = worldPos(foot);
        const ball = worldPos(foot.getChildren()[0]!);
        return [
          new Vector3(ankle.x, 0, soleZ[0]!),
          new Vector3(ball.x, 0, ball.z),
          new Vector3(ankle.x, 0, soleZ[1]!),
        ].map((p) => Vector3.TransformCoordinates(p, inverse));
      });
      // the heel behind the ankle and the toes ahead of it (UAL: 0.04 h and 0.15 h)
      expect(soleZ[0]!).toBeLessThan(ankleZ - 0.02 * h);

      const box = (size: Vector3, at: Vector3) => staticBox(scene, size, at);
      box(new Vector3(20, 1, 30), new Vector3(0, -0.5, 5));
      for (let i = 0; i < STEPS; i++)
        box(new Vector3(3, (i + 1) * RISE, TREAD), new Vector3(0, ((i + 1) * RISE) / 2, STAIR_Z + (i + 0.5) * TREAD));
      box(new Vector3(3, TOP, 2), new Vector3(0, TOP / 2, LANDING_Z + 1));
      const ray = new PhysicsRaycastResult();
      const groundUnder = (p: Vector3): number => {
        plugin.raycast(new Vector3(p.x, p.y + 0.5 * h, p.z), new Vector3(p.x, p.y - h, p.z), ray);
        return ray.hasHit ? ray.hitPointWorld.y : Number.NaN;
      };
      const clearance = (i: number): number => {
        const toWorld = feet[i]!.getTransformNode()!.computeWorldMatrix(true);
        let lowest = Infinity;
        for (const local of soles[i]!) {
          const p = Vector3.TransformCoordinates(local, toWorld);
          lowest = Math.min(lowest, p.y - groundUnder(p));
        }
        return lowest;
      };

      // the clip on flat ground: its planted feet's height and its walking speed
      const walk = m.container.animationGroups.find((g) => g.name === "Walk_Loop")!;
      walk.start(true);
      const track: Vector3[] = [];
      for (let f = 0; f < 120; f++) {
        scene.render();
        track.push(worldPos(r.leftFoot));
      }
      const lowest = Math.min(...track.map((p) => p.y));
      // a planted foot moves back at the walking speed
      const back: number[] = [];
      for (let f = 1; f < track.length; f++)
        if (track[f]!.y < lowest + 0.01 * h && track[f - 1]!.y < lowest + 0.01 * h)
          back.push((track[f - 1]!.z - track[f]!.z) * 60);
      const speed = back.reduce((a, b) => a + b, 0) / back.length;
      // the clip walks along the root's +z, about 0.6 h a second
      expect(speed).toBeGreaterThan(0.4 * h);

      const grounder = GrounderFBBIK.create(ik, { raycast: new HavokGroundRaycast(plugin).raycast });
      const legs = grounder.solver.legs;
      const thighs = [r.leftThigh, r.rightThigh];
      const calves = [r.leftCalf, r.rightCalf];
      const legLength = [0, 1].map(
        (i) =>
          Vector3.Distance(worldPos(thighs[i]!), worldPos(calves[i]!)) +
          Vector3.Distance(worldPos(calves[i]!), worldPos(feet[i]!)),
      );
      /**
       * Walks the stairs `ways`, the clip going on (or from its start); the planted soles' clearances on the stairs
       * and on the flat ground, and how many planted feet on the stairs hang from a straight leg (thigh to foot
       * over 0.9995 of the leg).
       */
      const walkStairs = (label: string, ways: readonly ("up" | "down")[], restart = false) => {
        const figures: Record<string, { mean: number; rms: number; min: number; max: number }> = {};
        const straight: Record<string, number> = {};
        const ends = { up: [STAIR_Z - 1.2, LANDING_Z + 1], down: [LANDING_Z + 1, STAIR_Z - 1.2] } as const;
        for (const name of ways) {
          const [from, to] = ends[name];
          const sign = Math.sign(to - from);
          root.rotation.y = sign > 0 ? 0 : Math.PI;
          let z = from;
          root.position.set(0, pitchLine(z), z);
          grounder.resetPosition();
          // from the clip's start, so that two walks' footfalls land on the same spots of the steps
          if (restart) walk.goToFrame(walk.from);
          const onStairs: number[] = [];
          const onFlat: number[] = [];
          straight[name] = 0;
          for (let f = 0; sign * (to - z) > 0; f++) {
            z += (sign * speed) / 60;
            root.position.set(0, pitchLine(z), z);
            scene.render();
            if (f < 20) continue;
            for (let i = 0; i < 2; i++) {
              if (legs[i]!.footPosition.y - root.position.y > lowest + 0.01 * h) continue;
              const footZ = worldPos(feet[i]!).z;
              const c = clearance(i);
              if (footZ > STAIR_Z + 0.5 * TREAD && footZ < LANDING_Z - 0.5 * TREAD) {
                onStairs.push(c);
                const stretch = Vector3.Distance(worldPos(thighs[i]!), worldPos(feet[i]!)) / legLength[i]!;
                if (stretch > 0.9995) straight[name]++;
              } else if (footZ < STAIR_Z - 0.3 || footZ > LANDING_Z + 0.3) onFlat.push(c);
            }
          }
          expect(onStairs.length).toBeGreaterThan(60);
          figures[name] = spread(onStairs);
          figures[`${name}, flat`] = spread(onFlat);
        }
        for (const [name, s] of Object.entries(figures))
          report(
            `stairs, ${label}, ${name}: planted soles' clearance mean, rms, lowest, highest (× h)`,
            s.mean / h,
            s.rms / h,
            s.min / h,
            s.max / h,
          );
        for (const [name, n] of Object.entries(straight)) report(`stairs, ${label}, ${name}: straight planted legs`, n);
        return { figures, straight };
      };
      // FinalIK's defaults centre the probe on the ankle (footCenterOffset 0) with footRadius 0.15 × h / 1.8, shorter
      // than UAL's sole (0.19 h): planted toes go into the risers going up (measured: mean −0.024 h, rms 0.059 h,
      // −0.10 h at the deepest; down rms 0.022 h, 0.086 h above the tread at worst)
      walkStairs("defaults", ["up", "down"]);
      // fitted as docs/API.md says (the sphere spans the sole), no planted toe goes into a riser (measured: −0.012 h at
      // the deepest, rms 0.024 h)
      grounder.solver.footRadius = (soleZ[1]! - soleZ[0]!) / 2;
      grounder.solver.footCenterOffset = (soleZ[0]! + soleZ[1]!) / 2 - ankleZ;
      const fitted = walkStairs("fitted to the sole", ["up"]);
      expect(fitted.figures.up!.min / h).toBeGreaterThan(-0.02);
      expect(fitted.figures.up!.rms / h).toBeLessThan(0.035);
      // going down, the pelvis eases down after a foot that lands a step lower: it lowers further at once, so no
      // planted foot hangs from a straight leg above the tread; FinalIK's ease alone (pelvisReachWeight 0) leaves
      // some (measured, from the clip's start: 0 and 12 of 85, the soles' clearance rms 0.0150 h and 0.0151 h)
      const down = walkStairs("fitted to the sole, from the clip's start", ["down"], true);
      expect(down.straight.down).toBe(0);
      grounder.solver.pelvisReachWeight = 0;
      const finalIK = walkStairs("fitted to the sole, from the clip's start, pelvisReachWeight 0", ["down"], true);
      expect(finalIK.straight.down).toBeGreaterThan(8);
      expect(finalIK.figures.down!.rms / h).toBeLessThan(0.0175);
      expect(down.figures.down!.rms).toBeLessThan(finalIK.figures.down!.rms);
    } finally {
      m.dispose();
    }
  });
});
