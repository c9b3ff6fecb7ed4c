import {
  Vec3,
  anyPerpendicular,
  copy,
  cross,
  dot,
  isFiniteVec,
  normalize,
  projectOnPlane,
  sub,
} from "../../math/vec3.js";
import type { ReadonlyVec3 } from "../../math/vec3.js";
import { GroundingHit, GroundingQuality, type GroundingRaycast } from "./grounding-common.js";
import { GroundingLeg } from "./grounding-leg.js";
import { GroundingPelvis } from "./grounding-pelvis.js";

const tv = new Vec3();
const origin = new Vec3();
const sample = new Vec3();
const rootCentre = new Vec3();
const probe = new GroundingHit();

/**
 * The numeric settings of {@link Grounding} that must be finite, in the order of its last-valid store. A
 * non-finite one keeps its last valid value (warned once per setting), as the IK's chain settings do.
 */
const SETTINGS = [
  "maxStep",
  "heightOffset",
  "footSpeed",
  "footRadius",
  "footCenterOffset",
  "prediction",
  "footRotationWeight",
  "footRotationSpeed",
  "maxFootRotationAngle",
  "pelvisSpeed",
  "pelvisDamper",
  "lowerPelvisWeight",
  "liftPelvisWeight",
  "pelvisReachWeight",
  "rootSphereCastRadius",
  "sphereProbeRays",
  "lengthUnit",
  "lengthScale",
] as const;
type Setting = (typeof SETTINGS)[number];
/** The settings that must also be > 0 (scale factors). */
const POSITIVE_SETTINGS: ReadonlySet<Setting> = new Set<Setting>(["lengthUnit", "lengthScale"]);

/** The cast-length boxes of {@link Grounding}: the feet's rays and the root's. */
const FEET_RAYS = 0;
const ROOT_RAY = 1;

/**
 * The engine-neutral grounding solver (FinalIK's Grounding): probes the ground under each foot with a
 * caller-supplied raycast and computes, per frame, where each foot should go (`legs[i].ikPosition`), how
 * it should turn (`legs[i].rotationOffset`) and how far the pelvis should move (`pelvis.ikOffset`). It
 * moves nothing itself: a component such as `GrounderFBBIK` applies the results to a solver.
 *
 * Everything is in world space. Before each {@link update} the caller sets the root pose
 * (`rootPosition`, `rootUp`, `rootForward`) and each leg's `footPosition` (the animated foot).
 *
 * Lengths (`maxStep`, `footRadius`, `heightOffset`, `footCenterOffset`, `rootSphereCastRadius`) are
 * world units, multiplied when used by {@link lengthScale} (1 unless a caller sets it: `GrounderFBBIK` sets it to
 * how much its character was scaled since create); the defaults are FinalIK's, for a human about 1.8 units tall
 * (`GrounderFBBIK` scales them to its character). `prediction` is a time (seconds of foot velocity), so it needs
 * no scaling.
 */
export class Grounding {
  /** How the ground under the feet is probed. Default Best. */
  quality = GroundingQuality.Best;
  /** The largest step up or down the feet follow (world units, ≥ 0). Default 0.5. */
  maxStep = 0.5;
  /** Raises the feet by this much above the ground (world units). Default 0. */
  heightOffset = 0;
  /**
   * How fast the feet follow the ground: a constant rate of `footSpeed × lengthUnit` world units per
   * second, then an exponential ease at rate `footSpeed` per second. Default 2.5.
   */
  footSpeed = 2.5;
  /** The feet's radius for the Simple rays and the Best sphere probe (world units). Default 0.15. */
  footRadius = 0.15;
  /** Offset of the foot centre from the foot bone along the root's forward (world units). Default 0. */
  footCenterOffset = 0;
  /** Seconds of the foot's horizontal velocity to probe ahead (0 disables prediction). Default 0.05. */
  prediction = 0.05;
  /** [0, 1] How much the feet turn to the ground normal. Default 1. */
  footRotationWeight = 1;
  /** How fast the feet turn to the ground normal (rate per second). Default 7. */
  footRotationSpeed = 7;
  /** [0, 90] The most the feet turn to the ground normal, degrees. Default 45. */
  maxFootRotationAngle = 45;
  /** Use the root's up instead of the world up (characters walking on walls). Default false. */
  rotateSolver = false;
  /** How fast the pelvis follows (rate per second). Default 5. */
  pelvisSpeed = 5;
  /** [0, 1] How much the pelvis resists the root's own vertical motion (stairs). Default 0. */
  pelvisDamper = 0;
  /** How much the pelvis lowers so that a foot on lower ground reaches it. Default 1. */
  lowerPelvisWeight = 1;
  /** How much the pelvis rises with a foot on higher ground. Default 0. */
  liftPelvisWeight = 0;
  /**
   * [0, 1] How much the pelvis lowers further, at once, while it eases down more slowly than a grounded foot
   * (going down stairs): enough that each leg whose {@link GroundingLeg.legLength} is set reaches its
   * `ikPosition` with the knee still bent, never lower than the lowest foot asks (`lowerPelvisWeight`), a foot
   * asking less being heeded at `pelvisSpeed` (the root going down a slope past a planted foot); when less is
   * needed, the pelvis goes back up at `pelvisSpeed` (not in a frame). 0 is FinalIK's: the leg straightens
   * and its foot hangs above the ground until the pelvis catches up. Default 1.
   */
  pelvisReachWeight = 1;
  /** Radius of the Best quality root probe (world units). Default 0.1. */
  rootSphereCastRadius = 0.1;
  /** A foot whose ray finds nothing goes down by maxStep (true) or stays at the root's height (false). Default true. */
  overstepFallsDown = true;
  /**
   * Rays on the circle of the Best quality sphere probe (besides the centre ray), 3–32, for a raycast without
   * a sphere cast (see {@link probeSphere}). Default 8.
   */
  sphereProbeRays = 8;
  /**
   * The character's length unit: 1 for a human of 1.8 world units, `height / 1.8` otherwise. Scales the
   * constant-rate part of `footSpeed` (a speed) so that the motion looks the same at any size.
   */
  lengthUnit = 1;
  /**
   * Multiplies every length (`maxStep`, `footRadius`, `heightOffset`, `footCenterOffset`, `rootSphereCastRadius`,
   * and `lengthUnit`) when it is used, leaving the fields as set: a character scaled at run time keeps its
   * proportions. `GrounderFBBIK` sets it every frame (its root's world scale over the one at create). Finite,
   * > 0. Default 1. Not in FinalIK.
   */
  lengthScale = 1;
  /** The time step of the update in progress (or the last one), seconds; 0 when nothing was eased. */
  deltaTime = 0;
  /**
   * The time the feet moved over since the last update, seconds: their velocity (what `prediction` probes ahead
   * by) is their move over it. {@link update} sets it; `GrounderFBBIK` sets the scene time since it last ran, as
   * its eases' `deltaTime` is clamped to 1/3 s. Below `deltaTime` or not finite: `deltaTime` is used.
   */
  frameTime = 0;
  /**
   * Called once per setting whose value is not finite (NaN, ±∞; `lengthUnit` also when ≤ 0): that setting
   * keeps its last valid value, written back in place. `cause` is `grounding:<setting>`. Default: none.
   */
  onWarning: ((cause: string, message: string) => void) | null = null;
  /** Prefix of the settings' names in warnings (`GrounderFBBIK` says where its solver is). */
  warningPrefix = "Grounding.";
  /** The raycast the probes use (world space). */
  raycast: GroundingRaycast;
  /** The world's up (unit). Default +Y. */
  readonly worldUp = new Vec3(0, 1, 0);

  /** Input: the character root's world position (it is expected to stand on the ground). */
  readonly rootPosition = new Vec3();
  /** Input: the character root's world up. */
  readonly rootUp = new Vec3(0, 1, 0);
  /** Input: the character root's world forward. */
  readonly rootForward = new Vec3(0, 0, 1);

  /** The up used this frame: `worldUp`, or the root's up with `rotateSolver`. */
  readonly up = new Vec3(0, 1, 0);
  /** The root's forward made perpendicular to `up`, this frame. */
  readonly forward = new Vec3(0, 0, 1);
  /** up × forward (a side direction; which side depends on the handedness, which nothing here relies on). */
  readonly right = new Vec3(1, 0, 0);
  /** The legs, one per foot. */
  readonly legs: readonly GroundingLeg[];
  /** The pelvis. */
  readonly pelvis: GroundingPelvis;
  /** The root probe's contact. */
  readonly rootHit = new GroundingHit();
  /**
   * True when the ground is within maxStep below the root (otherwise the feet and pelvis ease back to the animation).
   */
  rootGrounded = false;
  private readonly down = new Vec3(0, -1, 0);
  // probe parameters kept in fields (see ARCHITECTURE.md, "Doubles across calls")
  private sphereRadius = 0;
  // The length of the next ray, handed to the raycast already boxed: the raycast is a call V8 usually does
  // not inline (a user's function, or one too large), and a double passed to one is boxed on every call,
  // 16 B a ray, up to 29 rays a frame. Arrays of tagged elements (the undefined they start with makes them so)
  // hold it boxed; a length is stored again only when it changes. One for the feet's rays, one for the root's.
  private readonly castLengths: (number | undefined)[][] = [[undefined], [undefined]];
  private castLength = this.castLengths[FEET_RAYS]!;
  // The lengths those boxes hold, as plain doubles for the comparison: comparing a box's element (which
  // started undefined) with a double made V8 box the double on every call, 16 B a ray.
  private readonly castValues = new Float64Array([Number.NaN, Number.NaN]);
  // The same for the radius handed to a sphere cast: [0] the feet's, [1] the root's.
  private readonly sphereRadii: (number | undefined)[][] = [[undefined], [undefined]];
  private sphereRadiusBox = this.sphereRadii[FEET_RAYS]!;
  private readonly sphereRadiusValues = new Float64Array([Number.NaN, Number.NaN]);
  /** The last valid value of each of SETTINGS (the defaults until a first update). */
  private readonly validSettings = new Float64Array(SETTINGS.length);
  private readonly warnedSettings = new Set<Setting | "worldUp">();
  private readonly validWorldUp = new Vec3(0, 1, 0);

  /** A solver for `legCount` feet probing with `raycast`. */
  constructor(legCount: number, raycast: GroundingRaycast) {
    this.raycast = raycast;
    const legs: GroundingLeg[] = [];
    for (let i = 0; i < legCount; i++) legs.push(new GroundingLeg(this));
    this.legs = legs;
    this.pelvis = new GroundingPelvis(this);
    this.keepValidSettings();
  }

  /**
   * Takes the current settings as the last valid ones (the fallback of a setting that turns non-finite),
   * where they are valid. The constructor does it with the defaults; call it after setting them up.
   */
  keepValidSettings(): void {
    const v = this.validSettings;
    for (let i = 0; i < SETTINGS.length; i++) {
      const x = this[SETTINGS[i]!];
      if (settingValid(i, x)) v[i] = x;
    }
  }

  /** Forgets all motion and offsets (FinalIK's Reset; call after teleporting the character). */
  reset(): void {
    for (let i = 0; i < this.legs.length; i++) this.legs[i]!.reset();
    this.pelvis.reset();
    this.rootGrounded = false;
  }

  /**
   * Probes and eases everything by `deltaTime` seconds. With `deltaTime` ≤ 0, or a non-finite `rootPosition`
   * (a frame a controller got wrong), nothing is probed or eased; the legs' `ikPosition` follows the current feet
   * with the current offsets. A leg whose foot is not finite eases nothing either. `frameTime` is the time the
   * feet moved over since the last update, if longer (see the `frameTime` field).
   */
  update(deltaTime: number, frameTime = deltaTime): void {
    this.deltaTime = deltaTime;
    this.frameTime = frameTime;
    this._step();
  }

  /**
   * @internal {@link update} by the time in `deltaTime` (set it first): the per-frame caller's way in, so no
   * double crosses a call (see ARCHITECTURE.md, "Doubles across calls").
   */
  _step(): void {
    const deltaTime = this.deltaTime;
    this.validateSettings();
    this.keepSettingsInRange();
    // a frame with a non-finite root position (a controller's bad frame) passes no time: the eased state stays
    const dt = deltaTime > 0 && deltaTime < Infinity && isFiniteVec(this.rootPosition) ? deltaTime : 0;
    this.deltaTime = dt;
    const frameTime = this.frameTime;
    this.frameTime = dt > 0 && frameTime > dt && frameTime < Infinity ? frameTime : dt;

    const up = this.up;
    const wu = this.worldUp;
    if (Number.isFinite(wu.x) && Number.isFinite(wu.y) && Number.isFinite(wu.z)) copy(this.validWorldUp, wu);
    else this.replaceWorldUp();
    if (this.rotateSolver) normalize(up, this.rootUp);
    else normalize(up, wu);
    if (up.x === 0 && up.y === 0 && up.z === 0) up.y = 1;
    this.down.x = -up.x;
    this.down.y = -up.y;
    this.down.z = -up.z;
    normalize(this.forward, projectOnPlane(this.forward, this.rootForward, up));
    if (this.forward.x === 0 && this.forward.y === 0 && this.forward.z === 0) anyPerpendicular(this.forward, up);
    cross(this.right, up, this.forward);

    const legs = this.legs;
    if (dt > 0 && this.maxStep > 0) this.probeRoot();

    let lowest = 0;
    let highest = 0;
    let anyGrounded = false;
    for (let i = 0; i < legs.length; i++) {
      const leg = legs[i]!;
      leg.process();
      if (leg.ikOffset > lowest) lowest = leg.ikOffset;
      if (leg.ikOffset < highest) highest = leg.ikOffset;
      if (leg.isGrounded) anyGrounded = true;
    }
    const pelvis = this.pelvis;
    pelvis.lowestOffset = -lowest * this.lowerPelvisWeight;
    pelvis.highestOffset = -highest * this.liftPelvisWeight;
    pelvis.anyLegGrounded = anyGrounded;
    pelvis.process();
  }

  /**
   * Clamps the settings with a range. Out of the long per-frame step and with the clamp written out: a double
   * handed to a call V8 does not inline there is boxed (16–32 B a frame, measured by the components bench).
   */
  private keepSettingsInRange(): void {
    if (!(this.maxStep >= 0)) this.maxStep = 0;
    const radius = this.footRadius;
    const most = this.maxStep > 0.0001 ? this.maxStep : 0.0001;
    this.footRadius = radius < 0.0001 ? 0.0001 : radius > most ? most : radius;
    if (!(this.prediction >= 0)) this.prediction = 0;
    if (!(this.rootSphereCastRadius >= 0)) this.rootSphereCastRadius = 0;
  }

  /**
   * Replaces each non-finite setting by its last valid value (warned once per setting) and remembers the
   * valid ones. Written out field by field: the usual case allocates nothing and reads no field by name.
   */
  private validateSettings(): void {
    const v = this.validSettings;
    if (
      Number.isFinite(this.maxStep) &&
      Number.isFinite(this.heightOffset) &&
      Number.isFinite(this.footSpeed) &&
      Number.isFinite(this.footRadius) &&
      Number.isFinite(this.footCenterOffset) &&
      Number.isFinite(this.prediction) &&
      Number.isFinite(this.footRotationWeight) &&
      Number.isFinite(this.footRotationSpeed) &&
      Number.isFinite(this.maxFootRotationAngle) &&
      Number.isFinite(this.pelvisSpeed) &&
      Number.isFinite(this.pelvisDamper) &&
      Number.isFinite(this.lowerPelvisWeight) &&
      Number.isFinite(this.liftPelvisWeight) &&
      Number.isFinite(this.pelvisReachWeight) &&
      Number.isFinite(this.rootSphereCastRadius) &&
      Number.isFinite(this.sphereProbeRays) &&
      this.lengthUnit > 0 &&
      this.lengthUnit < Infinity &&
      this.lengthScale > 0 &&
      this.lengthScale < Infinity
    ) {
      v[0] = this.maxStep;
      v[1] = this.heightOffset;
      v[2] = this.footSpeed;
      v[3] = this.footRadius;
      v[4] = this.footCenterOffset;
      v[5] = this.prediction;
      v[6] = this.footRotationWeight;
      v[7] = this.footRotationSpeed;
      v[8] = this.maxFootRotationAngle;
      v[9] = this.pelvisSpeed;
      v[10] = this.pelvisDamper;
      v[11] = this.lowerPelvisWeight;
      v[12] = this.liftPelvisWeight;
      v[13] = this.pelvisReachWeight;
      v[14] = this.rootSphereCastRadius;
      v[15] = this.sphereProbeRays;
      v[16] = this.lengthUnit;
      v[17] = this.lengthScale;
      return;
    }
    // a bad frame: by name (rare, allowed to be slow)
    for (let i = 0; i < SETTINGS.length; i++) {
      const name = SETTINGS[i]!;
      const x = this[name];
      if (settingValid(i, x)) {
        v[i] = x;
        continue;
      }
      this[name] = v[i]!;
      if (this.warnedSettings.has(name)) continue;
      this.warnedSettings.add(name);
      this.onWarning?.(
        `grounding:${name}`,
        `${this.warningPrefix}${name} is ${String(x)}` +
          `${POSITIVE_SETTINGS.has(name) ? " (it must be finite and > 0)" : " (not finite)"}; its last ` +
          `valid value ${v[i]} is kept.`,
      );
    }
  }

  /** A non-finite worldUp keeps its last finite value (written back, warned once). */
  private replaceWorldUp(): void {
    const wu = this.worldUp;
    if (!this.warnedSettings.has("worldUp")) {
      this.warnedSettings.add("worldUp");
      this.onWarning?.(
        "grounding:worldUp",
        `${this.warningPrefix}worldUp is (${wu.x}, ${wu.y}, ${wu.z}) (not finite); its last valid value (` +
          `${this.validWorldUp.x}, ${this.validWorldUp.y}, ${this.validWorldUp.z}) is kept.`,
      );
    }
    copy(wu, this.validWorldUp);
  }

  /** How far `point` is below the root (along up), less `heightOffset`. */
  heightAboveGround(point: ReadonlyVec3): number {
    return dot(sub(tv, this.rootPosition, point), this.up) - this.heightOffset * this.lengthScale;
  }

  /**
   * Casts a ray down from `maxStep` above `footAt`, `2 × maxStep` long. On a miss `out` gets the default
   * ground: `maxStep` below `footAt` (overstepFallsDown) or `footAt` at the root's height, normal up.
   * Returns true on a hit.
   */
  probeRay(footAt: ReadonlyVec3, out: GroundingHit): boolean {
    this.setOrigin(footAt);
    this.useCastLength(FEET_RAYS, 2);
    if (this.cast(origin, out)) return true;
    this.missDefault(footAt, out);
    return false;
  }

  /**
   * A sphere of `footRadius` swept down from `maxStep` above `centre`, `2 × maxStep` long (FinalIK's
   * capsule cast, which with `footCenterOffset` 0 is this sphere). Its lowest point starts where a ray would.
   *
   * With a raycast that carries a sphere cast (`raycast.sphereCast`: the triangle raycasts and Havok's do),
   * the sphere is swept over the ground: `out.point` is where it first touches and `out.normal` the touched
   * triangle's own normal, not the direction to the sphere's centre, so a foot resting on an edge keeps the
   * surface's slope (at a step's edge the top's, flat; on a rounded bump the slope under the sphere).
   *
   * Otherwise the sphere is sampled: one ray at the centre and `sphereProbeRays` rays on the circle of
   * `footRadius` around it (in the plane perpendicular to up). Each hit stands for its surface's plane; the
   * sphere rests on the plane that holds it highest (its height capped at the radius above the hit). On
   * flat ground, slopes and edges this is what a sphere cast gives; over a rounded bump the highest tangent
   * plane in the circle is above the ground under the foot, and the foot floats.
   *
   * `out.distance` is how far the sphere's lowest point travelled. On a miss `out` gets the default of
   * {@link probeRay}. Returns true on a hit.
   */
  probeSphere(centre: ReadonlyVec3, out: GroundingHit): boolean {
    this.sphereRadius = this.footRadius * this.lengthScale;
    this.useSphereRadius(FEET_RAYS);
    this.useCastLength(FEET_RAYS, 2);
    if (this.sphereCast(centre, out)) return true;
    this.missDefault(centre, out);
    return false;
  }

  /** Rays of `steps` × maxStep from here on, through the feet's or the root's box (see castLengths). */
  private useCastLength(rays: typeof FEET_RAYS | typeof ROOT_RAY, steps: number): void {
    const length = steps * this.maxStep * this.lengthScale;
    if (!(this.castValues[rays] === length)) {
      this.castValues[rays] = length;
      this.castLengths[rays]![0] = length;
    }
    this.castLength = this.castLengths[rays]!;
  }

  /** Sphere casts of `sphereRadius` from here on, through the feet's or the root's box (see sphereRadii). */
  private useSphereRadius(rays: typeof FEET_RAYS | typeof ROOT_RAY): void {
    const radius = this.sphereRadius;
    if (!(this.sphereRadiusValues[rays] === radius)) {
      this.sphereRadiusValues[rays] = radius;
      this.sphereRadii[rays]![0] = radius;
    }
    this.sphereRadiusBox = this.sphereRadii[rays]!;
  }

  /** A ray's origin: `maxStep` above `at` (written out: doubles across calls, ARCHITECTURE.md). */
  private setOrigin(at: ReadonlyVec3): void {
    const up = this.up;
    const lift = this.maxStep * this.lengthScale;
    origin.x = at.x + up.x * lift;
    origin.y = at.y + up.y * lift;
    origin.z = at.z + up.z * lift;
  }

  private missDefault(footAt: ReadonlyVec3, out: GroundingHit): void {
    const up = this.up;
    const r = this.rootPosition;
    const maxStep = this.maxStep * this.lengthScale;
    const down = this.overstepFallsDown
      ? -maxStep
      : -((footAt.x - r.x) * up.x + (footAt.y - r.y) * up.y + (footAt.z - r.z) * up.z);
    const p = out.point;
    p.x = footAt.x + up.x * down;
    p.y = footAt.y + up.y * down;
    p.z = footAt.z + up.z * down;
    copy(out.normal, up);
    out.distance = 2 * maxStep;
    out.ground = null;
  }

  private probeRoot(): void {
    const up = this.up;
    const legs = this.legs;
    const root = this.rootPosition;
    // the legs' centre at the root's height
    let cx = 0;
    let cy = 0;
    let cz = 0;
    for (let i = 0; i < legs.length; i++) {
      const f = legs[i]!.footPosition;
      cx += f.x;
      cy += f.y;
      cz += f.z;
    }
    const n = legs.length > 0 ? legs.length : 1;
    const c = rootCentre;
    c.x = cx / n - root.x;
    c.y = cy / n - root.y;
    c.z = cz / n - root.z;
    projectOnPlane(c, c, up);
    c.x += root.x;
    c.y += root.y;
    c.z += root.z;
    this.useCastLength(ROOT_RAY, 11);
    let hit: boolean;
    if (this.quality === GroundingQuality.Best && this.rootSphereCastRadius > 0) {
      this.sphereRadius = this.rootSphereCastRadius * this.lengthScale;
      this.useSphereRadius(ROOT_RAY);
      hit = this.sphereCast(c, this.rootHit);
    } else {
      this.setOrigin(c);
      hit = this.cast(origin, this.rootHit);
    }
    if (!hit) this.rootHit.distance = Infinity;
    this.rootGrounded = this.rootHit.distance < 2 * this.maxStep * this.lengthScale;
  }

  /** One ray of `castLength` along −up with sanitised output (unit normal facing up). */
  private cast(from: ReadonlyVec3, out: GroundingHit): boolean {
    if (!this.raycast(from, this.down, this.castLength[0]!, out)) return false;
    return this.sanitize(out);
  }

  /** A contact made usable: false when not finite; the normal unit and facing up (up itself when it has no length). */
  private sanitize(out: GroundingHit): boolean {
    const p = out.point;
    if (!(Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.z) && Number.isFinite(out.distance)))
      return false;
    const up = this.up;
    const n = out.normal;
    const l = Math.sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
    if (!(l > 0) || l === Infinity) {
      n.x = up.x;
      n.y = up.y;
      n.z = up.z;
      return true;
    }
    // unit, facing up
    const k = n.x * up.x + n.y * up.y + n.z * up.z < 0 ? -1 / l : 1 / l;
    n.x *= k;
    n.y *= k;
    n.z *= k;
    return true;
  }

  /** The sphere of `sphereRadius` swept `castLength` down from `maxStep` above `centre` (see probeSphere). */
  private sphereCast(centre: ReadonlyVec3, out: GroundingHit): boolean {
    const sweep = this.raycast.sphereCast;
    if (sweep === undefined) return this.sampleSphere(centre, out);
    // the sphere's lowest point starts where the rays would: its centre a radius higher
    const up = this.up;
    const lift = this.maxStep * this.lengthScale + this.sphereRadius;
    sample.x = centre.x + up.x * lift;
    sample.y = centre.y + up.y * lift;
    sample.z = centre.z + up.z * lift;
    // its travel is the distance a ray from the lowest point would report on flat ground
    return sweep(sample, this.down, this.sphereRadiusBox[0]!, this.castLength[0]!, out) && this.sanitize(out);
  }

  /** The sphere sampled by vertical rays, for a raycast without a sphere cast (see probeSphere). */
  private sampleSphere(centre: ReadonlyVec3, out: GroundingHit): boolean {
    const up = this.up;
    const fw = this.forward;
    const rt = this.right;
    const radius = this.sphereRadius;
    const start = this.maxStep * this.lengthScale;
    const asked = Math.round(this.sphereProbeRays);
    const rays = asked >= 3 ? (asked <= 32 ? asked : 32) : 3;
    const hc = centre.x * up.x + centre.y * up.y + centre.z * up.z;
    let best = -Infinity;
    for (let k = -1; k < rays; k++) {
      let ox = centre.x + up.x * start;
      let oy = centre.y + up.y * start;
      let oz = centre.z + up.z * start;
      if (k >= 0) {
        const a = (k / rays) * Math.PI * 2;
        const ca = Math.cos(a) * radius;
        const sa = Math.sin(a) * radius;
        ox += fw.x * ca + rt.x * sa;
        oy += fw.y * ca + rt.y * sa;
        oz += fw.z * ca + rt.z * sa;
      }
      sample.x = ox;
      sample.y = oy;
      sample.z = oz;
      if (!this.cast(sample, probe)) continue;
      const n = probe.normal;
      const q = probe.point;
      const h = q.x * up.x + q.y * up.y + q.z * up.z;
      const cap = h + radius;
      const c = n.x * up.x + n.y * up.y + n.z * up.z;
      // the sphere centre's height when resting on the hit's plane, met by the vertical through the centre
      let y = cap;
      if (c > 1e-3) {
        y = hc + ((q.x - centre.x) * n.x + (q.y - centre.y) * n.y + (q.z - centre.z) * n.z) / c + radius / c;
        if (y > cap) y = cap;
      }
      // ties go to the centre ray (it comes first)
      if (y > best + 1e-9 * radius) {
        best = y;
        out.point.x = q.x;
        out.point.y = q.y;
        out.point.z = q.z;
        out.normal.x = n.x;
        out.normal.y = n.y;
        out.normal.z = n.z;
      }
    }
    if (best === -Infinity) return false;
    out.distance = hc + start - (best - radius);
    return true;
  }
}

/** Whether `x` is a valid value of SETTINGS[i]: finite (lengthUnit and lengthScale also > 0). */
function settingValid(i: number, x: number): boolean {
  return POSITIVE_SETTINGS.has(SETTINGS[i]!) ? x > 0 && x < Infinity : Number.isFinite(x);
}
