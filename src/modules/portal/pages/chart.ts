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

// "50K", not "50,000": the axis label sits beside the quota label on a phone's narrow chart.
const compact = new Intl.NumberFormat('en-US', { notation: 'compact' });

/**
 * The chart is drawn in CSS pixels, not scaled from a fixed drawing: its height is fixed and its
 * width is the card's. A drawing scaled to the card (the old 760×240 viewBox) shrank to 100 px
 * high on a phone and pushed the quota label off its top edge. Only the bars are stretched to the
 * width (a nested SVG in hour units); lines and text are placed in pixels or percentages.
 */
const H = 240;
/** room above the plot for the axis maximum and a quota label on the top edge */
const TOP = 24;
/** room below the plot for the hour ticks */
const BOTTOM = 24;
const PLOT_H = H - TOP - BOTTOM;

/** A round axis maximum ≥ value: 1, 2, 5 × 10^n. */
function niceMax(value: number): number {
  if (value <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

const percent = (fraction: number) => `${(fraction * 100).toFixed(2)}%`;

/** An hour tick centred under its bar, kept inside the chart at either end. */
function tick(hour: string, i: number, count: number): SafeHtml {
  const at = (i + 0.5) / count;
  const [x, anchor] =
    at < 0.05 ? [i / count, 'start'] : at > 0.95 ? [(i + 1) / count, 'end'] : [at, 'middle'];
  return html`<text class="tick" x="${percent(x)}" y="${H - 7}" text-anchor="${anchor}"
    >${hour.slice(11, 13)}h</text
  >`;
}

/**
 * Requests per hour as stacked bars against the quota line, as inline SVG (no script, no CDN).
 * The axis reaches the quota, so the line is always visible; bars keep at least 2 px when non-zero.
 */
export function usageChart(hours: UsageHour[], quota: number): SafeHtml {
  const peak = Math.max(0, ...hours.map((h) => h.total));
  const yMax = niceMax(Math.max(quota, peak));
  const count = Math.max(1, hours.length);
  /** pixels from the plot's top */
  const y = (v: number) => PLOT_H - (v / yMax) * PLOT_H;
  const total = hours.reduce((sum, h) => sum + h.total, 0);

  const bars = hours.map((h, i) => {
    if (h.total === 0) return '';
    let base = 0;
    const stack = SERIES.map(([cls]) => {
      const requests = h[cls];
      if (requests === 0) return '';
      const top = y(base + requests);
      const bottom = y(base);
      base += requests;
      const height = Math.max(2, bottom - top);
      return html`<rect
        class="s-${cls}"
        x="${(i + 0.15).toFixed(2)}"
        y="${(bottom - height).toFixed(1)}"
        width="0.7"
        height="${height.toFixed(1)}"
      ></rect>`;
    });
    return html`<g class="bar"><title>${h.hour.slice(0, 13)}:00 UTC: ${h.total} requests</title>${stack}</g>`;
  });

  const ticks = hours
    .map((h, i) => ({ h, i }))
    .filter(({ h }) => Number(h.hour.slice(11, 13)) % 6 === 0)
    .map(({ h, i }) => tick(h.hour, i, count));
  // The quota is at most the axis maximum, so its line is on or below the plot's top and its label,
  // 5 px above the line, stays inside the chart.
  const quotaY = (TOP + y(quota)).toFixed(1);
  const bottomY = TOP + PLOT_H;
  const summary = `Requests per hour over the last ${hours.length} hours: ${total} in total, peak ${peak} in one hour, quota ${quota} per hour.`;

  return html`<svg
    class="chart"
    width="100%"
    height="${H}"
    role="img"
    aria-label="${summary}"
    data-total="${total}"
  >
    <line class="grid" x1="0" y1="${TOP}" x2="100%" y2="${TOP}"></line>
    <text class="tick" x="0" y="${TOP - 7}">${compact.format(yMax)} requests</text>
    <svg
      class="plot"
      x="0"
      y="${TOP}"
      width="100%"
      height="${PLOT_H}"
      viewBox="0 0 ${count} ${PLOT_H}"
      preserveAspectRatio="none"
    >
      ${bars}
    </svg>
    <line class="axis" x1="0" y1="${bottomY}" x2="100%" y2="${bottomY}"></line>
    <line class="quota" x1="0" y1="${quotaY}" x2="100%" y2="${quotaY}"></line>
    <text class="quota-label" x="100%" y="${(Number(quotaY) - 5).toFixed(1)}" text-anchor="end">
      quota ${quota.toLocaleString('en-US')}/h
    </text>
    ${ticks}
  </svg>`;
}
