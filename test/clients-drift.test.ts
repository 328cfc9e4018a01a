import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { dumpOpenApi } from '../scripts/clients/dump-openapi.js';
import { CLIENTS_DIR, DOCUMENT_FILE, GENERATORS, generateClients } from '../scripts/clients/generate.js';

// CI's drift check: the checked-in document and generated clients are what today's routes
// produce. A changed route without `npm run clients:generate` fails here.

async function files(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) await walk(path);
      else out.set(relative(dir, path), await readFile(path, 'utf8'));
    }
  };
  await walk(dir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  });
  return out;
}

const fix = 'run `npm run clients:generate` and commit the result';

describe('generated clients', async () => {
  const today = await dumpOpenApi();
  const temp = await mkdtemp(join(tmpdir(), 'hub-clients-'));
  after(() => rm(temp, { recursive: true, force: true }));
  await generateClients(today, temp);

  it('clients/openapi.json is the document the service serves', async () => {
    const checkedIn = await readFile(DOCUMENT_FILE, 'utf8').catch(() => '');
    assert.ok(checkedIn === today, `clients/openapi.json differs from the served document: ${fix}`);
  });

  for (const generator of GENERATORS)
    it(`${generator.language}: the checked-in generated code is what the document produces`, async () => {
      const expected = await files(join(temp, generator.generatedDir));
      const actual = await files(join(CLIENTS_DIR, generator.generatedDir));
      assert.ok(expected.size > 0, 'the generator wrote nothing');
      assert.deepEqual(
        [...actual.keys()].sort(),
        [...expected.keys()].sort(),
        `generated files differ: ${fix}`,
      );
      for (const [name, text] of expected)
        assert.ok(actual.get(name) === text, `${generator.generatedDir}/${name} differs: ${fix}`);
    });
});
