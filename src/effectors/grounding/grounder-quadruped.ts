import type { Bone } from "@babylonjs/core/Bones/bone.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { type IKSettingsObject, applySettings, serializeSettings } from "../../babylon/ik-settings.js";
import { NumberRef } from "../../math/number-ref.js";
import { Quat, slerpByRef } from "../../math/quat.js";
import { isAncestorBone } from "../../babylon/bone-chain.js";
import type { BabylonRig } from "../../babylon/babylon-rig.js";
import { nodeFacingAxisToRef } from "../../babylon/character-forward.js";
import { type GrounderLeg, GrounderLegSet, legProblems } from "./grounder-leg-set.js";
import { GROUNDER_QUADRUPED_OPTION_KINDS, type GrounderQuadrupedOptions } from "./grounder-quadruped-options.js";
import { grounderQuadrupedSettings } from "./grounder-settings.js";
import type { Grounding } from "./grounding.js";
import { LegGrounder } from "./leg-grounder.js";
import { QuadrupedBody } from "./quadruped-body.js";

const headWorld = new Quaternion();
const tq = new Quat();
const weightRef = new NumberRef();
const bv = new Vector3();

/**
 * FinalIK's GrounderQuadruped: keeps the feet of a horse, a dog or a cat on uneven ground. Two {@link Grounding}
 * solvers probe the ground under the hind legs (`legs`, hanging from `pelvis`) and the forelegs (`forelegs`, hanging
 * from `lastSpineBone`, the spine bone the shoulders hang from); the pelvis and the chest move up or down each for
 * its own legs (at most `maxLegOffset` and `maxForeLegOffset`), the `characterRoot` pitches toward the ground's
 * slope between them (`rootRotationWeight`, within `minRootRotation`…`maxRootRotation`, at `rootRotationSpeed`), each
 * leg ({@link LimbIK}, {@link CCDIK}, {@link FABRIK}) is aimed at its foot's ground and its foot turned to it, and
 * the `head` keeps its animated world rotation by `maintainHeadRotationWeight`.
 *
 * ```ts
 * const grounder = GrounderQuadruped.create(hindLegs, pelvis, foreLegs, chest, { head, characterRoot: root });
 * ```
 *
 * Frame order and the legs' part are {@link GrounderIK}'s: the grounder runs in the scene's updater just before the
 * first of its legs, and everything it writes (the pelvis's and the chest's moves, the head's turn, the root's pitch)
 * is taken off before the next animations (FixTransforms). At `weight` 0, or `enabled` false, it touches nothing:
 * the legs solve as without it, bit for bit.
 *
 * Where the pelvis and the chest go (not in FinalIK's documentation; ours): each of them at its animated world
 * position moved along up by its legs' need, the pelvis whole, the chest along up only (its place ahead is the
 * pitched body's). A set of legs needs what its grounding's pelvis asks (lowered for the lower foot, by
 * `solver.lowerPelvisWeight`) and, when every foot of the set stands on higher ground, up by the least raised: a
 * quadruped's chest climbs a step with both forelegs, where a biped's pelvis does not. The pitch is the slope of the
 * line between the two needs, over the distance between the hind and the fore hips.
 */
export class GrounderQuadruped extends LegGrounder {
  /** The hind legs, in {@link solver}'s order. */
  readonly legs: readonly GrounderLeg[];
  /** The forelegs, in {@link forelegSolver}'s order. */
  readonly forelegs: readonly GrounderLeg[];
  /** The bone the hind legs hang from, moved up and down for them. */
  readonly pelvis: Bone;
  /** The spine bone the forelegs hang from (the chest), moved up and down for them. */
  readonly lastSpineBone: Bone;
  /** The head whose world rotation is kept (null: none). */
  readonly head: Bone | null;
  /** The grounding solver of the forelegs ({@link solver} is the hind legs'). */
  readonly forelegSolver: Grounding;
  /** [0, 1] How much the body pitches toward the ground's slope. Default 0.5. */
  rootRotationWeight = 0.5;
  /** [-90, 0] The most the body pitches down, degrees. Default -25. */
  minRootRotation = -25;
  /** [0, 90] The most the body pitches up, degrees. Default 45. */
  maxRootRotation = 45;
  /** How fast the pitch follows (rate per second). Default 5. */
  rootRotationSpeed = 5;
  /** The most the pelvis moves for the hind legs, world units at create (scaled with the character). */
  maxLegOffset: number;
  /** The most the chest moves for the forelegs, world units at create (scaled with the character). */
  maxForeLegOffset: number;
  /** [0, 1] How much the head keeps its animated world rotation. Default 0.5. */
  maintainHeadRotationWeight = 0.5;
  /**
   * The axis of {@link root}, in its own frame, the creature faces: the forward the body pitches along and the probes
   * take (`quality` Simple, a `footCenterOffset`, Best's sampled sphere). Default: the root's axis nearest the way
   * from the hind hips to the fore hips at create (±x or ±z; a root facing its +z gets +z exactly); +z without a
   * root. Set it, in place, for another root.
   */
  readonly characterForward = new Vector3(0, 0, 1);
  /** The body's placement: the two needs, the pitch, the moves. */
  private readonly body = new QuadrupedBody();
  private readonly pelvisId: number;
  private readonly chestId: number;
  private readonly headId: number;
  private readonly hindSet: GrounderLegSet;
  private readonly foreSet: GrounderLegSet;
  /** The head's component rotation as it stands, before it is turned back. */
  private readonly headRotation = new Quat();

  /**
   * Attaches a grounder to the hind `legs` under `pelvis` and the `forelegs` under `lastSpineBone`
   * ({@link GrounderQuadrupedOptions}); throws {@link FBBIKError} for legs or bones it cannot use.
   */
  constructor(
    legs: readonly GrounderLeg[],
    pelvis: Bone,
    forelegs: readonly GrounderLeg[],
    lastSpineBone: Bone,
    options: GrounderQuadrupedOptions = {},
  ) {
    const head = options.head ?? null;
    const all = [...legs, ...forelegs];
    const bones = [pelvis, lastSpineBone, ...(head !== null ? [head] : []), ...all.flatMap((l) => l.bones)];
    const problems = () => quadrupedProblems(legs, pelvis, forelegs, lastSpineBone, head);
    super("GrounderQuadruped", all, legs, pelvis, bones, options, GROUNDER_QUADRUPED_OPTION_KINDS, problems);
    this.legs = [...legs];
    this.forelegs = [...forelegs];
    this.pelvis = pelvis;
    this.lastSpineBone = lastSpineBone;
    this.head = head;
    this.pelvisId = this.rig.idOf(pelvis);
    this.chestId = this.rig.idOf(lastSpineBone);
    this.headId = head !== null ? this.rig.idOf(head) : -1;
    // what FixTransforms gives back: the pelvis's and the chest's positions, the head's rotation
    this.rig.storeDefaultLocalState([
      { bone: this.pelvisId, position: true },
      { bone: this.chestId, position: true },
      ...(this.headId >= 0 ? [{ bone: this.headId, position: false }] : []),
    ]);
    if (options.characterRoot === undefined) this.characterRoot = this.root;
    if (options.characterForward !== undefined) this.characterForward.copyFrom(options.characterForward).normalize();
    else if (this.root !== null) hipsFacingAxisToRef(this.rig, this.root, legs, forelegs, this.characterForward);
    this.forelegSolver = this.createGrounding(forelegs.length, options, "forelegSolver");
    this.hindSet = new GrounderLegSet(this.rig, legs, this.solver);
    this.foreSet = new GrounderLegSet(this.rig, forelegs, this.forelegSolver);
    this.legSets.push(this.hindSet, this.foreSet);
    this.maxLegOffset = options.maxLegOffset ?? 0.5 * this.lengthUnit;
    this.maxForeLegOffset = options.maxForeLegOffset ?? 0.5 * this.lengthUnit;
    if (options.rootRotationWeight !== undefined) this.rootRotationWeight = options.rootRotationWeight;
    if (options.minRootRotation !== undefined) this.minRootRotation = options.minRootRotation;
    if (options.maxRootRotation !== undefined) this.maxRootRotation = options.maxRootRotation;
    if (options.rootRotationSpeed !== undefined) this.rootRotationSpeed = options.rootRotationSpeed;
    if (options.maintainHeadRotationWeight !== undefined)
      this.maintainHeadRotationWeight = options.maintainHeadRotationWeight;
    this.warnUnknownOptions(GROUNDER_QUADRUPED_OPTION_KINDS, {
      "": this,
      solver: this.solver,
      forelegSolver: this.forelegSolver,
    });
  }

  /** Attaches a grounder (same as the constructor). */
  static create(
    legs: readonly GrounderLeg[],
    pelvis: Bone,
    forelegs: readonly GrounderLeg[],
    lastSpineBone: Bone,
    options: GrounderQuadrupedOptions = {},
  ): GrounderQuadruped {
    return new GrounderQuadruped(legs, pelvis, forelegs, lastSpineBone, options);
  }

  /**
   * Creates a grounder ({@link create}, with the same arguments after `parsed`) and loads the settings `parsed` into it
   * ({@link applySettings}): Babylon's `Parse` for settings saved by {@link serialize}.
   */
  static Parse(parsed: unknown, ...args: ConstructorParameters<typeof GrounderQuadruped>): GrounderQuadruped {
    const grounder = new GrounderQuadruped(...args);
    grounder.applySettings(parsed);
    return grounder;
  }

  /**
   * The grounder's settings as a plain JSON object (Babylon's `serialize`): `version`, `customType`, its own
   * settings, then `solver` and `forelegSolver` (as GrounderFBBIK's `solver`). Not `enabled`, the legs, the bones,
   * `root` or `characterRoot`.
   */
  serialize(): IKSettingsObject {
    return serializeSettings(grounderQuadrupedSettings(this), "GrounderQuadruped");
  }

  /**
   * Loads settings saved by {@link serialize} (whole or in part). An unknown key, a bad value or another
   * component's settings are warned (once a load) on the first hind leg's `onWarningObservable`
   * (`grounder:settings:…`) and skipped; nothing throws.
   */
  applySettings(parsed: unknown): void {
    this.forgetSettingsWarnings();
    applySettings(grounderQuadrupedSettings(this), parsed, (c, m) => this.warn(c, m), "GrounderQuadruped");
  }

  /** The body's current (eased) pitch, degrees (positive: the chest up). */
  get pitch(): number {
    return this.body.pitch;
  }
  /** This frame's move of the pelvis along up, world units (0 when the grounder did not run). */
  get legOffset(): number {
    return this.body.hindNeed * this.frameWeight;
  }
  /** This frame's move of the chest along up, world units (0 when the grounder did not run). */
  get foreLegOffset(): number {
    return this.body.foreNeed * this.frameWeight;
  }
  /** Forgets the grounder's motion, offsets and pitch: call after teleporting the character. */
  override resetPosition(): void {
    super.resetPosition();
    this.body.reset();
  }

  /** @internal Probe, pitch the root, move the pelvis and the chest, keep the head (before any leg reads). */
  protected solveFrame(): void {
    const hind = this.solver;
    const fore = this.forelegSolver;
    const w = this.frameWeight;
    const rig = this.rig;
    rig.read();
    const body = this.body;
    rig.getWorldPosition(this.pelvisId, bv);
    body.setAnimated(bv, true);
    rig.getWorldPosition(this.chestId, bv);
    body.setAnimated(bv, false);
    const head = this.headId;
    if (head >= 0) rig.getWorldRotation(head, headWorld);
    this.rootReader.read(hind, this.root, this.characterForward);
    this.rootReader.read(fore, this.root, this.characterForward);
    this.hindSet.readInputs(rig);
    this.foreSet.readInputs(rig);
    hind._step();
    fore._step();
    body.maxHind = this.maxLegOffset * hind.lengthScale;
    body.maxFore = this.maxForeLegOffset * fore.lengthScale;
    body.pitchWeight = this.rootRotationWeight;
    body.minPitch = this.minRootRotation;
    body.maxPitch = this.maxRootRotation;
    body.pitchSpeed = this.rootRotationSpeed;
    body.update(hind, fore);
    const root = this.characterRoot;
    if (root !== null && !root.isDisposed()) {
      body.pitchRotation(hind, this.turn.offset);
      this.turn.frameWeight = w;
      this.turn.write(root);
      // the pitched root carries component space: read it again (nothing of the grounder stands yet)
      rig.read();
    }
    body.weight = w;
    body.place(rig, this.pelvisId, this.chestId, hind.up);
    const keep = this.maintainHeadRotationWeight;
    if (head >= 0 && keep > 0) {
      rig.worldToBoneRotation(head, headWorld, tq);
      weightRef.value = (keep < 1 ? keep : 1) * w;
      rig.setRotation(head, slerpByRef(tq, rig.getRotation(head, this.headRotation), tq, weightRef));
    }
    rig.write();
  }
}

/**
 * Into `out`, the axis of `root` nearest the way from the hind legs' hips to the forelegs' (a creature faces its
 * forelegs whatever its root's axes: a `.babylon` root facing −z, a controller turned a quarter).
 */
function hipsFacingAxisToRef(
  rig: BabylonRig,
  root: TransformNode,
  legs: readonly GrounderLeg[],
  forelegs: readonly GrounderLeg[],
  out: Vector3,
): void {
  const mean = (set: readonly GrounderLeg[]): Vector3 => {
    const sum = new Vector3();
    for (const leg of set) sum.addInPlace(rig.getWorldPosition(rig.idOf(leg.bones[0]!), new Vector3()));
    return sum.scaleInPlace(1 / set.length);
  };
  nodeFacingAxisToRef(root, mean(forelegs).subtractInPlace(mean(legs)), out);
}

/** Why the legs and bones given to GrounderQuadruped cannot be used (none: empty). */
function quadrupedProblems(
  legs: readonly GrounderLeg[],
  pelvis: Bone,
  forelegs: readonly GrounderLeg[],
  lastSpineBone: Bone,
  head: Bone | null,
): string[] {
  const problems: string[] = [];
  const skeleton = pelvis.getSkeleton();
  if (legs.length === 0) problems.push("GrounderQuadruped needs at least one hind leg");
  if (forelegs.length === 0) problems.push("GrounderQuadruped needs at least one foreleg");
  if (lastSpineBone.getSkeleton() !== skeleton || !isAncestorBone(pelvis, lastSpineBone))
    problems.push(`lastSpineBone ${lastSpineBone.name} does not hang from ${pelvis.name}`);
  if (head !== null && (head.getSkeleton() !== skeleton || !isAncestorBone(lastSpineBone, head)))
    problems.push(`head ${head.name} does not hang from ${lastSpineBone.name}`);
  legProblems(legs, pelvis, skeleton, problems);
  legProblems(forelegs, lastSpineBone, skeleton, problems);
  for (const leg of forelegs) if (legs.includes(leg)) problems.push(`leg ${leg.bones[0]!.name} is in both sets`);
  return problems;
}
