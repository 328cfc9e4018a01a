import { hashedName, staticAsset } from '../../../http/static-asset.js';

/**
 * The portal's one stylesheet and one script, served by the service itself (no CDN). They live in
 * a module rather than loose files so `npm run build` ships them inside dist/ unchanged.
 */
const PORTAL_CSS = `
:root {
  --bg: #f6f7f9; --card: #ffffff; --text: #1b1f24; --muted: #57606a; --line: #d0d7de;
  --accent: #0b5cad; --accent-text: #ffffff; --danger: #b42318; --ok: #1a7f37;
  --warn-bg: #fff8c5; --warn-line: #d4a72c; --focus: #ffbf47;
  --s-2xx: #2f8f4e; --s-3xx: #6e7781; --s-4xx: #c27c0e; --s-429: #d4512b; --s-5xx: #a40e26;
  color-scheme: light;
}
* { box-sizing: border-box; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
body { margin: 0; background: var(--bg); color: var(--text); min-height: 100vh; display: flex; flex-direction: column; }
a { color: var(--accent); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.92em; }
.skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: 8px 12px; }
.skip:focus { left: 8px; z-index: 10; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.top { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; justify-content: space-between;
  padding: 12px 24px; background: #101820; color: #fff; }
.top a { color: #fff; text-decoration: none; }
.top a:hover { text-decoration: underline; }
.brand { font-weight: 700; font-size: 1.1rem; }
.brand span { font-weight: 400; color: #b6c2cf; }
.top nav { display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
.top .muted { color: #b6c2cf; }
main { width: 100%; max-width: 1100px; margin: 0 auto; padding: 24px 16px 48px; flex: 1; }
main:focus { outline: none; }
.foot { text-align: center; color: var(--muted); font-size: 0.85rem; padding: 16px; border-top: 1px solid var(--line); }
h1 { font-size: 1.6rem; margin: 0 0 8px; }
h2 { font-size: 1.2rem; margin: 0 0 12px; }
.card * + h2 { margin-top: 24px; }
.lead { color: var(--muted); margin: 0 0 24px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 20px; margin-bottom: 20px; }
.narrow { max-width: 440px; margin: 24px auto; }
label { display: block; font-weight: 600; margin: 12px 0 4px; }
.hint { color: var(--muted); font-size: 0.88rem; margin: 4px 0 0; }
input[type=text], input[type=password], input[type=url], select, textarea { width: 100%; padding: 10px 12px; font-size: 1rem; border: 1px solid #8c959f;
  border-radius: 6px; background: #fff; color: var(--text); }
.row { display: flex; gap: 8px; align-items: flex-end; flex-wrap: wrap; }
.row > .grow { flex: 1 1 240px; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: 10px 16px; border-radius: 6px; border: 1px solid transparent;
  background: var(--accent); color: var(--accent-text); cursor: pointer; text-decoration: none; line-height: 1.2; }
.button.small { padding: 6px 12px; }
button.secondary, .button.secondary { background: #fff; color: var(--text); border-color: #8c959f; }
button.danger, .button.danger { background: var(--danger); }
button.link { background: none; border: 0; color: #fff; padding: 0; font-weight: 400; }
form.inline { display: inline; margin: 0; }
.full { width: 100%; margin-top: 20px; }
.alert { border-radius: 8px; padding: 12px 14px; margin: 0 0 16px; border: 1px solid; }
.alert ul { margin: 0; padding-left: 20px; }
.alert.error { background: #ffebe9; border-color: #ff8182; color: #82071e; }
.alert.success { background: #dafbe1; border-color: #4ac26b; color: #116329; }
.alert.warn { background: var(--warn-bg); border-color: var(--warn-line); color: #4d2d00; }
.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; font-size: 0.95rem; }
th, td { text-align: left; padding: 10px 6px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { color: var(--muted); font-weight: 600; font-size: 0.85rem; text-transform: uppercase; letter-spacing: 0.03em; }
td.actions { display: flex; gap: 12px; }
.badge { display: inline-block; padding: 2px 8px; border-radius: 999px; font-size: 0.8rem; font-weight: 600; background: #ddf4ff; color: #0a3069; }
.badge.revoked { background: #eaeef2; color: #57606a; }
.badge.active { background: #dafbe1; color: #116329; }
.secret { display: flex; gap: 8px; flex-wrap: wrap; }
.secret input { flex: 1 1 320px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: #101820; color: #e6edf3; padding: 12px; border-radius: 8px; overflow-x: auto; font-size: 0.88rem; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(130px, 1fr)); gap: 12px; margin-bottom: 20px; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.stat b { display: block; font-size: 1.5rem; }
.stat span { color: var(--muted); font-size: 0.85rem; }
.chart { width: 100%; display: block; overflow: hidden; }
.chart .axis { stroke: #8c959f; stroke-width: 1; }
.chart .grid { stroke: var(--line); stroke-width: 1; }
.chart .tick { fill: var(--muted); font-size: 12px; }
.chart .quota { stroke: var(--danger); stroke-width: 1.5; stroke-dasharray: 6 4; }
.chart .quota-label { fill: var(--danger); font-size: 12px; font-weight: 600; }
.s-2xx { fill: var(--s-2xx); } .s-3xx { fill: var(--s-3xx); } .s-4xx { fill: var(--s-4xx); }
.s-429 { fill: var(--s-429); } .s-5xx { fill: var(--s-5xx); }
.legend { display: flex; flex-wrap: wrap; gap: 14px; list-style: none; padding: 0; margin: 12px 0 0; font-size: 0.88rem; color: var(--muted); }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
.legend .l-2xx { background: var(--s-2xx); } .legend .l-3xx { background: var(--s-3xx); } .legend .l-4xx { background: var(--s-4xx); }
.legend .l-429 { background: var(--s-429); } .legend .l-5xx { background: var(--s-5xx); }
.legend .l-quota { background: none; border-top: 2px dashed var(--danger); height: 0; border-radius: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.muted { color: var(--muted); }
.empty { color: var(--muted); text-align: center; padding: 24px; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
@media (max-width: 640px) {
  .top { padding: 12px 16px; }
  main { padding: 16px 12px 32px; }
  .card { padding: 14px; }
  h1 { font-size: 1.35rem; }
  /* Keys: each row a card of label/value pairs, Revoke in reach without sideways scrolling. */
  table.keys thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.keys, table.keys tbody, table.keys tr, table.keys td { display: block; }
  table.keys tr { border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px; margin-bottom: 12px; }
  table.keys td { display: flex; justify-content: space-between; gap: 12px; padding: 5px 0; border: 0;
    white-space: normal; overflow-wrap: anywhere; text-align: right; }
  table.keys td::before { content: attr(data-label); color: var(--muted); font: 600 0.85rem/1.5 system-ui, sans-serif;
    text-align: left; white-space: nowrap; }
  table.keys td.actions { justify-content: flex-start; gap: 24px; padding: 10px 0 4px; border-top: 1px solid var(--line); }
  table.keys td.actions::before { content: none; }
  /* Usage: every column stays, narrower: the year goes, the time goes under the day. */
  table.usage { font-size: 0.85rem; }
  table.usage th, table.usage td { padding: 8px 4px; }
  table.usage th { font-size: 0.72rem; letter-spacing: 0; white-space: normal; }
  table.usage .year { display: none; }
  table.usage .time { display: block; margin: 0; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; }
}
`;

const PORTAL_JS = `'use strict';
// Copy-to-clipboard for the one-time key display; everything else works without script.
document.addEventListener('click', function (event) {
  var button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  var input = document.getElementById(button.getAttribute('data-copy'));
  var status = document.getElementById(button.getAttribute('data-copy') + '-status');
  if (!input) return;
  var done = function () { if (status) status.textContent = 'Copied to the clipboard.'; button.textContent = 'Copied'; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, function () { input.select(); document.execCommand('copy'); done(); });
  } else {
    input.select();
    document.execCommand('copy');
    done();
  }
});
`;

const css = staticAsset(PORTAL_CSS, 'text/css; charset=utf-8');
const js = staticAsset(PORTAL_JS, 'text/javascript; charset=utf-8');

/** Published under content-hashed names, so pages can let browsers keep them for a year. */
export const ASSET_NAMES = { css: hashedName('portal.css', css), js: hashedName('portal.js', js) };
export const ASSETS = new Map([
  [ASSET_NAMES.css, css],
  [ASSET_NAMES.js, js],
]);
