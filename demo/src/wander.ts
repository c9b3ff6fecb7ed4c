/**
 * A scripted target that wanders between named stops and yields to the user: it eases (cosine) from one stop
 * to the next in `move` seconds, holds `hold` seconds, and waits `idle` seconds after the user last moved it;
 * then it eases from where the user left the target.
 */
import { Vector3 } from "@babylonjs/core/Maths/math.vector";

/** A named point the target stops at. */
export interface Stop {
  name: string;
  p: Vector3;
}

/** The wander's timing (seconds) and whether it starts over after the last stop. */
export interface WanderOptions {
  move: number;
  hold: number;
  idle: number;
  loop: boolean;
}

export class Wander {
  /** Seconds since the user last moved the target (it starts rested). */
  idle: number;
  /** The stop the target goes to or holds at (`stops.length` once a path that does not loop is done). */
  index = 0;
  /** Seconds since the target left for the current stop. */
  t = 0;
  private readonly from: Vector3;
  /** Whether the script drove the target at the last update (false while the user has it). */
  private wasScripted = true;

  /** Moves `target` (a position, written in place) through `stops`, from where it is now. */
  constructor(
    private readonly target: Vector3,
    readonly stops: readonly Stop[],
    readonly options: WanderOptions,
  ) {
    this.idle = options.idle;
    this.from = target.clone();
  }

  /** The user moved the target: the script waits `idle` seconds. */
  touch(): void {
    this.idle = 0;
  }

  /** True while the script, not the user, drives the target. */
  get scripted(): boolean {
    return this.idle >= this.options.idle;
  }

  /** True once a path that does not loop has passed its last stop. */
  get done(): boolean {
    return this.index >= this.stops.length;
  }

  /** The current stop, or null when done. */
  get stop(): Stop | null {
    return this.stops[this.index] ?? null;
  }

  /** Advances by `dt`; true when it moved the target (false: the user's turn, or done). */
  update(dt: number): boolean {
    this.idle += dt;
    const stop = this.stop;
    const scripted = this.scripted;
    // back from the user: the leg starts over from where they left the target (it jumped to the leg's point)
    if (scripted && !this.wasScripted) {
      this.from.copyFrom(this.target);
      this.t = 0;
    }
    this.wasScripted = scripted;
    if (!scripted || stop === null) return false;
    this.t += dt;
    const { move, hold, loop } = this.options;
    const k = Math.min(1, this.t / move);
    Vector3.LerpToRef(this.from, stop.p, 0.5 - 0.5 * Math.cos(Math.PI * k), this.target);
    if (this.t > move + hold) {
      this.from.copyFrom(stop.p);
      this.index = loop ? (this.index + 1) % this.stops.length : this.index + 1;
      this.t = 0;
    }
    return true;
  }
}
