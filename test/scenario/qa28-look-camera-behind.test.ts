/**
 * A LookAtIK on the active camera (docs/API.md, "LookAtIK") while a third-person camera orbits the idling character
 * at 1° a frame, passing behind it a little above its head. With the example's clamps (0.5, smoothed twice: FinalIK's)
 * the head swings across the back several times faster than the camera moves and tips up over the top; with the
 * clamps the docs give for a camera that goes round (0.75, no smoothing) it never turns faster than the camera.
 */
import { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterEach, describe, expect, it } from "vitest";
import { LookAtIK } from "../../src/babylon/look-at-ik.js";
import { type LoadedModel, modelAvailable } from "../helpers/babylon-scene.js";
import { idlingUal } from "../helpers/idling-ual.js";
import { report } from "../helpers/modifier-scene.js";
import { rotationAngle, worldRotation } from "../helpers/rotation-angle.js";

const open: LoadedModel[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.dispose();
});

/** The head's fastest change of the IK's turn (° a frame) and the most it tips the face up (°) over one orbit. */
async function orbit(clamp: number, smoothing: number): Promise<{ step: number; up: number }> {
  const { m, ik } = await idlingUal(open);
  const r = ik.references;
  // in front of the character (glTF faces +Z), 3 m out, 17° above the horizontal through its chest
  const camera = new ArcRotateCamera("orbit", Math.PI / 2, 1.3, 3, new Vector3(0, 1.2, 0), m.scene);
  m.scene.activeCamera = camera;
  const look = LookAtIK.create(m.scene, { spine: r.spine, head: r.head!, eyes: r.eyes }, { target: camera });
  look.solver.bodyWeight = 0.3;
  look.solver.headWeight = 0.8;
  look.solver.clampWeight = clamp;
  look.solver.clampWeightHead = clamp;
  look.solver.clampSmoothing = smoothing;
  const head = r.head!.getTransformNode()!;
  let animated = new Quaternion();
  m.scene.onAfterAnimationsObservable.add(() => {
    animated = worldRotation(head);
  });
  let step = 0;
  let up = 0;
  let last: Quaternion | null = null;
  for (let f = 0; f <= 360; f++) {
    camera.alpha = Math.PI / 2 + (f * Math.PI) / 180;
    m.scene.render();
    const turn = worldRotation(head).multiply(Quaternion.Inverse(animated));
    if (last !== null) step = Math.max(step, (rotationAngle(turn, last) * 180) / Math.PI);
    last = turn;
    up = Math.max(up, (Math.asin(Vector3.Forward().applyRotationQuaternion(turn).y) * 180) / Math.PI);
  }
  return { step, up };
}

describe.skipIf(!modelAvailable("UAL"))("LookAtIK on an orbiting camera (UAL idling)", () => {
  it("the example's clamps swing the head over the top behind; 0.75 without smoothing follows at the camera's pace", async () => {
    const example = await orbit(0.5, 2);
    const round = await orbit(0.75, 0);
    report(
      "head's fastest turn (°/frame, camera 1°/frame) and most tipped up (°): clamps 0.5",
      example.step,
      example.up,
    );
    report("the same with clamps 0.75, clampSmoothing 0", round.step, round.up);
    // measured: 5.47°/frame and 69.1° up (FinalIK's clamps)
    expect(example.step).toBeGreaterThan(4);
    expect(example.up).toBeGreaterThan(50);
    // measured: 0.90°/frame and 9.4° up
    expect(round.step).toBeLessThan(1);
    expect(round.up).toBeLessThan(12);
  });
});
