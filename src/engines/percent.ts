/**
 * part / whole × 100, rounded half up to one decimal; 0 when `whole` is 0.
 * Computed as round(part × 1000 / whole) / 10 so that exact halves (1/16 → 6.25) are exact in
 * binary and always round up, instead of depending on how ×100 happened to round.
 */
export function percent1(part: number, whole: number): number {
  if (whole === 0) return 0;
  return Math.round((part * 1000) / whole) / 10;
}
