// Helpers for the demo's fixed data: a seeded generator and index ranges.

export type Rng = () => number;

/** mulberry32: a small seeded generator, so every run tells the same story. */
export function seededRandom(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
