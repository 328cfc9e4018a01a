import { createHash } from 'node:crypto';
import { encodePalettePng, type Rgb } from './png.js';

/** 5×5 cells, mirrored left to right, on a margin of half a cell: 120×120 pixels. */
const GRID = 5;
const CELL = 20;
export const AVATAR_SIZE = GRID * CELL + CELL;
const BACKGROUND: Rgb = [240, 242, 245];

/** Perceived brightness (Rec. 709 weights), 0..255; the background is about 242. */
const luma = ([r, g, b]: Rgb) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
const MAX_LUMA = 150;

/** HSL (h in degrees, s and l in 0..1) to 8-bit RGB. */
function hsl(h: number, s: number, l: number): Rgb {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return [f(0), f(8), f(4)];
}

/**
 * The cells and colour of a user's identicon, from a hash of the user id: the same id always
 * gives the same picture, and neighbouring ids look unrelated.
 */
export function identicon(userId: number): { cells: boolean[]; color: Rgb } {
  const digest = createHash('sha256').update(`gaming-hub avatar ${userId}`).digest();
  const half = Math.ceil(GRID / 2);
  const cells: boolean[] = [];
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      const column = x < half ? x : GRID - 1 - x;
      cells.push(((digest[y * half + column] ?? 0) & 1) === 1);
    }
  }
  // An empty pattern would read as a missing image; one in 32,768 ids gets a centre dot instead.
  if (!cells.includes(true)) cells[Math.floor((GRID * GRID) / 2)] = true;
  const hue = digest.readUInt16BE(20) % 360;
  const saturation = 0.45 + ((digest[22] ?? 0) / 255) * 0.25;
  let lightness = 0.4 + ((digest[23] ?? 0) / 255) * 0.15;
  let color = hsl(hue, saturation, lightness);
  // Yellows and greens look light at the same HSL lightness; darken them until they stand out.
  while (luma(color) > MAX_LUMA) color = hsl(hue, saturation, (lightness -= 0.05));
  return { cells, color };
}

/** The identicon as a PNG: background index 0, foreground index 1. */
export function identiconPng(userId: number): Buffer {
  const { cells, color } = identicon(userId);
  const pixels = new Uint8Array(AVATAR_SIZE * AVATAR_SIZE);
  const margin = CELL / 2;
  cells.forEach((on, i) => {
    if (!on) return;
    const left = margin + (i % GRID) * CELL;
    const top = margin + Math.floor(i / GRID) * CELL;
    for (let y = top; y < top + CELL; y++)
      pixels.fill(1, y * AVATAR_SIZE + left, y * AVATAR_SIZE + left + CELL);
  });
  return encodePalettePng(AVATAR_SIZE, AVATAR_SIZE, [BACKGROUND, color], pixels);
}
