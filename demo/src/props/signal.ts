/**
 * Materials that show the colour a legend or a help text names ("hands orange", "the orange ball"). The stage's
 * ACES tone mapping and a lit colour's clipped red channel turn a saturated orange yellow, so these skip the
 * scene's image processing and are lit within range: the side facing the sun shows the named colour, the far
 * side about 70 % of it, with the same hue.
 */
import { ImageProcessingConfiguration } from "@babylonjs/core/Materials/imageProcessingConfiguration";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { Color3 } from "@babylonjs/core/Maths/math.color";
import type { Scene } from "@babylonjs/core/scene";

/** Diffuse share: the stage's lights add up to 2.2 (sun 1.6, sky 0.6), so 0.15 × 2.2 + the glow stays ≤ 1. */
const DIFFUSE = 0.15;
/** Emissive share at full glow. */
export const SIGNAL_GLOW = 0.65;

/** One configuration per scene for all of them: image processing off (the colour goes to the screen as is). */
const untouched = new WeakMap<Scene, ImageProcessingConfiguration>();

function plainProcessing(scene: Scene): ImageProcessingConfiguration {
  let ip = untouched.get(scene);
  if (ip === undefined) {
    ip = new ImageProcessingConfiguration();
    ip.isEnabled = false;
    untouched.set(scene, ip);
  }
  return ip;
}

/** A material that renders as `color` (sRGB, as a CSS swatch shows it) where it is lit most. */
export function signalMaterial(scene: Scene, name: string, color: Color3, alpha = 1): StandardMaterial {
  const m = new StandardMaterial(name, scene);
  m.imageProcessingConfiguration = plainProcessing(scene);
  m.diffuseColor = color.scale(DIFFUSE);
  m.emissiveColor = color.scale(SIGNAL_GLOW);
  m.specularColor = new Color3(0.25, 0.25, 0.25);
  m.alpha = alpha;
  return m;
}

/** A flat material (no lighting) that renders exactly as its emissive colour (or a thin instance's colour). */
export function flatSignalMaterial(scene: Scene, name: string, color: Color3): StandardMaterial {
  const m = new StandardMaterial(name, scene);
  m.imageProcessingConfiguration = plainProcessing(scene);
  m.disableLighting = true;
  m.emissiveColor = color.clone();
  return m;
}
