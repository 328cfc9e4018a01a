import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { USER_AGENT, VERSION } from '../src/index.js';

it('VERSION is package.json’s, and names the User-Agent', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  assert.equal(VERSION, pkg.version);
  assert.equal(USER_AGENT, `gaming-hub-client-typescript/${pkg.version}`);
});
