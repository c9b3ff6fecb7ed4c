/** Above this cosine of the turn left (under about 3.6°) a fade's step is an nlerp: as exact, and no acos. */
const SLERP_BELOW = 0.998;
/** [cos, t] in, [weight of the start, weight of the end] out: no double crosses the call (it would be boxed). */
const weights = new Float64Array(2);

/** Slerp's two weights for the turn whose cosine is `w[0]`, at the fraction `w[1]` (see {@link weights}). */
function slerpWeights(w: Float64Array): void {
  const t = w[1]!;
  const angle = Math.acos(w[0]!);
  const sin = Math.sin(angle);
  w[0] = Math.sin((1 - t) * angle) / sin;
  w[1] = Math.sin(t * angle) / sin;
}

/**
 * The cross-fade of a character's IK output at a change of level of detail. The output is kept as an
 * offset from the animated pose per written bone (local rotation animated⁻¹ · solved, local position
 * solved − animated); each frame of a fade writes the offset a fraction {@link OutputFade.step} of the way
 * from the offset shown when the fade began to this frame's (none when fading out), so every change of level,
 * Full ↔ Cheap included, is a straight blend from what was on screen to what the new level solves: no dip
 * through the animated pose, and none of the solver's own jumps near weight 0 (LimitBend and the bend plane
 * switch on at any weight above 0). The start is held, not the last frame's offset: chasing a solution that
 * moves every frame would lag it more and more and make up the lag in the fade's last frames (a pop). A bone's
 * offset that turns through half a turn from the start mid-fade keeps its way round (the target's sign follows the
 * last frame's): slerped on the near side, the partial turn would flip to the other side in one frame (UAL walking,
 * a hand held 0.3 h up, the upper arm's offset passing 180° while `enabled` faded out: a 0.75 h pop).
 * Allocation-free after construction.
 */
export class OutputFade {
  /** Per rig id: the offset last written, position (3) + rotation (4) at id * 7; identity when none. */
  readonly offsets: Float64Array;
  /** Per rig id, as {@link offsets}: the offset shown when the fade began, the blend's start. */
  private readonly start: Float64Array;
  /**
   * The fraction of the way from the fade's start to this frame's solution (1: the fade is over, the solution
   * is written as solved).
   */
  step = 1;
  /** True while fading out: this frame's solution is the animated pose (nothing is solved). */
  toAnimated = false;
  /** The local pose last written while settled (rotation 4, position 3 per id): offsets are derived at need. */
  private readonly lastRotation: Float64Array;
  private readonly lastPosition: Float64Array;
  /** True when {@link offsets} hold the last output; false while settled (only the last pose is kept). */
  private current = true;
  /** Per rig id: the last blended frame's target rotation offset (4), signed the way the fade goes round. */
  private readonly lastTarget: Float64Array;
  /** True when {@link lastTarget} holds the last frame of this fade (false at a fade's start). */
  private tracked = false;

  constructor(count: number) {
    this.offsets = new Float64Array(count * 7);
    for (let i = 0; i < count; i++) this.offsets[i * 7 + 6] = 1;
    this.start = this.offsets.slice();
    this.lastRotation = new Float64Array(count * 4);
    this.lastPosition = new Float64Array(count * 3);
    this.lastTarget = new Float64Array(count * 4);
  }

  /** True when this frame blends (a fade in progress). */
  get active(): boolean {
    return this.step < 1 || this.toAnimated;
  }

  /**
   * Before a fade starts: what is shown becomes its start. Settled, the offsets of the last pose written from
   * the animated pose it was written over (`animated`, 7 per stored bone, still the last read's before this
   * frame's read); mid-fade, the offsets last written.
   */
  capture(indexOf: Int32Array, animated: Float64Array): void {
    this.tracked = false;
    if (this.current) {
      this.start.set(this.offsets);
      return;
    }
    this.current = true;
    const off = this.offsets;
    const lrot = this.lastRotation;
    const lpos = this.lastPosition;
    for (let i = 1; i < indexOf.length; i++) {
      const k = indexOf[i]!;
      if (k < 0) continue;
      const a = k * 7;
      const o = i * 7;
      const o4 = i * 4;
      const o3 = i * 3;
      off[o] = lpos[o3]! - animated[a]!;
      off[o + 1] = lpos[o3 + 1]! - animated[a + 1]!;
      off[o + 2] = lpos[o3 + 2]! - animated[a + 2]!;
      const ax = animated[a + 3]!;
      const ay = animated[a + 4]!;
      const az = animated[a + 5]!;
      const aw = animated[a + 6]!;
      const bx = lrot[o4]!;
      const by = lrot[o4 + 1]!;
      const bz = lrot[o4 + 2]!;
      const bw = lrot[o4 + 3]!;
      off[o + 3] = aw * bx - ax * bw - ay * bz + az * by;
      off[o + 4] = aw * by + ax * bz - ay * bw - az * bx;
      off[o + 5] = aw * bz - ax * by + ay * bx - az * bw;
      off[o + 6] = aw * bw + ax * bx + ay * by + az * bz;
    }
    this.start.set(off);
  }

  /** Forgets the last output: the next fade starts from the animated pose (the IK was off). */
  clear(): void {
    this.current = true;
    this.tracked = false;
    const o = this.offsets;
    for (let i = 0; i < o.length; i += 7) {
      o[i] = 0;
      o[i + 1] = 0;
      o[i + 2] = 0;
      o[i + 3] = 0;
      o[i + 4] = 0;
      o[i + 5] = 0;
      o[i + 6] = 1;
    }
    this.start.set(o);
  }

  /**
   * Blends the local pose about to be written (`lrot` 4 and `lpos` 3 per id, `*Dirty` where the solve changed
   * it) toward this frame's solution from the fade's start, for the bones with an animated pose (`indexOf`,
   * `animated`: 7 per stored bone); marks the blended channels dirty. Settled (step 1, not fading out) it
   * only keeps a copy of the pose (written as solved, bit for bit).
   */
  apply(
    lrot: Float64Array,
    lpos: Float64Array,
    rotationDirty: Uint8Array,
    positionDirty: Uint8Array,
    indexOf: Int32Array,
    animated: Float64Array,
  ): void {
    if (!this.active) {
      // settled: the pose written is kept as it is (a copy), its offsets are derived only if a fade starts
      this.lastRotation.set(lrot);
      this.lastPosition.set(lpos);
      this.current = false;
      this.tracked = false;
      return;
    }
    this.current = true;
    const last = this.lastTarget;
    const tracked = this.tracked;
    this.tracked = true;
    const off = this.offsets;
    const start = this.start;
    const t = this.step < 1 ? this.step : 1;
    for (let i = 1; i < indexOf.length; i++) {
      const k = indexOf[i]!;
      if (k < 0) continue;
      const a = k * 7;
      const o = i * 7;
      const o3 = i * 3;
      const o4 = i * 4;
      // this frame's offset: the solve's change, or none
      let px = 0;
      let py = 0;
      let pz = 0;
      if (!this.toAnimated && positionDirty[i] !== 0) {
        px = lpos[o3]! - animated[a]!;
        py = lpos[o3 + 1]! - animated[a + 1]!;
        pz = lpos[o3 + 2]! - animated[a + 2]!;
      }
      // animated⁻¹ · solved (Hamilton product with the conjugate)
      const ax = animated[a + 3]!;
      const ay = animated[a + 4]!;
      const az = animated[a + 5]!;
      const aw = animated[a + 6]!;
      let qx = 0;
      let qy = 0;
      let qz = 0;
      let qw = 1;
      if (!this.toAnimated && rotationDirty[i] !== 0) {
        const bx = lrot[o4]!;
        const by = lrot[o4 + 1]!;
        const bz = lrot[o4 + 2]!;
        const bw = lrot[o4 + 3]!;
        qx = aw * bx - ax * bw - ay * bz + az * by;
        qy = aw * by + ax * bz - ay * bw - az * bx;
        qz = aw * bz - ax * by + ay * bx - az * bw;
        qw = aw * bw + ax * bx + ay * by + az * bz;
      }
      px = start[o]! + (px - start[o]!) * t;
      py = start[o + 1]! + (py - start[o + 1]!) * t;
      pz = start[o + 2]! + (pz - start[o + 2]!) * t;
      // slerp: the fraction t of the angle. An nlerp turns less early on and catches up at the end (a hand 0.56 h
      // off its animated place moved 1.4 % h a frame). The way round: the near one at the fade's start, then the
      // target's sign follows last frame's, so an offset passing half a turn from the start does not flip sides
      const sx = start[o + 3]!;
      const sy = start[o + 4]!;
      const sz = start[o + 5]!;
      const sw = start[o + 6]!;
      let cos = sx * qx + sy * qy + sz * qz + sw * qw;
      const along = tracked ? last[o4]! * qx + last[o4 + 1]! * qy + last[o4 + 2]! * qz + last[o4 + 3]! * qw : cos;
      let flip = along < 0;
      // a full turn from the start (cos −1) has no way round: the near side
      if (flip ? cos > 0.999999 : cos < -0.999999) flip = !flip;
      if (flip) {
        qx = -qx;
        qy = -qy;
        qz = -qz;
        qw = -qw;
        cos = -cos;
      }
      last[o4] = qx;
      last[o4 + 1] = qy;
      last[o4 + 2] = qz;
      last[o4 + 3] = qw;
      let ws = 1 - t;
      let wq = t;
      if (cos < SLERP_BELOW && t < 1) {
        weights[0] = cos;
        weights[1] = t;
        slerpWeights(weights);
        ws = weights[0]!;
        wq = weights[1]!;
      }
      qx = sx * ws + qx * wq;
      qy = sy * ws + qy * wq;
      qz = sz * ws + qz * wq;
      qw = sw * ws + qw * wq;
      const l = Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
      const inv = l > 0 ? 1 / l : 0;
      qx *= inv;
      qy *= inv;
      qz *= inv;
      qw = l > 0 ? qw * inv : 1;
      // the output: animated + offset, animated · offset
      lpos[o3] = animated[a]! + px;
      lpos[o3 + 1] = animated[a + 1]! + py;
      lpos[o3 + 2] = animated[a + 2]! + pz;
      lrot[o4] = aw * qx + ax * qw + ay * qz - az * qy;
      lrot[o4 + 1] = aw * qy - ax * qz + ay * qw + az * qx;
      lrot[o4 + 2] = aw * qz + ax * qy - ay * qx + az * qw;
      lrot[o4 + 3] = aw * qw - ax * qx - ay * qy - az * qz;
      rotationDirty[i] = 1;
      positionDirty[i] = 1;
      off[o] = px;
      off[o + 1] = py;
      off[o + 2] = pz;
      off[o + 3] = qx;
      off[o + 4] = qy;
      off[o + 5] = qz;
      off[o + 6] = qw;
    }
  }
}
