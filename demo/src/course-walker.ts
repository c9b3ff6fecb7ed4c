/**
 * The character controller of the course's scenarios (ground, creature): a node carried along the loop, its heading
 * the path's, its height the highest ground under its front, middle and back (like a capsule), eased in.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector";
import type { TransformNode } from "@babylonjs/core/Meshes/transformNode";
import { GroundingHit, type GroundingRaycast } from "../../src/effectors/grounding/grounding-common";
import { Vec3 } from "../../src/math/vec3";
import type { LoopPath } from "./locomotion";

export class CourseWalker {
  /** Where the walker is on the loop (y the path's) and where it heads, after {@link place}. */
  readonly pos = new Vector3();
  readonly dir = new Vector3();
  private readonly probe = new Vec3();
  private readonly down = new Vec3(0, -1, 0);
  private readonly hit = new GroundingHit();

  /**
   * `node` walks `path` over the ground `raycast` finds; `reach` is how far ahead and behind it probes, `h` the
   * scale of the probes' start and length; `yaw0` the heading (about Y) of the node's own forward; `riseSpeed` the
   * most its height changes a second (a grounder's feet, eased toward their ground relative to the walker, lag
   * behind a fast rise).
   */
  constructor(
    readonly node: TransformNode,
    readonly path: LoopPath,
    readonly raycast: GroundingRaycast,
    readonly h: number,
    readonly reach: number,
    readonly yaw0: number,
    readonly riseSpeed = Number.POSITIVE_INFINITY,
  ) {}

  /** The ground's height under (x, z), probed from half h over the walker (0 over nothing). */
  groundUnder(x: number, z: number): number {
    const p = this.probe;
    p.x = x;
    p.y = this.node.position.y + 0.5 * this.h;
    p.z = z;
    return this.raycast(p, this.down, 2 * this.h, this.hit) ? this.hit.point.y : 0;
  }

  /** Puts the walker `u` along the loop; its height eases to the ground's over `dt` (or at once: `snap`). */
  place(u: number, dt: number, snap: boolean): void {
    const { pos, dir, node, reach } = this;
    this.path.at(u, pos, dir);
    node.rotation.y = Math.atan2(dir.x, dir.z) - this.yaw0;
    let y = this.groundUnder(pos.x, pos.z);
    y = Math.max(y, this.groundUnder(pos.x + dir.x * reach, pos.z + dir.z * reach));
    y = Math.max(y, this.groundUnder(pos.x - dir.x * reach, pos.z - dir.z * reach));
    const from = node.position.y;
    const step = (y - from) * Math.min(1, 12 * dt);
    // (an unlimited speed times a paused frame's dt 0 would be NaN)
    const most = Number.isFinite(this.riseSpeed) ? this.riseSpeed * dt : Number.POSITIVE_INFINITY;
    const eased = Math.max(-most, Math.min(most, step));
    node.position.set(pos.x, snap ? y : from + eased, pos.z);
  }
}
