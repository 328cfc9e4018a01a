import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { backoffDelay } from '../src/backoff.js';
import { batchAction, clientIds, cutBatches } from '../src/batching.js';
import { resultAction, truncateOutput, type CommandHandler } from '../src/commands.js';
import { encodeEvent, InvalidEventError, type WireEvent } from '../src/events.js';
import { nextHeartbeat } from '../src/heartbeat.js';
import { Spool } from '../src/spool.js';
import { HubPlugin } from '../src/plugin.js';
import {
  loadVectors,
  type BackoffVectors,
  type BatchingVectors,
  type CommandVectors,
  type EventVectors,
  type SpoolVectors,
  type Then,
} from './vector-files.js';

// The shared vectors (plugin-sdk/vectors): every port checks itself against the same files.
const tempDir = () => mkdtempSync(join(tmpdir(), 'plugin-sdk-vectors-'));

describe('events.json', () => {
  const v = loadVectors<EventVectors>('events.json');
  it('encodes every valid input to its exact wire object, numbering in order', () => {
    const next = clientIds(v.instance);
    const now = () => Date.parse(v.now);
    for (const c of v.valid) assert.deepEqual(encodeEvent(c.input, next, now), c.wire, c.name);
  });
  it('refuses every invalid input, naming its field, without taking a number', () => {
    let taken = 0;
    for (const c of v.invalid) {
      assert.throws(
        () =>
          encodeEvent(
            c.input,
            () => `x-${++taken}`,
            () => Date.parse(v.now),
          ),
        (err: unknown) => err instanceof InvalidEventError && err.field === c.field,
        `${c.name}: expected a refusal naming ${c.field}`,
      );
    }
    assert.equal(taken, 0);
  });
});

describe('batching.json', () => {
  const v = loadVectors<BatchingVectors>('batching.json');
  it('client ids', () => {
    for (const c of v.client_ids.cases) assert.equal(clientIds(c.instance, c.seq)(), c.client_id);
    assert.match(
      new HubPlugin({ hubUrl: 'http://x', token: 't', spoolDir: tempDir() }).send({
        type: 'map_change',
        map: 'x',
      }).client_id,
      new RegExp(`${v.client_ids.instance_pattern.slice(0, -1)}-1$`),
    );
  });
  it('batches', () => {
    for (const c of v.batches.cases)
      assert.deepEqual(cutBatches(c.event_bytes, c.max_events, c.max_bytes), c.batches, c.name);
  });
  it('answers', () => {
    for (const c of v.answers.cases) assert.equal(batchAction(c.status), c.action, String(c.status));
  });
});

describe('backoff.json', () => {
  const v = loadVectors<BackoffVectors>('backoff.json');
  it('every delay', () => {
    for (const c of v.cases) {
      const now = c.now === undefined ? 0 : Date.parse(c.now);
      assert.equal(backoffDelay(c.attempt, c.random, c.retry_after, now), c.delay_ms, JSON.stringify(c));
    }
  });
});

const wire = (id: string): WireEvent => ({
  type: 'map_change',
  client_id: id,
  occurred_at: '2026-11-20T18:04:11.000Z',
  map: 'x',
});

describe('spool.json', () => {
  const v = loadVectors<SpoolVectors>('spool.json');
  for (const c of v.cases) {
    it(c.name, async () => {
      const dir = tempDir();
      try {
        for (const [name, text] of Object.entries(c.files ?? {})) writeFileSync(join(dir, name), text);
        let spool = await Spool.open(dir, c.max_events);
        for (const step of c.steps) {
          switch (step.op) {
            case 'append':
              await spool.append((step.client_ids ?? []).map(wire));
              break;
            case 'oldest':
              assert.deepEqual(
                ((await spool.oldest()) ?? []).map((e) => e.client_id),
                step.events,
              );
              break;
            case 'settle':
              await spool.settle();
              break;
            case 'reopen':
              spool = await Spool.open(dir, c.max_events);
              break;
            case 'expect':
              assert.deepEqual(
                (await spool.events()).map((e) => e.client_id),
                step.events,
              );
              if (step.dropped !== undefined) assert.equal(spool.dropped, step.dropped, 'dropped');
              if (step.spooled !== undefined) assert.equal(spool.found, step.spooled, 'spooled');
              if (step.segments !== undefined) assert.deepEqual(spool.files, step.segments);
              if (step.segments !== undefined)
                assert.deepEqual(
                  readdirSync(dir)
                    .filter((n) => n.endsWith('.jsonl'))
                    .sort(),
                  step.segments,
                );
              break;
            default:
              assert.fail(`unknown op in ${c.name}`);
          }
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('commands.json', () => {
  const v = loadVectors<CommandVectors>('commands.json');
  it('output is cut at 65536 bytes, never inside a character', () => {
    for (const c of v.output)
      assert.equal(
        Buffer.byteLength(truncateOutput(c.output.repeat.repeat(c.output.times))),
        c.bytes,
        c.name,
      );
  });
  it('result answers', () => {
    const expected: Record<string, string> = { forget: 'forget', repost: 'repost', stop: 'stop' };
    for (const c of v.result) {
      const action = resultAction(c.answer.status);
      const then = c.then[0];
      assert.ok(then);
      if (then.do === 'count')
        assert.equal(action, then.counter === 'commands_run' ? 'recorded' : 'expired', c.name);
      else assert.equal(action, expected[then.do], c.name);
      if (then.delay_ms !== undefined)
        assert.equal(
          backoffDelay(c.attempt ?? 1, c.random ?? 0.5, c.answer.headers?.['retry-after']),
          then.delay_ms,
          c.name,
        );
    }
  });
  it('heartbeat timing', () => {
    for (const c of v.heartbeat.cases) {
      const then = c.then[0];
      if (then?.do !== 'heartbeat') continue;
      const next = nextHeartbeat(
        c.interval_s ?? 10,
        c.answer.status,
        c.answer.body,
        c.answer.headers?.['retry-after'] ?? null,
        0,
      );
      assert.equal(next.delayMs, then.delay_ms, c.name);
    }
  });
  for (const c of v.poll) {
    it(`poll: ${c.name}`, async () => {
      const runs: { id: string; name: string; args: string }[] = [];
      const posts: { path: string; body: Record<string, unknown> }[] = [];
      let polls = 0;
      let revoked = false;
      let finish = () => {};
      const done = new Promise<void>((resolve) => (finish = resolve));
      const handlers: Record<string, CommandHandler> = {};
      for (const [name, h] of Object.entries(c.handlers ?? {}))
        handlers[name] = (cmd) => {
          runs.push({ id: cmd.id, name: cmd.name, args: cmd.args });
          if (h.throws !== undefined) throw new Error(h.throws);
          return h.output ?? undefined;
        };
      // the loop starts only with a handler: one that no vector names
      handlers['vector-noop'] ??= () => undefined;
      const reply = (a: { status: number | string; body?: unknown; headers?: Record<string, string> }) =>
        typeof a.status === 'number'
          ? Promise.resolve(
              new Response(a.body === undefined ? null : JSON.stringify(a.body), {
                status: a.status,
                headers: a.headers ?? {},
              }),
            )
          : Promise.reject(new TypeError('fetch failed'));
      const plugin = new HubPlugin({
        hubUrl: 'http://hub.test',
        token: 't',
        spoolDir: tempDir(),
        commands: handlers,
        clock: () => Date.parse(c.now ?? '2026-11-20T18:04:11.000Z'),
        random: () => c.random ?? 0.5,
        onRevoked: () => {
          revoked = true;
          finish();
        },
        fetch: async (url, init) => {
          const path = new URL(url).pathname.replace('/api-platform/ingest', '');
          if (init.method === 'GET') {
            polls++;
            if (polls === 1) {
              // after a failure the loop waits its backoff: not waited out here, 50 ms show it did not poll at once
              if (c.answer.status !== 200) setTimeout(finish, 50);
              return reply(c.answer);
            }
            finish(); // the second poll is the vector's "poll again": it is over
            return new Promise<Response>((_, reject) =>
              init.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
            );
          }
          posts.push({ path, body: JSON.parse(init.body as string) as Record<string, unknown> });
          return reply({ status: 200, body: { recorded: true } });
        },
      });
      // a result remembered from an earlier delivery: deliver it once first, then the vector
      for (const [id, result] of Object.entries(c.already_ran ?? {})) plugin.rememberResult(id, result);
      await plugin.start();
      await done;
      await plugin.close();
      const wanted = (kind: Then['do']) => c.then.filter((t) => t.do === kind);
      assert.deepEqual(
        runs,
        wanted('run').map((t) => ({ id: t.id, name: t.name, args: t.args })),
      );
      const results = wanted('result');
      assert.deepEqual(
        posts.map((p) => p.path),
        results.map((t) => `/commands/${String(t.id)}/result`),
      );
      results.forEach((t, i) => {
        const body = { ...posts[i]?.body };
        if (t.body?.duration_ms === undefined) delete body.duration_ms;
        assert.deepEqual(body, t.body);
      });
      const last = c.then.at(-1);
      if (last?.do === 'stop') assert.ok(revoked, 'stopped as revoked');
      if (last?.do === 'poll') {
        assert.equal(polls, last.delay_ms === 0 ? 2 : 1, 'polled again at once only after a 200');
        const delay =
          c.answer.status === 200
            ? 0
            : backoffDelay(c.attempt ?? 1, c.random ?? 0.5, c.answer.headers?.['retry-after']);
        assert.equal(delay, last.delay_ms);
      }
      const counted = c.then.find((t) => t.do === 'count');
      if (counted?.counter) assert.equal(plugin.counters[counted.counter], 1);
    });
  }
});
