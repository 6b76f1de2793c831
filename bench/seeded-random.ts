/** A small seeded PRNG (mulberry32) so the workload is the same on every run. */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** `count` characters drawn from `alphabet`. */
  chars(alphabet: string, count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}
