import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { postEvents, registerServer } from './helpers/ingest.js';

/**
 * The hub agrees with the plugin SDKs' shared vectors (plugin-sdk/vectors/events.json): every wire
 * object an SDK must send is accepted, and every input an SDK must refuse, sent anyway, is refused
 * by the hub too. The vectors' fixed dates are moved to now (the hub's ingest window).
 */
interface Vectors {
  valid: { name: string; wire: Record<string, unknown> }[];
  invalid: { name: string; field: string; input: unknown }[];
}
const VECTORS = JSON.parse(
  readFileSync(join(import.meta.dirname, '../plugin-sdk/vectors/events.json'), 'utf8'),
) as Vectors;

/** the event dated now, keeping any malformed time as it is (that is what the vector tests) */
function now(event: unknown, at: string): unknown {
  if (typeof event !== 'object' || event === null) return event;
  const e = { ...(event as Record<string, unknown>) };
  for (const key of ['occurred_at', 'ended_at'])
    if (typeof e[key] === 'string' && /Z$|[+-]\d\d:\d\d$/.test(e[key])) e[key] = at;
  return e;
}

for (const dialect of testDialects()) {
  describe(`the hub against the shared plugin vectors (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('accepts every wire object of the valid vectors', async () => {
      const server = await registerServer(ctx.testDb.db, 'minecraft');
      const at = new Date(Date.now() - 60_000).toISOString();
      const res = await postEvents(
        ctx,
        server.token,
        VECTORS.valid.map((v) => now(v.wire, at)),
      );
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<IngestResultBody>();
      assert.deepEqual(body.errors, []);
      assert.equal(body.accepted, VECTORS.valid.length);
    });

    it('refuses every input the SDKs must refuse', async () => {
      const server = await registerServer(ctx.testDb.db, 'minecraft');
      const at = new Date(Date.now() - 60_000).toISOString();
      // a value that is not an object is refused with the whole body (400): the rest go one by one
      const objects = VECTORS.invalid.filter((v) => typeof v.input === 'object' && v.input !== null);
      assert.ok(objects.length >= VECTORS.invalid.length - 1);
      const events = objects.map((v, i) => {
        const e = now(v.input, at);
        // a client id where the vector has none (an SDK assigns one), unless the vector tests it
        return typeof e === 'object' && e !== null && !('client_id' in e)
          ? { ...e, client_id: `inv-${i}` }
          : e;
      });
      const res = await postEvents(ctx, server.token, events);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<IngestResultBody>();
      const refused = new Set(body.errors.map((e) => e.index));
      const accepted = objects.filter((_, i) => !refused.has(i)).map((v) => v.name);
      assert.deepEqual(accepted, [], 'the hub took inputs the vectors say an SDK must refuse');
    });
  });
}
