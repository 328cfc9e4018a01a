import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// `npm install` rewrites the lock's root entry from package.json whenever the two disagree, so a
// fresh clone's first command would leave the tree dirty. These are the fields npm copies.
const COPIED = ['name', 'version', 'license', 'bin', 'engines', 'dependencies', 'devDependencies'] as const;

type Manifest = Partial<Record<(typeof COPIED)[number], unknown>>;

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(new URL(`../${path}`, import.meta.url), 'utf8'));
}

describe('package-lock.json', () => {
  it('its root entry says what package.json says, so `npm install` leaves it unchanged', () => {
    const manifest = readJson('package.json') as Manifest;
    const lock = readJson('package-lock.json') as { packages: Record<string, Manifest> };
    const root = lock.packages[''];
    assert.ok(root, 'the lock has a root package entry');
    for (const field of COPIED) {
      assert.deepEqual(root[field], manifest[field], `package-lock.json's root "${field}"`);
    }
  });
});
