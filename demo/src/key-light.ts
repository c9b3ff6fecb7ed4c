/**
 * The stage's lights turned with the character. They were set for the glTF models, which face +Z once loaded; a
 * .babylon file's character faces −Z, and under the same sun its front was in shade (RiggedFigure.babylon's,
 * while its glTF copy's is lit). The first character turns the lights by whole quarter turns about the vertical
 * from there, so the glTF models keep exactly the light they had and any other gets it as they do.
 */
import type { DirectionalLight } from "@babylonjs/core/Lights/directionalLight";
import type { HemisphericLight } from "@babylonjs/core/Lights/hemisphericLight";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { Scene } from "@babylonjs/core/scene";

/** The sun's direction (where its light goes), its place for the shadows, the sky's up: for a character facing +Z. */
export const SUN_DIRECTION: Readonly<Vector3> = new Vector3(-0.45, -1, 0.55);
export const SUN_POSITION: Readonly<Vector3> = new Vector3(5, 10, -6);
export const SKY_UP: Readonly<Vector3> = new Vector3(0.2, 1, 0.1);

/** The turn about the vertical, in quarter turns, from +Z to the horizontal `forward`. */
export function quarterTurns(forward: Vector3): number {
  // a yaw as Babylon's RotationY counts it: (0, 0, 1) turned by θ is (sin θ, 0, cos θ)
  const yaw = Math.atan2(forward.x, forward.z);
  return ((Math.round(yaw / (Math.PI / 2)) % 4) + 4) % 4;
}

/** Sets the sun (and the sky, when the scene has the stage's "hemi") for a character facing `forward`. */
export function lightFront(scene: Scene, sun: DirectionalLight, forward: Vector3): void {
  const turn = Quaternion.RotationAxis(Vector3.Up(), (quarterTurns(forward) * Math.PI) / 2);
  SUN_DIRECTION.applyRotationQuaternionToRef(turn, sun.direction);
  SUN_POSITION.applyRotationQuaternionToRef(turn, sun.position);
  const sky = scene.getLightByName("hemi") as HemisphericLight | null;
  if (sky !== null) SKY_UP.applyRotationQuaternionToRef(turn, sky.direction);
}

/** The horizontal unit vector toward the sun (its shadows fall the other way). */
export function towardSun(sun: DirectionalLight): Vector3 {
  return new Vector3(-sun.direction.x, 0, -sun.direction.z).normalize();
}
