/** Seeded pseudo-random numbers for reproducible property tests (mulberry32). */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Picks one element. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Unit vector, uniform on the sphere. */
  unitVector(): { x: number; y: number; z: number } {
    const z = this.range(-1, 1);
    const a = this.range(0, Math.PI * 2);
    const r = Math.sqrt(1 - z * z);
    return { x: r * Math.cos(a), y: r * Math.sin(a), z };
  }

  /** Unit quaternion, uniform over rotations (Shoemake). */
  unitQuaternion(): { x: number; y: number; z: number; w: number } {
    const u1 = this.next();
    const u2 = this.range(0, Math.PI * 2);
    const u3 = this.range(0, Math.PI * 2);
    const a = Math.sqrt(1 - u1);
    const b = Math.sqrt(u1);
    return { x: a * Math.sin(u2), y: a * Math.cos(u2), z: b * Math.sin(u3), w: b * Math.cos(u3) };
  }
}
