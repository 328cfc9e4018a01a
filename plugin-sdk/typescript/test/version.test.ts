import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { VERSION } from '../src/index.js';

it('VERSION is the version in package.json (it names the SDK in heartbeats and User-Agent)', () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  assert.equal(VERSION, manifest.version);
});
