import type { Camera } from "@babylonjs/core/Cameras/camera.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Observer } from "@babylonjs/core/Misc/observable.js";
import type { FullBodyBipedIK } from "../full-body-biped-ik.js";
import { type RigDetachment, detachedForGood } from "../rig-attachment.js";
import { Vec3 } from "../../math/vec3.js";
import { OutputFade } from "./output-fade.js";
import { moduleMatrix } from "../module-matrix.js";
import { currentWorldMatrix, largestAxisLengthToRef, transformPoint } from "../world-matrix.js";
import { type MeshAdoption, adoptionChangeToRef, followAdoption } from "../mesh-adoption.js";

/** A character's level of IK detail: what its FullBodyBipedIK does each frame. */
export const IKLevel = {
  /** Nothing: no FixTransforms, read, solve or write (after the weight faded to 0). */
  Off: 0,
  /** `iterations` 0, FinalIK's limbs-only mode: hands and feet reach, the body is not pulled. */
  Cheap: 1,
  /** The IK as the user set it. */
  Full: 2,
} as const;
/** A level of {@link IKLevel}. */
export type IKLevel = (typeof IKLevel)[keyof typeof IKLevel];

const corner = new Vector3();
const inverse = moduleMatrix();
const componentNow = moduleMatrix();
const component = new Vec3();

/** A world matrix's largest axis scale (the bounds are a sphere), written by largestAxisLengthToRef. */
const scale = new Float64Array(1);

/**
 * One character under an IKLevelOfDetail: where it is (its bones' bounds in its root node's space, so it
 * follows the node without reading bones), its levels and its fade weight.
 */
export class LodCharacter {
  /**
   * The node whose world matrix places the character (its root), or null: always Full. It follows the rig to
   * another mesh when a bone-only skeleton's mesh it was is disposed (clothes kept on).
   */
  node: TransformNode | null;
  /** On the rig's onMeshAdoptedObservable (removed by {@link release}). */
  private readonly adoption: Observer<MeshAdoption> | null;
  /** The bones' bounding-box centre in the node's local space. */
  private readonly localCentre = new Vector3();
  /** Largest extent of the bones' bounding box in world units (the character's height), at the node's scale now. */
  height: number;
  /** Half the bounding box's diagonal, world units (the sphere tested against the frustum). */
  radius: number;
  /** {@link height} and {@link radius} in the node's local units: they follow the node's scale. */
  private localHeight: number;
  private localRadius: number;
  /** The level the view asks for (distance, screen size, frustum), with hysteresis. */
  natural: IKLevel = IKLevel.Full;
  /** The level after the budget. */
  target: IKLevel = IKLevel.Full;
  /** The level the IK runs at, or fades out toward (Off). */
  level: IKLevel = IKLevel.Full;
  /** The level last announced by the controller's `onLevelChangedObservable`. */
  announced: IKLevel = IKLevel.Full;
  /** Seconds left of the cross-fade toward {@link level} (0: settled). */
  remaining = 0;
  /** Seconds the cross-fade under way lasts in all (its `fadeSeconds` when it began). */
  private duration = 0;
  /** True while the cross-fade started from the animated pose (the IK was off). */
  fromOff = false;
  /** The output's cross-fade, shared with the IK. */
  readonly fade: OutputFade;
  /** True until the first frame under the controller: that frame stays Full, so a fade knows its output. */
  private fresh = true;
  /** Projected height as a fraction of the viewport's height (this frame). */
  size = 0;
  /** Distance from the camera to the bounds' centre (this frame). */
  distance = 0;
  /** Inside the camera's frustum (with hysteresis). */
  visible = true;
  /** False when the user excluded the character: it stays Full. */
  managed = true;
  /** This frame: its IK solves when its level lets it (the budget counts and lowers only those). */
  solves = true;
  /** This frame: the character is levelled by the view (managed, placed, its rig attached). */
  looked = false;
  /**
   * This frame: judged from its last look (resting, not its frame to be looked at), unless it asks to come back.
   */
  rested = false;
  /** This frame: Off with its skeleton, nodes or mesh gone: woken whatever the budget, so its IK can dispose. */
  waking = false;
  /** This frame: the highest level a camera asked for so far (-1: none yet). */
  best = -1;
  /** This frame: inside some camera's frustum so far. */
  seen = false;
  /** This frame: the character is not shown (its root or every mesh disabled): Off at once, no fade. */
  hidden = false;
  /** Last frame's {@link hidden}: shown again this frame, it takes its level at once too. */
  private wasHidden = false;
  /** World-space bounds centre this frame. */
  readonly centre = new Vector3();

  constructor(readonly ik: FullBodyBipedIK) {
    const rig = ik.rig;
    this.node = rig.characterRoot ?? rig.componentRoot;
    let lx = Infinity;
    let ly = Infinity;
    let lz = Infinity;
    let hx = -Infinity;
    let hy = -Infinity;
    let hz = -Infinity;
    // the pose as last read, placed where the character stands now: moved since (before its first frame),
    // it would be measured where it was, against the node where it is
    const toWorld = rig._componentToWorldNow(componentNow);
    for (let id = 1; id < rig.count; id++) {
      const p = rig.getPosition(id, component);
      Vector3.TransformCoordinatesFromFloatsToRef(p.x, p.y, p.z, toWorld, corner);
      lx = Math.min(lx, corner.x);
      ly = Math.min(ly, corner.y);
      lz = Math.min(lz, corner.z);
      hx = Math.max(hx, corner.x);
      hy = Math.max(hy, corner.y);
      hz = Math.max(hz, corner.z);
    }
    const ok = Number.isFinite(lx + ly + lz + hx + hy + hz);
    this.height = ok ? Math.max(hx - lx, hy - ly, hz - lz) : 0;
    this.radius = ok ? 0.5 * Math.hypot(hx - lx, hy - ly, hz - lz) : 0;
    corner.set(ok ? (lx + hx) / 2 : 0, ok ? (ly + hy) / 2 : 0, ok ? (lz + hz) / 2 : 0);
    scale[0] = 1;
    if (this.node !== null) {
      const world = this.node.computeWorldMatrix(true);
      world.invertToRef(inverse);
      Vector3.TransformCoordinatesToRef(corner, inverse, corner);
      largestAxisLengthToRef(world.m, scale);
    }
    const s = scale[0]!;
    this.localHeight = s > 0 ? this.height / s : this.height;
    this.localRadius = s > 0 ? this.radius / s : this.radius;
    this.localCentre.copyFrom(corner);
    this.centre.copyFrom(corner);
    this.fade = new OutputFade(rig.count);
    this.adoption = rig.onMeshAdoptedObservable.add((a) => this.followAdoption(a));
  }

  /** The node follows the rig to the mesh it moved to, the bounds kept where they stand on the bones. */
  private followAdoption(adoption: MeshAdoption): void {
    const node = this.node;
    const next = followAdoption(adoption, node);
    if (next === node) return;
    const change = adoptionChangeToRef(adoption, node, next, inverse);
    Vector3.TransformCoordinatesToRef(this.localCentre, change, this.localCentre);
    largestAxisLengthToRef(change.m, scale);
    const s = scale[0]!;
    if (s > 0) {
      this.localHeight *= s;
      this.localRadius *= s;
    }
    this.node = next;
  }

  /** How much of the IK shows, in [0, 1]: 0 off, 1 settled on, in between while fading in or out. */
  weight(fadeSeconds: number): number {
    const total = this.remaining > 0 ? this.duration : fadeSeconds;
    const left = total > 0 ? this.remaining / total : 0;
    const f = left > 1 ? 1 : left;
    if (this.level === IKLevel.Off) return f;
    return this.fromOff ? 1 - f : 1;
  }

  /**
   * One frame of the cross-fade: a new target level starts a fade of `fadeSeconds` from what is shown now;
   * the frame's step takes the output `dt` seconds of the way; once faded out the IK is off. `clock`:
   * [dt, fadeSeconds].
   */
  advance(clock: Float64Array): void {
    const dt = clock[0]!;
    const fadeSeconds = clock[1]!;
    // the IK may have been writing before the controller came: one settled frame records what it shows
    if (this.fresh) {
      this.fresh = false;
      this.target = this.level;
    }
    const ik = this.ik;
    const fade = this.fade;
    // nothing of it was or is on screen: a fade would only delay the level (and show the animation first)
    const unseen = this.hidden || this.wasHidden;
    this.wasHidden = this.hidden;
    if (this.target !== this.level && unseen) {
      if (ik._lodOff) {
        fade.clear();
        ik._lodWake();
      }
      this.level = this.target;
      this.remaining = 0;
      this.fromOff = false;
      ik._lodOff = false;
    } else if (this.target !== this.level) {
      this.fromOff = this.level === IKLevel.Off && ik._lodOff;
      if (this.fromOff) {
        // the last output was the animated pose; offsets added while off (no update reset them) are dropped
        fade.clear();
        ik._lodWake();
      } else ik.rig._captureFade(fade);
      this.level = this.target;
      this.remaining = fadeSeconds > 0 ? fadeSeconds : 0;
      this.duration = this.remaining;
      ik._lodOff = false;
    }
    const off = this.level === IKLevel.Off;
    // the IK's `enabled` fades it in from the animated pose: the level's blend has nothing to do
    if (ik._lodSettle) {
      ik._lodSettle = false;
      if (!off) this.remaining = 0;
    }
    if (off && this.remaining <= 0) {
      // faded out: the output comes off now, in case the IK wrote after this frame's FixTransforms
      if (!ik._lodOff) ik._takeOff();
      ik._lodOff = true;
      return;
    }
    this.remaining = this.remaining > dt ? this.remaining - dt : 0;
    // the fraction of the whole fade done, from its start (not the rest of the way from the last frame's)
    fade.step = this.remaining > 0 ? 1 - this.remaining / this.duration : 1;
    fade.toAnimated = off;
    ik._lodCheap = this.level === IKLevel.Cheap;
    ik._lodFade = fade;
  }

  /**
   * Off and faded out, managed, placed, neither hidden nor waking at its last look: what a look finds changes nothing
   * until a camera asks for it, so it may be looked at less often.
   */
  resting(): boolean {
    return (
      this.level === IKLevel.Off &&
      this.remaining === 0 &&
      this.managed &&
      this.node !== null &&
      this.looked &&
      !this.waking
    );
  }

  /**
   * This frame: `camera` draws nothing of the character (its layers, Babylon's mesh LOD): Off, unless another camera
   * asks more; nothing on screen (size 0), and the distance that of its own place, as for one out of view.
   */
  undrawn(camera: Camera): void {
    if (this.best >= 0) return;
    this.best = IKLevel.Off;
    this.seen = false;
    this.size = 0;
    const p = this.centre;
    const e = camera.globalPosition;
    const dx = p._x - e._x;
    const dy = p._y - e._y;
    const dz = p._z - e._z;
    this.distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }

  /**
   * Places {@link centre} by the node's world matrix this frame. Not getWorldMatrix: the solve runs before the
   * camera bumps the render id, so its same-render-id shortcut returned last frame's matrix of a node moved since
   * (by a RootMotionController after the animations: a frame's travel behind). Recomputed only when it moved.
   */
  place(): void {
    const node = this.node;
    if (node === null) return;
    const world = currentWorldMatrix(node);
    // not Babylon's TransformCoordinatesToRef: it hands the three floats on to another call, boxed whenever V8 does
    // not inline it (48 B a frame in some runs, under a moving parent)
    transformPoint(world.m, this.localCentre, this.centre);
    // a crowd scaled after its IKs joined: the size on screen follows
    largestAxisLengthToRef(world.m, scale);
    if (scale[0]! > 0) {
      this.height = this.localHeight * scale[0]!;
      this.radius = this.localRadius * scale[0]!;
    }
  }

  /**
   * Why the IK's rig cannot be used this frame ({@link RigDetachment}; Attached when it can): its skeleton out of
   * the scene, a node or its mesh disposed, its bones unlinked.
   */
  detachment(): RigDetachment {
    return this.ik.rig.detachment();
  }

  /** True when the IK's skeleton, a node or its mesh is gone for good (its own next update disposes it). */
  gone(state: RigDetachment): boolean {
    return detachedForGood(state, this.ik.skeleton);
  }

  /** Gives the IK back to the user's settings. */
  release(): void {
    const ik = this.ik;
    // as when it wakes: offsets added while off (no update reset them) would all land on its next solve
    if (ik._lodOff && !ik.isDisposed) ik._lodWake();
    ik._lodFade = null;
    ik._lodCheap = false;
    ik._lodOff = false;
    ik.rig.onMeshAdoptedObservable.remove(this.adoption);
  }
}
