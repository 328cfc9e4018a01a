/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) so the same seed always yields the same
 * demo data. Math.random is never used by the seeder.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const split = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = split();
    this.b = split();
    this.c = split();
    this.d = split();
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** An index into `weights`, chosen with probability proportional to its weight. */
  weighted(weights: readonly number[], total = weights.reduce((s, w) => s + w, 0)): number {
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** An approximately normal value (sum of uniforms), cheap and deterministic. */
  normal(mean: number, sd: number): number {
    const u = this.next() + this.next() + this.next() + this.next() - 2;
    return mean + u * sd * Math.sqrt(3);
  }

  /** `count` distinct integers from [0, n), in random order (partial Fisher–Yates on a scratch copy). */
  sample(n: number, count: number): number[] {
    if (count > n) throw new Error(`cannot sample ${count} of ${n}`);
    if (count * 4 < n) {
      const seen = new Set<number>();
      const out: number[] = [];
      while (out.length < count) {
        const v = Math.floor(this.next() * n);
        if (!seen.has(v)) {
          seen.add(v);
          out.push(v);
        }
      }
      return out;
    }
    const all = Array.from({ length: n }, (_, i) => i);
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(this.next() * (n - i));
      const tmp = all[i] ?? 0;
      all[i] = all[j] ?? 0;
      all[j] = tmp;
    }
    return all.slice(0, count);
  }
}
