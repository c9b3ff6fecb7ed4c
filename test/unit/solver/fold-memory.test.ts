/**
 * FoldMemory (fold-memory.ts): across consecutive updates the natural-side fold's turn changes by at most 20° an
 * update, more as the end nears a far target and as the fold's amount falls; a turn within that passes bit for bit;
 * the first update, a skipped one, an axis that jumped or a far end start afresh, except for a partial fold's change
 * of side, which is limited to 20° an update however far the end, until it has come round. While a change of side
 * is under way the folded direction itself turns by at most 25° an update from the last one carried to the axis.
 */
import { describe, expect, it } from "vitest";
import { FoldMemory } from "../../../src/solver/fold-memory.js";

const rad = (d: number) => (d * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

/** One update of `memory`: the fold wants `turn`° about the axis (unit, by its coordinates); returns the turn kept. */
function fold(
  memory: FoldMemory,
  update: number,
  turn: number,
  options: { amount?: number; far?: number; share?: number; axis?: [number, number, number] } = {},
): number {
  const [x, y, z] = options.axis ?? [0, -1, 0];
  memory.update = update;
  memory.turn = rad(turn);
  memory.amount = options.amount ?? 1;
  memory.far = options.far ?? 0;
  memory.share = options.share ?? 1;
  memory.x = x;
  memory.y = y;
  memory.z = z;
  memory.limit();
  return deg(memory.turn);
}

/**
 * The folded direction of `memory`'s update (after {@link fold}): `angle`° about the axis from +x (a hanging limb's
 * axis, [0, −1, 0]), or the unit vector given; returns the direction kept, in degrees from +x about −y.
 */
function direct(memory: FoldMemory, angle: number | [number, number, number]): number {
  const [x, y, z] = typeof angle === "number" ? [Math.cos(rad(angle)), 0, Math.sin(rad(angle))] : angle;
  memory.fx = x;
  memory.fy = y;
  memory.fz = z;
  memory.limitDirection();
  return deg(Math.atan2(memory.fz, memory.fx));
}

describe("FoldMemory", () => {
  it("turns a fold that swings with its pole by at most 20° an update, then meets it", () => {
    const memory = new FoldMemory();
    expect(fold(memory, 1, 0)).toBe(0);
    const kept: number[] = [];
    for (let i = 2; i <= 11; i++) kept.push(fold(memory, i, -170));
    expect(kept[0]).toBeCloseTo(-20, 9);
    expect(kept[3]).toBeCloseTo(-80, 9);
    expect(kept[7]).toBeCloseTo(-160, 9);
    expect(kept[8]).toBe(deg(rad(-170)));
  });

  it("passes a turn within the rate bit for bit", () => {
    const memory = new FoldMemory();
    fold(memory, 1, -100);
    const wanted = rad(-100 - 19.9);
    memory.update = 2;
    memory.turn = wanted;
    memory.amount = 1;
    memory.far = 0;
    memory.x = 0;
    memory.y = -1;
    memory.z = 0;
    memory.limit();
    expect(memory.turn).toBe(wanted);
  });

  it("wraps across half a turn: −175° after 175° is a step of 10°", () => {
    const memory = new FoldMemory();
    fold(memory, 1, 175);
    expect(fold(memory, 2, -175)).toBeCloseTo(-175, 9);
  });

  it("unwinds with a falling amount (a weight fading out): π times its fall on top of the rate", () => {
    const memory = new FoldMemory();
    fold(memory, 1, -170);
    // amount 1 → 0.5: 20° + 90°, enough for the 85° the fold gives up
    expect(fold(memory, 2, -85, { amount: 0.5 })).toBeCloseTo(-85, 9);
    // a rising amount adds nothing
    expect(fold(memory, 3, -170, { amount: 1 })).toBeCloseTo(-105, 9);
  });

  it("limits less as the end nears a far target, and not at all from there", () => {
    const memory = new FoldMemory();
    fold(memory, 1, 0, { far: 0.5 });
    expect(fold(memory, 2, -170, { far: 0.5 })).toBeCloseTo(-40, 9);
    expect(fold(memory, 3, 170, { far: 1 })).toBeCloseTo(170, 9);
  });

  it("turns a partial fold's change of side by 20° an update however far the end, until it has come round", () => {
    const memory = new FoldMemory();
    const far = { far: 2, share: 0.5 };
    expect(fold(memory, 1, 70, far)).toBeCloseTo(70, 9);
    // the bend passed opposite the pole: the fold's turn swaps sign
    const kept: number[] = [];
    for (let i = 2; i <= 9; i++) kept.push(fold(memory, i, -70, far));
    expect(kept.map((k) => Math.round(k))).toEqual([50, 30, 10, -10, -30, -50, -70, -70]);
    // come round: a far end's turn at once again
    expect(fold(memory, 10, -10, far)).toBeCloseTo(-10, 9);
  });

  it("finishes a change of side begun at a partial fold even as the fold becomes full", () => {
    const memory = new FoldMemory();
    fold(memory, 1, 70, { far: 2, share: 0.5 });
    expect(fold(memory, 2, -70, { far: 2, share: 0.5 })).toBeCloseTo(50, 9);
    expect(fold(memory, 3, -70, { far: 2, share: 1 })).toBeCloseTo(30, 9);
  });

  it("passes a full fold's change of side far from the clip's end (it lands on the pole from either side)", () => {
    const memory = new FoldMemory();
    fold(memory, 1, 70, { far: 2 });
    expect(fold(memory, 2, -70, { far: 2 })).toBeCloseTo(-70, 9);
  });

  it("turns a partial fold's change of side by 20° an update nearer too, plus π times a falling amount", () => {
    const memory = new FoldMemory();
    // half way to a far end a side's own turn may change by 40° (above), a change of side by 20°
    fold(memory, 1, 70, { far: 0.5, share: 0.5 });
    expect(fold(memory, 2, -70, { far: 0.5, share: 0.5 })).toBeCloseTo(50, 9);
    // amount 1 → 0.9: 20° + 18°
    fold(memory, 3, 70, { far: 2, share: 0.5 });
    fold(memory, 4, 70, { far: 2, share: 0.5 });
    expect(fold(memory, 5, -70, { far: 2, share: 0.5, amount: 0.9 })).toBeCloseTo(32, 9);
  });

  it("starts afresh on the first update, after a skipped one, and when the axis turns more than 30°", () => {
    // a hanging limb's axis tilted by `a`° toward +x
    const tilted = (a: number): [number, number, number] => [Math.sin(rad(a)), -Math.cos(rad(a)), 0];
    const memory = new FoldMemory();
    expect(fold(memory, 5, -170)).toBeCloseTo(-170, 9);
    fold(memory, 6, 0);
    expect(fold(memory, 8, -170)).toBeCloseTo(-170, 9);
    fold(memory, 9, 0);
    expect(fold(memory, 10, -170, { axis: tilted(31) })).toBeCloseTo(-170, 9);
    fold(memory, 11, 0, { axis: tilted(31), far: 1 });
    // 29° more is motion: limited
    expect(fold(memory, 12, -170, { axis: tilted(60) })).toBeCloseTo(-20, 9);
  });

  it("passes the folded direction bit for bit outside a change of side, however far it turns", () => {
    const memory = new FoldMemory();
    fold(memory, 1, 70, { far: 2, share: 0.5 });
    direct(memory, 0);
    fold(memory, 2, 60, { far: 2, share: 0.5 });
    expect(direct(memory, 150)).toBe(deg(Math.atan2(Math.sin(rad(150)), Math.cos(rad(150)))));
    expect(memory.held).toBe(0);
    // a full fold's change of side starts none
    fold(memory, 3, -60, { far: 2 });
    expect(direct(memory, -90)).toBeCloseTo(-90, 9);
    expect(memory.held).toBe(0);
  });

  it("turns the folded direction by 25° an update in a change of side, which lasts until it has come round", () => {
    const memory = new FoldMemory();
    const far = { far: 2, share: 0.5 };
    fold(memory, 1, 10, far);
    direct(memory, 0);
    // the turn's change of side is within its own limit (−20°), yet the direction would turn 90°
    expect(fold(memory, 2, -10, far)).toBeCloseTo(-10, 9);
    expect(direct(memory, 90)).toBeCloseTo(25, 9);
    expect(memory.held).toBe(1);
    const kept: number[] = [];
    for (let i = 3; i <= 6; i++) {
      fold(memory, i, -10, far);
      kept.push(direct(memory, 90));
    }
    expect(kept.map((k) => Math.round(k))).toEqual([50, 75, 90, 90]);
    // come round: a direction's turn passes at once again
    fold(memory, 7, -10, far);
    expect(direct(memory, -150)).toBeCloseTo(-150, 9);
  });

  it("carries the last direction to a turned axis (its part across it) and starts afresh after a skipped update", () => {
    const memory = new FoldMemory();
    const far = { far: 2, share: 0.5 };
    fold(memory, 1, 10, far);
    // +x across the axis [0, −1, 0], and a part along it (the direction's length and part along pass through)
    direct(memory, [1, -1, 0]);
    // the axis tilted 20° toward +z: +x lies across it still; the direction wanted is 90° from it about the axis
    const a = rad(20);
    fold(memory, 2, -10, { ...far, axis: [0, -Math.cos(a), Math.sin(a)] });
    direct(memory, [0, Math.sin(a), Math.cos(a)]);
    expect(memory.held).toBe(1);
    expect(deg(Math.acos(memory.fx))).toBeCloseTo(25, 9);
    expect(Math.hypot(memory.fx, memory.fy, memory.fz)).toBeCloseTo(1, 12);
    fold(memory, 4, 10, far);
    expect(direct(memory, 180)).toBeCloseTo(180, 9);
    expect(memory.held).toBe(0);
  });
});
