import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { EVENT_CATALOG, isEventType } from '../src/modules/events/catalog.js';
import { eventOf } from '../src/modules/events/define.js';
import { dialectOf, emit } from '../src/modules/events/emit.js';
import { eventsRepo } from '../src/modules/events/repo.js';
import { KILL_RECORDED } from '../src/modules/ingest/events.js';
import { TRANSFER_CREATED } from '../src/modules/economy/events.js';
import { APP_CREATED } from '../src/modules/apps/events.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';

// A standard JSON Schema validator, not TypeBox's own: the schemas are published as JSON Schema.
const ajv = new Ajv2020({ strict: false, allErrors: true });
formats.default(ajv);
const definitions = [...EVENT_CATALOG.values()];

describe('event catalog', () => {
  it('has at least 50 types, each named resource.action', () => {
    assert.ok(EVENT_CATALOG.size >= 50, `only ${EVENT_CATALOG.size} types`);
    for (const { type } of definitions) assert.match(type, /^[a-z_]+(\.[a-z_]+)+$/);
  });

  it('gives every type a description, and an example that validates against its schema', () => {
    for (const definition of definitions) {
      assert.ok(definition.description.length > 20, definition.type);
      const validate = ajv.compile(definition.schema);
      assert.ok(validate(definition.example), `${definition.type}: ${ajv.errorsText(validate.errors)}`);
    }
  });

  it('schemas refuse what they do not describe', () => {
    const validate = ajv.compile(KILL_RECORDED.schema);
    assert.equal(validate({ ...KILL_RECORDED.example, headshot: 'yes' }), false);
    assert.equal(validate({ ...KILL_RECORDED.example, surprise: 1 }), false);
    const { weapon: _weapon, ...missing } = KILL_RECORDED.example;
    assert.equal(validate(missing), false);
  });

  it('marks per-kill events high volume and offers their batched variant', () => {
    assert.equal(EVENT_CATALOG.get('kill.recorded')?.highVolume, true);
    assert.notEqual(EVENT_CATALOG.get('kills.batch_recorded')?.highVolume, true);
    assert.equal(isEventType('kills.batch_recorded'), true);
    assert.equal(isEventType('kill.exploded'), false);
  });

  it('keeps private events private: a user event names its user, an app event its app', () => {
    assert.ok(definitions.some((d) => d.audience === 'user' && d.scope === 'economy:read'));
    assert.throws(() => eventOf(TRANSFER_CREATED, TRANSFER_CREATED.example), /private to a user/);
    assert.throws(() => eventOf(APP_CREATED, APP_CREATED.example), /private to an app/);
    assert.deepEqual(eventOf(TRANSFER_CREATED, TRANSFER_CREATED.example, { userId: 42 }), {
      type: 'economy.transfer.created',
      data: TRANSFER_CREATED.example,
      userId: 42,
      appId: null,
      scope: 'economy:read',
    });
  });
});

for (const dialect of testDialects()) {
  describe(`emit (${dialect})`, () => {
    let testDb: TestDb;
    before(async () => {
      testDb = await openTestDb(dialect);
    });
    after(() => testDb.drop());

    it('knows the dialect from the transaction and writes the events in it', async () => {
      const { kysely } = testDb.db;
      assert.equal(dialectOf(kysely), dialect);
      const repo = eventsRepo(kysely);
      const start = await repo.latest();
      await kysely.transaction().execute(async (trx) => {
        assert.equal(dialectOf(trx), dialect);
        await emit(trx, [eventOf(KILL_RECORDED, KILL_RECORDED.example)], Date.now());
      });
      const seen = await repo.after({
        after: start,
        limit: 10,
        reader: { userId: null, appId: null, keyOwnerId: null, scopes: new Set(['stats:read']) },
      });
      assert.deepEqual(
        seen.map((s) => [s.event.type, s.event.data]),
        [['kill.recorded', KILL_RECORDED.example]],
      );
    });

    it('writes the largest ingest batch (10,000 kills and their batched events) in one call', async () => {
      const { kysely } = testDb.db;
      const events = Array.from({ length: 10_020 }, () => eventOf(KILL_RECORDED, KILL_RECORDED.example));
      const ids = await kysely.transaction().execute((trx) => emit(trx, events, Date.now()));
      assert.equal(ids.length, events.length);
      assert.equal(new Set(ids).size, events.length);
    });
  });
}
