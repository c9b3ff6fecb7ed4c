import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Quat } from "../../math/quat.js";
import { Vec3 } from "../../math/vec3.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { detectBipedFacing, nodeFacingAxisToRef } from "../../babylon/character-forward.js";
import { type GrounderLeg, GrounderLegSet, legProblems } from "./grounder-leg-set.js";

export type { GrounderLeg } from "./grounder-leg-set.js";
import { GROUNDER_OPTION_KINDS, type GrounderOptions } from "./grounder-options.js";
import { grounderIKSettings } from "./grounder-settings.js";
import type { OptionKinds } from "../../babylon/option-check.js";
import { type IKSettingsObject, applySettings, serializeSettings } from "../../babylon/ik-settings.js";
import { moveBoneInWorld } from "./grounder-setup.js";
import { LegGrounder } from "./leg-grounder.js";

/** Options of {@link GrounderIK}: those of every grounder ({@link GrounderOptions}) and the root's turn. */
export interface GrounderIKOptions extends GrounderOptions {
  /**
   * The node turned toward the plane of the feet's ground (multi-legged creatures), by `rootRotationWeight`.
   * Default none (no turn). It may be the grounder's `root` too.
   */
  characterRoot?: TransformNode | null;
  /** [0, 1] How much {@link GrounderIKOptions.characterRoot} turns to the feet's ground plane. Default 0.5. */
  rootRotationWeight?: number;
  /** How fast the root turns (rate per second). Default 5. */
  rootRotationSpeed?: number;
  /** For skeletons without linked TransformNodes: the mesh the skeleton deforms (default: the first one). */
  mesh?: AbstractMesh;
  /** [0, 90] The most the root turns, degrees. Default 45. */
  maxRootRotationAngle?: number;
  /**
   * The axis of `root`, in its own frame, the character faces ({@link GrounderIK.characterForward}). Default: for the
   * legs of a detected biped, the root's axis nearest its facing; else +z.
   */
  characterForward?: Vector3;
}

/** The kinds of {@link GrounderIKOptions}, for the check at create. */
export const GROUNDER_IK_OPTION_KINDS: OptionKinds<GrounderIKOptions> = {
  ...GROUNDER_OPTION_KINDS,
  characterRoot: "object|null",
  rootRotationWeight: "number",
  rootRotationSpeed: "number",
  mesh: "object",
  maxRootRotationAngle: "number",
  characterForward: "object",
};

const tv = new Vec3();

/**
 * Into `out`, the axis of `root` nearest the way the skeleton's detected biped faces, when `legs` start at its
 * thighs (a biped on two legs); `out` left as it is otherwise (a creature: +z).
 */
function bipedFacingAxisToRef(
  root: TransformNode,
  legs: readonly GrounderLeg[],
  mesh: AbstractMesh | null,
  out: Vector3,
): void {
  const facing = detectBipedFacing(legs[0]!.skeleton, mesh);
  if (facing === null) return;
  const firsts = legs.map((l) => l.bones[0]);
  const r = facing.references;
  if (firsts.includes(r.leftThigh) && firsts.includes(r.rightThigh)) nodeFacingAxisToRef(root, facing.forward, out);
}

/**
 * FinalIK's GrounderIK: keeps the feet of legs solved by the chain solvers ({@link LimbIK}, {@link CCDIK},
 * {@link FABRIK}) on uneven ground — a biped on two LimbIKs, a spider, a mech. Each frame it probes the ground under
 * each leg's foot ({@link Grounding}), moves `pelvis` down (or up) so that the lower foot can reach, aims every leg
 * at its foot's ground, turns the feet to the ground's normal and, with a `characterRoot`, turns the root toward the
 * plane of the feet's ground. The animation is expected to be made for flat ground at the root's height.
 *
 * ```ts
 * const legs = [LimbIK.create(scene, thighL, calfL, footL), LimbIK.create(scene, thighR, calfR, footR)];
 * for (const leg of legs) leg.solver.ikRotationWeight = 0;
 * const grounder = GrounderIK.create(legs, pelvis, { root: characterRoot });
 * ```
 *
 * Frame order: FinalIK takes the legs' updates over; here the legs keep theirs and the grounder joins the scene's
 * updater just before the first of them (`updateOrder` one below the lowest leg's; legs created without an
 * `updateOrder` solve before their skeleton's FullBodyBipedIK while it exists): after the animations it moves the
 * pelvis and turns the root, then each leg, as it solves in its own place, is aimed at its foot's ground (its
 * `solver.ikPosition` and, for that solve only, `solver.ikPositionWeight` = the grounder's weight; its own target is
 * not read) and its foot is turned after the solve, as part of the leg's output (the leg's FixTransforms and
 * `enableFadeSeconds` cover it). A leg updated by hand (`autoUpdate` false) runs the grounder's pass first when it
 * has not run this frame. The pelvis's move and the root's turn are taken off before the next animations
 * (FixTransforms). At `weight` 0, or `enabled` false, the grounder touches nothing: the legs solve as without it,
 * bit for bit.
 *
 * Feet keep their animated component-space rotation through the solve, turned by the ground (as GrounderFBBIK's
 * feet). Sizes, time and the ground probes are GrounderFBBIK's: lengths scaled to the skeleton's height and the
 * root's scale since create ({@link lengthScale}), the scene's animation time clamped to [0, 1/3] s.
 */
export class GrounderIK extends LegGrounder {
  /** The legs, in the grounding solver's order (`solver.legs[i]` is `legs[i]`'s foot). */
  readonly legs: readonly GrounderLeg[];
  /** The bone moved up and down (an ancestor of every leg). */
  readonly pelvis: Bone;
  /**
   * The axis of {@link root}, in its own frame, the character faces: the grounder's forward, which places the probes
   * ahead of and beside each foot (`quality` Simple, a `footCenterOffset`, Best's sampled sphere). Default: when the
   * legs start at the thighs of the skeleton's detected biped references, the root's axis nearest the way the biped
   * faces (±x or ±z, as FullBodyBipedIK's `characterForward`; a root facing its +z gets +z exactly); else +z
   * (FinalIK's). Set it, in place, for another root.
   */
  readonly characterForward = new Vector3(0, 0, 1);
  private readonly pelvisId: number;
  /** The legs and their grounding: inputs, aims and feet. */
  private readonly legSet: GrounderLegSet;

  /** Attaches a grounder to `legs` ({@link GrounderIKOptions}); throws {@link FBBIKError} for legs it cannot use. */
  constructor(legs: readonly GrounderLeg[], pelvis: Bone, options: GrounderIKOptions = {}) {
    const problems = (): string[] => {
      const found: string[] = [];
      if (legs.length === 0) found.push("GrounderIK needs at least one leg");
      legProblems(legs, pelvis, pelvis.getSkeleton(), found);
      return found;
    };
    const bones = [pelvis, ...legs.flatMap((l) => l.bones)];
    super("GrounderIK", legs, legs, pelvis, bones, options, GROUNDER_IK_OPTION_KINDS, problems);
    this.legs = [...legs];
    this.pelvis = pelvis;
    this.pelvisId = this.rig.idOf(pelvis);
    this.rig.storeDefaultLocalState([{ bone: this.pelvisId, position: true }]);
    this.legSet = new GrounderLegSet(this.rig, legs, this.solver);
    this.legSets.push(this.legSet);
    if (options.rootRotationWeight !== undefined) this.turn.weight = options.rootRotationWeight;
    if (options.rootRotationSpeed !== undefined) this.turn.speed = options.rootRotationSpeed;
    if (options.maxRootRotationAngle !== undefined) this.turn.maxAngle = options.maxRootRotationAngle;
    if (options.characterForward !== undefined) this.characterForward.copyFrom(options.characterForward).normalize();
    else if (this.root !== null) bipedFacingAxisToRef(this.root, legs, options.mesh ?? null, this.characterForward);
    this.warnUnknownOptions(GROUNDER_IK_OPTION_KINDS, { "": this, solver: this.solver });
  }

  /** Attaches a grounder to `legs` (same as the constructor). */
  static create(legs: readonly GrounderLeg[], pelvis: Bone, options: GrounderIKOptions = {}): GrounderIK {
    return new GrounderIK(legs, pelvis, options);
  }

  /**
   * Creates a grounder on `legs` ({@link create}, with `options`) and loads the settings `parsed` into it
   * ({@link applySettings}): Babylon's `Parse` for settings saved by {@link serialize}.
   */
  static Parse(
    parsed: unknown,
    legs: readonly GrounderLeg[],
    pelvis: Bone,
    options: GrounderIKOptions = {},
  ): GrounderIK {
    const grounder = new GrounderIK(legs, pelvis, options);
    grounder.applySettings(parsed);
    return grounder;
  }

  /**
   * The grounder's settings as a plain JSON object (Babylon's `serialize`): `version`, `customType`, its
   * `weight` and the root's turn, then `solver` (as GrounderFBBIK's). Not `enabled`, the legs, `root` or
   * `characterRoot`. The legs' own settings are theirs.
   */
  serialize(): IKSettingsObject {
    return serializeSettings(grounderIKSettings(this), "GrounderIK");
  }

  /**
   * Loads settings saved by {@link serialize} (whole or in part). An unknown key, a bad value or another
   * component's settings are warned (once a load) on the first leg's `onWarningObservable` (`grounder:settings:…`) and
   * skipped; nothing throws.
   */
  applySettings(parsed: unknown): void {
    this.forgetSettingsWarnings();
    applySettings(grounderIKSettings(this), parsed, (cause, message) => this.warn(cause, message), "GrounderIK");
  }

  /** [0, 1] How much {@link characterRoot} turns toward the feet's ground plane. Default 0.5. */
  get rootRotationWeight(): number {
    return this.turn.weight;
  }
  set rootRotationWeight(v: number) {
    this.turn.weight = v;
  }
  /** How fast the root turns (rate per second). Default 5. */
  get rootRotationSpeed(): number {
    return this.turn.speed;
  }
  set rootRotationSpeed(v: number) {
    this.turn.speed = v;
  }
  /** [0, 90] The most the root turns from its own up, degrees. Default 45. */
  get maxRootRotationAngle(): number {
    return this.turn.maxAngle;
  }
  set maxRootRotationAngle(v: number) {
    this.turn.maxAngle = v;
  }
  /** The root's current (eased) turn, a world rotation on the left of its own. */
  get rootRotationOffset(): Quat {
    return this.turn.offset;
  }
  /** @internal Probe, turn the root, move the pelvis (before any leg reads its bones). */
  protected solveFrame(): void {
    const g = this.solver;
    const w = this.frameWeight;
    this.rig.read();
    this.rootReader.read(g, this.root, this.characterForward);
    this.legSet.readInputs(this.rig);
    g._step();
    const root = this.characterRoot;
    if (root !== null && !root.isDisposed()) {
      this.turn.apply(root, g, w);
      // the turned root carries component space: read it again (nothing of the grounder stands yet)
      this.rig.read();
    }
    const po = g.pelvis.ikOffset;
    tv.x = po.x * w;
    tv.y = po.y * w;
    tv.z = po.z * w;
    moveBoneInWorld(this.rig, this.pelvisId, tv);
    this.rig.write();
  }
}
