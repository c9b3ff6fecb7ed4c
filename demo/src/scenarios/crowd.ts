import { Color3 } from "@babylonjs/core/Maths/math.color";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { CreateSphere } from "@babylonjs/core/Meshes/Builders/sphereBuilder";
import {
  armLength,
  arr,
  bonePos,
  type Character,
  type Ctx,
  frameCamera,
  type Json,
  mat,
  type ScenarioRun,
  worldPos,
  type Scenario,
} from "../kit";

async function build(ctx: Ctx): Promise<ScenarioRun> {
  const N = 10;
  const scene = ctx.scene;
  const first = ctx.spawn(Vector3.Zero());
  const spacing = 0.9 * first.h;
  const chars: Character[] = [first];
  first.root.position.addInPlace(new Vector3(-((N - 1) / 2) * spacing, 0, -((N - 1) / 2) * spacing));
  for (let i = 1; i < N * N; i++) {
    const x = (i % N) - (N - 1) / 2;
    const z = Math.floor(i / N) - (N - 1) / 2;
    chars.push(ctx.spawn(new Vector3(x * spacing, 0, z * spacing)));
  }
  // shadows from the front row only (a hundred shadow casters are slow on software GL)
  const map = ctx.shadows.getShadowMap();
  if (map !== null) map.renderList = chars.slice(N * (N - 1)).flatMap((c) => c.meshes);
  const targetMat = mat(scene, "target", new Color3(1, 0.8, 0.1));
  targetMat.emissiveColor = new Color3(0.5, 0.35, 0);
  const targets = chars.map((c, i) => {
    const r = c.ik.references;
    const L = armLength(c, false);
    const s = CreateSphere(`target ${i}`, { diameter: 0.09 * c.h, segments: 8 }, scene);
    s.material = targetMat;
    const centre = bonePos(r.rightUpperArm)
      .add(c.forward.scale(1.05 * L))
      .add(new Vector3(0, -0.3 * L, 0)); // clear of the big head and belly
    const e = c.ik.solver.rightHandEffector;
    e.target = s;
    e.positionWeight = 1;
    return { s, centre, L, phase: i * 0.7, c };
  });
  let time = 0;
  let frames = 0;
  const place = () => {
    for (const t of targets) {
      const a = time * 1.3 + t.phase;
      t.s.position.copyFrom(t.centre);
      t.s.position.addInPlace(t.c.right.scale(0.3 * t.L * Math.cos(a)));
      t.s.position.y += 0.3 * t.L * Math.sin(a);
    }
  };
  place();
  const c0 = chars[0]!;
  // hands and the target spheres' world positions (the scene objects, not the effectors)
  const pairs = (): Json =>
    targets.map((t) => ({ hand: arr(bonePos(t.c.ik.references.rightHand)), target: arr(worldPos(t.s)) }));
  const samples: Json[] = [];
  const run: ScenarioRun = {
    checks: {},
    done: false,
    world: () => ({ pairs: pairs(), height: c0.h }),
    update: (dt) => {
      // before the solve: the IK reaches for where the targets are this frame
      time += dt;
      place();
    },
    after: () => {
      frames++;
      // three moments, the targets elsewhere each time
      if ((frames === 6 || frames === 12 || frames === 18) && !run.done) {
        samples.push({ frame: frames, time, pairs: pairs() });
        if (samples.length === 3) {
          run.checks = { samples, count: chars.length, height: c0.h };
          run.done = true;
        }
      }
    },
  };
  frameCamera(ctx, first, new Vector3(0, 0.3 * first.h, 0), N * spacing * 1.25, 1, 0.8);
  ctx.camera.beta = 1.2;
  return run;
}

export const crowd: Scenario = {
  name: "crowd",
  title: "Crowd",
  help: "Many characters, each right hand on its own moving target.",
  build,
};
