#!/usr/bin/env node
// `npm run test:clients [-- language ...]`: builds the service, seeds a hub once (SQLite, temp
// dir), then for each language of clients/conformance/languages.json starts a hub on a copy of
// that database behind the conformance proxy, runs the language's own tests and its
// implementation of every scenario of clients/conformance/scenarios.json, and prints the matrix
// scenario x language. Fails when a language's tests fail, or it fails or lacks a scenario.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startConformanceProxy } from './clients/conformance-proxy.mjs';
import { prepareTemplate, startHub } from './clients/hub.mjs';
import { buildService, logger, run, scenarioResults, selectLanguages } from './matrix.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const CONFORMANCE = join(ROOT, 'clients/conformance');
const { scenarios } = JSON.parse(readFileSync(join(CONFORMANCE, 'scenarios.json'), 'utf8'));
const languages = selectLanguages(join(CONFORMANCE, 'languages.json'), 'language');
const log = logger('test:clients');
buildService(ROOT, 'CLIENTS_SKIP_BUILD', log);

/** What the scenarios compare with, read from the fresh hub with plain HTTP (no library involved). */
async function measure(hubUrl, apiKey) {
  const get = async (path, headers) => {
    const res = await fetch(new URL(path, hubUrl), { headers });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const published = { 'x-api-key': apiKey };
  const bearer = { authorization: `Bearer ${apiKey}` };
  const walk = async (path, key) => {
    const items = [];
    for (let offset = 0; ; offset += 50) {
      const page = (
        await get(`${path}${path.includes('?') ? '&' : '?'}limit=50&offset=${offset}`, published)
      )[key];
      items.push(...page);
      if (page.length < 50) return items;
    }
  };
  const threads = await walk('/api-platform/v1/forum/threads', 'threads');
  // the thread with the most posts, so its paging takes several pages
  let thread = { id: threads[0].id, posts: 0 };
  for (const t of threads.slice(0, 10)) {
    const posts = (await walk(`/api-platform/v1/forum/threads/${t.id}/posts`, 'posts')).length;
    if (posts > thread.posts) thread = { id: t.id, posts };
  }
  const total = async (path) => (await get(`${path}?per_page=1`, bearer)).meta.total;
  let events = 0;
  for (let after; ;) {
    const page = await get(`/v1/events?limit=1000${after ? `&after=${after}` : ''}`, bearer);
    events += page.data.length;
    if (!page.meta.has_more) break;
    after = page.meta.next_after;
  }
  return {
    forum: { thread_id: thread.id },
    counts: {
      forum_threads: threads.length,
      forum_posts: thread.posts,
      v1_tournaments: await total('/v1/tournaments'),
      v1_servers: await total('/v1/servers'),
      v1_clans: await total('/v1/clans'),
      v1_events: events,
    },
  };
}

/** Runs a command, its stderr passed through; resolves with its exit code and stdout. */
log('seeding the template hub');
const seeding = performance.now();
const template = prepareTemplate();
log(`seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
const results = new Map(); // language -> { tests, scenarios: Map(name -> result) }
try {
  for (const language of languages) {
    const started = performance.now();
    log(`${language.name}: starting a seeded hub`);
    const hub = await startHub(template.dir);
    const fixtureFile = join(hub.dir, 'fixture.json');
    let proxy;
    try {
      const measured = await measure(hub.url, template.fixture.api_key);
      proxy = await startConformanceProxy({ hubUrl: hub.url, scenarios, fixture: template.fixture });
      const fixture = {
        ...template.fixture,
        ...measured,
        base_url: proxy.url,
        hub_url: hub.url,
        scenarios_file: join(CONFORMANCE, 'scenarios.json'),
        vectors_file: join(CONFORMANCE, 'webhook-vectors.json'),
      };
      writeFileSync(fixtureFile, `${JSON.stringify(fixture, null, 2)}\n`);
      log(`${language.name}: hub ${hub.url}, proxy ${proxy.url}, counts ${JSON.stringify(measured.counts)}`);
      const options = {
        cwd: join(ROOT, language.dir),
        env: { ...process.env, HUB_CONFORMANCE_FIXTURE: fixtureFile },
      };
      // `tests: null`: a column without tests of its own (the browser one runs the typescript library,
      // whose tests the typescript column runs)
      let tests = { code: 0 };
      if (language.tests && !process.env.CLIENTS_SKIP_TESTS) {
        log(`${language.name}: its own tests`);
        tests = await run(language.tests[0], language.tests.slice(1), { ...options, echo: true });
      }
      log(`${language.name}: the scenarios`);
      // CLIENTS_SCENARIOS="a b": only these scenarios (while working on them; the rest show MISSING)
      const only = (process.env.CLIENTS_SCENARIOS ?? '').split(/[\s,]+/).filter(Boolean);
      const scenarioRun = await run(
        language.scenarios[0],
        [...language.scenarios.slice(1), ...only],
        options,
      );
      results.set(language.name, {
        tests: language.tests ? tests.code === 0 : 'n/a',
        exit: scenarioRun.code,
        scenarios: scenarioResults(scenarioRun.stdout),
      });
    } finally {
      await proxy?.close();
      await hub.stop();
      rmSync(hub.dir, { recursive: true, force: true });
      log(`${language.name}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  }
} finally {
  rmSync(template.dir, { recursive: true, force: true });
}

// the matrix
const names = languages.map((l) => l.name);
const width = Math.max(...scenarios.map((s) => s.name.length), 'own tests'.length) + 2;
const cell = (text) => text.padEnd(Math.max(12, ...names.map((n) => n.length + 2)));
const lines = [`${'scenario'.padEnd(width)}${names.map(cell).join('')}`];
let failed = 0;
const mark = (ok) => {
  if (!ok) failed++;
  return ok ? 'pass' : 'FAIL';
};
const ownTests = (n) => {
  const tests = results.get(n)?.tests;
  return tests === 'n/a' ? 'n/a' : mark(tests === true);
};
lines.push(`${'own tests'.padEnd(width)}${names.map((n) => cell(ownTests(n))).join('')}`);
const failures = [];
const notApplicable = []; // a scenario a column cannot run by nature (a browser page), with the reason
for (const scenario of scenarios) {
  const row = names.map((n) => {
    const result = results.get(n)?.scenarios.get(scenario.name);
    if (!result) {
      failed++;
      return cell('MISSING');
    }
    if (result.status === 'n/a') {
      notApplicable.push(`${n} ${scenario.name}: ${result.reason ?? 'no reason given'}`);
      return cell('n/a');
    }
    if (result.status !== 'pass') failures.push(`${n} ${scenario.name}: ${result.error ?? result.status}`);
    return cell(mark(result.status === 'pass'));
  });
  lines.push(`${scenario.name.padEnd(width)}${row.join('')}`);
}
console.log(lines.join('\n'));
for (const failure of failures) console.log(`  ${failure}`);
for (const line of notApplicable) console.log(`  n/a: ${line}`);
console.log(
  failed === 0
    ? `all ${scenarios.length} scenarios pass in ${names.join(', ')}${notApplicable.length ? ` (n/a: ${notApplicable.length})` : ''}`
    : `${failed} failed or missing`,
);
process.exit(failed === 0 ? 0 : 1);
