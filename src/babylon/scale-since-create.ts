import type { Matrix } from "@babylonjs/core/Maths/math.vector.js";
import { Vec3 } from "../math/vec3.js";
import type { BabylonRig } from "./babylon-rig.js";
import { axisLengths } from "./world-matrix.js";
import { moduleMatrix } from "./module-matrix.js";

const tm = moduleMatrix();
const lengths = new Vec3();

/**
 * How much a character was scaled since a component was created: lengths the component takes in world units
 * are meant at the character's size then, and multiplied by this a character scaled at run time (a power-up, a
 * height slider) keeps them in proportion (ARCHITECTURE.md, deviation 24). The scale is component space's
 * (the mean length of its axes in the world), as the rig reads it.
 */
export class ScaleSinceCreate {
  /** Component space's scale when the component was created. */
  readonly created: number;
  /** The last update's ratio of the scale now to {@link created}; exactly 1 within 1e-6 of it. */
  value = 1;

  /** Takes the scale of `rig`'s component space now (its world matrix as it stands, not the last read). */
  constructor(rig: BabylonRig) {
    this.created = componentScaleNow(rig);
  }

  /** {@link value} from the rig's last read (the pose the IK solves). */
  update(rig: BabylonRig): void {
    this.set(rig.componentScale);
  }

  /** {@link value} from component space's world matrix as it stands (outside a solve). */
  updateNow(rig: BabylonRig): void {
    this.set(meanAxisLength(rig._componentToWorldNow(tm)));
  }

  private set(scale: number): void {
    const r = scale / this.created;
    // a turning character's Float32 axes round their lengths by up to 5e-8: not a change of scale
    this.value = r > 1 - 1e-6 && r < 1 + 1e-6 ? 1 : r > 0 && r < Infinity ? r : 1;
  }
}

/** The mean length of a matrix's three axes (its uniform scale). */
export function meanAxisLength(m: Matrix): number {
  axisLengths(m.m, lengths);
  return (lengths.x + lengths.y + lengths.z) / 3;
}

/**
 * The scale of `rig`'s component space as its world matrix stands now (not the last read): what a component
 * created now takes its world-unit lengths at; 1 when not finite and > 0. Setup-time.
 */
export function componentScaleNow(rig: BabylonRig): number {
  const s = meanAxisLength(rig._componentToWorldNow(tm));
  return s > 0 && s < Infinity ? s : 1;
}
