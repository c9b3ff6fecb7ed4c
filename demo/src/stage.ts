/**
 * The stage every scenario starts from: sky colour and fog, a sun with soft shadows over a hemispheric fill,
 * a large floor with a 1 m grid (a procedural texture: scale and motion read at a glance), the orbit camera.
 */
import { ArcRotateCamera } from "@babylonjs/core/Cameras/arcRotateCamera";
import { DirectionalLight } from "@babylonjs/core/Lights/directionalLight";
import { HemisphericLight } from "@babylonjs/core/Lights/hemisphericLight";
import { ShadowGenerator } from "@babylonjs/core/Lights/Shadows/shadowGenerator";
import { ImageProcessingConfiguration } from "@babylonjs/core/Materials/imageProcessingConfiguration";
import { StandardMaterial } from "@babylonjs/core/Materials/standardMaterial";
import { DynamicTexture } from "@babylonjs/core/Materials/Textures/dynamicTexture";
import { Texture } from "@babylonjs/core/Materials/Textures/texture";
import { Color3, Color4 } from "@babylonjs/core/Maths/math.color";
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import { CreateGround } from "@babylonjs/core/Meshes/Builders/groundBuilder";
import type { Mesh } from "@babylonjs/core/Meshes/mesh";
import { Scene } from "@babylonjs/core/scene";
import type { Engine } from "@babylonjs/core/Engines/engine";
import { SKY_UP, SUN_DIRECTION, SUN_POSITION } from "./key-light";

/** Sky colour: the clear colour and the fog's (the e2e test checks the ground differs from it). */
export const SKY = new Color4(0.7, 0.78, 0.88, 1);
/** Floor size (m); the fog hides its edge. */
const FLOOR = 200;

export interface Stage {
  scene: Scene;
  camera: ArcRotateCamera;
  sun: DirectionalLight;
  shadows: ShadowGenerator;
  ground: Mesh;
}

/** A 1 m grid cell: a warm grey tile, thin lines every 25 cm, a stronger line on the metre. */
function gridTexture(scene: Scene): DynamicTexture {
  const size = 512;
  const tex = new DynamicTexture("floor grid", { width: size, height: size }, scene, true);
  const g = tex.getContext();
  g.fillStyle = "#8e918c";
  g.fillRect(0, 0, size, size);
  g.strokeStyle = "rgba(40, 44, 48, 0.22)";
  g.lineWidth = 2;
  for (let i = 1; i < 4; i++) {
    const x = (i * size) / 4;
    g.beginPath();
    g.moveTo(x, 0);
    g.lineTo(x, size);
    g.moveTo(0, x);
    g.lineTo(size, x);
    g.stroke();
  }
  g.strokeStyle = "rgba(30, 34, 40, 0.55)";
  g.lineWidth = 6;
  g.strokeRect(0, 0, size, size);
  tex.update(true);
  tex.wrapU = Texture.WRAP_ADDRESSMODE;
  tex.wrapV = Texture.WRAP_ADDRESSMODE;
  tex.uScale = FLOOR;
  tex.vScale = FLOOR;
  // the grid stays crisp at grazing angles instead of shimmering
  tex.anisotropicFilteringLevel = 8;
  return tex;
}

/** A new scene with the stage's lights, floor and camera. */
export function createStage(engine: Engine): Stage {
  const scene = new Scene(engine);
  scene.clearColor = SKY.clone();
  scene.ambientColor = new Color3(0.3, 0.3, 0.3);
  scene.fogMode = Scene.FOGMODE_EXP2;
  scene.fogColor = new Color3(SKY.r, SKY.g, SKY.b);
  scene.fogDensity = 0.018;
  const ip = scene.imageProcessingConfiguration;
  ip.toneMappingEnabled = true;
  ip.toneMappingType = ImageProcessingConfiguration.TONEMAPPING_ACES;
  ip.exposure = 1.1;
  ip.contrast = 1.1;

  const camera = new ArcRotateCamera("camera", -Math.PI / 2, 1.25, 4, new Vector3(0, 0.9, 0), scene);
  camera.wheelDeltaPercentage = 0.02;
  camera.minZ = 0.05;
  camera.maxZ = 400;
  // never under the floor: the camera stays above the target's horizontal plane
  camera.upperBetaLimit = Math.PI / 2 - 0.08;
  camera.lowerBetaLimit = 0.15;
  camera.attachControl(true);

  // turned to the first character's front by lightFront (key-light.ts)
  const hemi = new HemisphericLight("hemi", SKY_UP.clone(), scene);
  hemi.intensity = 0.6;
  hemi.diffuse = new Color3(0.95, 0.97, 1);
  hemi.groundColor = new Color3(0.42, 0.38, 0.34);
  const sun = new DirectionalLight("sun", SUN_DIRECTION.clone(), scene);
  sun.position = SUN_POSITION.clone();
  sun.intensity = 1.6;
  sun.diffuse = new Color3(1, 0.96, 0.88);
  const shadows = new ShadowGenerator(1024, sun);
  // soft edges in one pass (PCF); software GL (the e2e test's SwiftShader) gets the cheapest filter
  shadows.usePercentageCloserFiltering = true;
  const software = /swiftshader|llvmpipe|software/i.test(engine.getGlInfo().renderer);
  shadows.filteringQuality = software ? ShadowGenerator.QUALITY_LOW : ShadowGenerator.QUALITY_MEDIUM;
  shadows.darkness = 0.2;
  shadows.bias = 0.002;
  // no normal bias: shrinking the casters along their normals opened the seams between a model's separate
  // shells (white cracks across the Mannequin's shadow); the depth bias alone keeps PCF free of acne here
  shadows.normalBias = 0;

  const ground = CreateGround("floor", { width: FLOOR, height: FLOOR }, scene);
  const gm = new StandardMaterial("floor", scene);
  gm.diffuseTexture = gridTexture(scene);
  gm.specularColor = new Color3(0.05, 0.05, 0.05);
  ground.material = gm;
  ground.receiveShadows = true;
  return { scene, camera, sun, shadows, ground };
}

/** A camera pose (the scenario's framing, restored by "reset view"). */
export interface View {
  alpha: number;
  beta: number;
  radius: number;
  target: Vector3;
}

export function saveView(c: ArcRotateCamera): View {
  return { alpha: c.alpha, beta: c.beta, radius: c.radius, target: c.target.clone() };
}

export function restoreView(c: ArcRotateCamera, v: View): void {
  // a drag's glide stops too: its inertia would carry the camera off the view again
  c.inertialAlphaOffset = 0;
  c.inertialBetaOffset = 0;
  c.inertialRadiusOffset = 0;
  c.inertialPanningX = 0;
  c.inertialPanningY = 0;
  c.target = v.target.clone();
  c.alpha = v.alpha;
  c.beta = v.beta;
  c.radius = v.radius;
}

/** Zoom limits from the character's height `h` (and the scenario's own framing, the crowd's far view). */
export function limitCamera(c: ArcRotateCamera, h: number): void {
  c.lowerRadiusLimit = Math.min(0.35 * h, c.radius);
  c.upperRadiusLimit = Math.max(12 * h, 1.5 * c.radius);
  c.panningSensibility = 1000 / Math.max(0.1, h);
}
