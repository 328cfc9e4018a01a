import type { UsageHour } from '../schemas.js';
import { html, type SafeHtml } from './html.js';

/** Stack order, bottom up, with the legend's wording. */
export const SERIES = [
  ['2xx', 'Success (2xx)'],
  ['3xx', 'Not modified (3xx)'],
  ['4xx', 'Client errors (4xx)'],
  ['429', 'Over quota (429)'],
  ['5xx', 'Server errors (5xx)'],
] as const;

// "50K", not "50,000": the axis label must fit the left margin at the larger phone font size.
const compact = new Intl.NumberFormat('en-US', { notation: 'compact' });

const W = 760;
const H = 240;
const PAD = { left: 48, right: 12, top: 16, bottom: 28 };

/** A round axis maximum ≥ value: 1, 2, 5 × 10^n. */
function niceMax(value: number): number {
  if (value <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

/**
 * Requests per hour as stacked bars against the quota line, as inline SVG (no script, no CDN).
 * The axis reaches the quota, so the line is always visible; bars keep at least 2 px when non-zero.
 */
export function usageChart(hours: UsageHour[], quota: number): SafeHtml {
  const peak = Math.max(0, ...hours.map((h) => h.total));
  const yMax = niceMax(Math.max(quota, peak));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, hours.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => PAD.top + plotH - (v / yMax) * plotH;
  const total = hours.reduce((sum, h) => sum + h.total, 0);

  const bars = hours.map((h, i) => {
    if (h.total === 0) return '';
    const x = PAD.left + i * slot + (slot - barW) / 2;
    let base = 0;
    const stack = SERIES.map(([cls]) => {
      const count = h[cls];
      if (count === 0) return '';
      const top = y(base + count);
      const bottom = y(base);
      base += count;
      const height = Math.max(2, bottom - top);
      return html`<rect
        class="s-${cls}"
        x="${x.toFixed(1)}"
        y="${(bottom - height).toFixed(1)}"
        width="${barW.toFixed(1)}"
        height="${height.toFixed(1)}"
      ></rect>`;
    });
    return html`<g class="bar"><title>${h.hour.slice(0, 13)}:00 UTC: ${h.total} requests</title>${stack}</g>`;
  });

  const ticks = hours
    .map((h, i) => ({ h, i }))
    .filter(({ h }) => Number(h.hour.slice(11, 13)) % 6 === 0)
    .map(
      ({ h, i }) =>
        html`<text
          class="tick"
          x="${(PAD.left + i * slot + slot / 2).toFixed(1)}"
          y="${H - 8}"
          text-anchor="middle"
          >${h.hour.slice(11, 13)}h</text
        >`,
    );
  const quotaY = y(quota).toFixed(1);
  const summary = `Requests per hour over the last ${hours.length} hours: ${total} in total, peak ${peak} in one hour, quota ${quota} per hour.`;

  return html`<svg
    class="chart"
    viewBox="0 0 ${W} ${H}"
    role="img"
    aria-label="${summary}"
    data-total="${total}"
    preserveAspectRatio="xMidYMid meet"
  >
    <line
      class="axis"
      x1="${PAD.left}"
      y1="${PAD.top + plotH}"
      x2="${W - PAD.right}"
      y2="${PAD.top + plotH}"
    ></line>
    <text
      class="tick"
      x="${PAD.left - 6}"
      y="${PAD.top + plotH}"
      text-anchor="end"
      dominant-baseline="middle"
    >
      0
    </text>
    <text class="tick" x="${PAD.left - 6}" y="${PAD.top}" text-anchor="end" dominant-baseline="middle">
      ${compact.format(yMax)}
    </text>
    ${bars}
    <line class="quota" x1="${PAD.left}" y1="${quotaY}" x2="${W - PAD.right}" y2="${quotaY}"></line>
    <text class="quota-label" x="${W - PAD.right}" y="${(Number(quotaY) - 5).toFixed(1)}" text-anchor="end">
      quota ${quota.toLocaleString('en-US')}/h
    </text>
    ${ticks}
  </svg>`;
}
