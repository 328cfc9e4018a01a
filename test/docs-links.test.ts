import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigSchema } from '../src/config.js';
import { slug } from '../src/http/docs/markdown.js';
import { anchors, brokenLinks, documentationFiles, links } from './helpers/markdown-links.js';

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the README and the guides in docs/', () => {
  it('have no relative link to a missing file or anchor', () => {
    const files = documentationFiles(ROOT);
    assert.ok(files.length >= 10, `README + the guides, got ${files.length}`);
    assert.deepEqual(brokenLinks(files, ROOT), []);
  });

  it('keep the README to a newcomer’s first screens, linking every guide', () => {
    const readme = read('README.md');
    const lines = readme.split('\n').length;
    assert.ok(lines < 200, `README.md has ${lines} lines`);
    const quickStart = readme.slice(readme.indexOf('## Quick start'));
    const block = /```sh\n([\s\S]*?)```/.exec(quickStart)?.[1] ?? '';
    assert.deepEqual(
      block
        .trim()
        .split('\n')
        .map((l) => l.split('#')[0]?.trim()),
      ['npm install && npm start', 'npm install && npm test'],
    );
    const linked = new Set(links(readme).map((l) => l.target.split('#')[0]));
    const guides = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    for (const guide of guides) assert.ok(linked.has(`docs/${guide}`), `README links docs/${guide}`);
  });

  it('list every environment variable with its default in docs/operating.md', () => {
    const rows = new Map(
      [...read('docs/operating.md').matchAll(/^\| `([A-Z0-9_]+)` +\| ([^|]+?) +\|/gm)].map((m) => [
        m[1] as string,
        m[2] as string,
      ]),
    );
    for (const [name, schema] of Object.entries(ConfigSchema.properties)) {
      const row = rows.get(name);
      assert.ok(row !== undefined, `${name} is in the configuration table`);
      const fallback = (schema as { default?: string | number | boolean }).default;
      if (fallback !== undefined) assert.equal(row, `\`${String(fallback)}\``, `${name}'s default`);
    }
  });

  it('name the setting that allows local webhook targets next to the webhook examples', () => {
    const guide = read('docs/events-and-webhooks.md');
    const section = guide.slice(guide.indexOf('## Webhooks'), guide.indexOf('## Delivery'));
    assert.match(section, /WEBHOOKS_ALLOW_PRIVATE_TARGETS=true/);
    assert.match(section, /plain `http`/);
    assert.ok('WEBHOOKS_ALLOW_PRIVATE_TARGETS' in ConfigSchema.properties);
  });
});

describe('the link checker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-doc-links-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  };

  it('makes the heading ids GitHub makes', () => {
    assert.equal(slug('Coins: balance, history and transfers'), 'coins-balance-history-and-transfers');
    assert.equal(slug('Benchmark (`npm run bench`)'), 'benchmark-npm-run-bench');
    assert.equal(slug('`npm run bench:v1`'), 'npm-run-benchv1');
    assert.equal(slug('Node.js versions'), 'nodejs-versions');
    assert.equal(slug('Start-up failures and shutdown'), 'start-up-failures-and-shutdown');
    assert.equal(slug('The [preview](x.md) `/v1` surface'), 'the-preview-v1-surface');
    assert.deepEqual([...anchors('# A\n## A\n```\n# not a heading\n```\n### A\n')], ['a', 'a-1', 'a-2']);
  });

  it('reports a missing file, a missing anchor in another file and in its own', () => {
    write('docs/guide.md', '# Guide\n\n## Real section\n');
    const readme = write(
      'README.md',
      [
        '# Project',
        'See [the guide](docs/guide.md), [its section](docs/guide.md#real-section) and [here](#project).',
        'Broken: [gone](docs/gone.md), [no anchor](docs/guide.md#imaginary-section), [self](#nowhere).',
        'Not links: `[in code](docs/nope.md)` and an [external one](https://example.com/x#y).',
        '```md',
        '[inside a fence](docs/nope.md)',
        '```',
      ].join('\n'),
    );
    assert.deepEqual(brokenLinks([readme], dir), [
      'README.md:3: docs/gone.md (no such file)',
      'README.md:3: docs/guide.md#imaginary-section (no such anchor)',
      'README.md:3: #nowhere (no such anchor)',
    ]);
  });
});
