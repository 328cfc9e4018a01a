import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { crc32, inflateSync } from 'node:zlib';
import type { OpenApiDocument } from '../src/http/docs/openapi-types.js';
import type { Problem } from '../src/http/problem.js';
import { seedDatabase } from '../src/seed/index.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { registerServer, postEvents } from './helpers/ingest.js';
import { signUp } from './helpers/portal.js';

/** Reads a PNG the way a decoder would: signature, chunk CRCs, header, palette, image data size. */
function decodePng(bytes: Buffer): { width: number; height: number; colours: number } {
  assert.ok(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])));
  const chunks = new Map<string, Buffer[]>();
  const order: string[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    assert.equal(
      bytes.readUInt32BE(at + 8 + length),
      crc32(bytes.subarray(at + 4, at + 8 + length)) >>> 0,
      type,
    );
    chunks.set(type, [...(chunks.get(type) ?? []), data]);
    order.push(type);
    at += 12 + length;
  }
  assert.equal(order[0], 'IHDR');
  assert.equal(order.at(-1), 'IEND');
  const header = chunks.get('IHDR')?.[0] ?? Buffer.alloc(13);
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  assert.deepEqual([header[8], header[9], header[12]], [8, 3, 0], 'palette, 8 bits, not interlaced');
  const palette = chunks.get('PLTE')?.[0] ?? Buffer.alloc(0);
  const pixels = inflateSync(Buffer.concat(chunks.get('IDAT') ?? []));
  assert.equal(pixels.length, height * (width + 1));
  for (let y = 0; y < height; y++) {
    const row = pixels.subarray(y * (width + 1), (y + 1) * (width + 1));
    assert.equal(row[0], 0, 'filter type');
    for (const index of row.subarray(1)) assert.ok(index * 3 < palette.length, 'index inside the palette');
  }
  return { width, height, colours: palette.length / 3 };
}

/** Every `avatar` value anywhere in a JSON body. */
function avatarsIn(value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) avatarsIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'avatar' && typeof inner === 'string') found.add(inner);
      else avatarsIn(inner, found);
    }
  }
  return found;
}

for (const dialect of testDialects()) {
  describe(`avatars (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    const avatar = (path: string, headers: Record<string, string> = {}) =>
      ctx.inject({ method: 'GET', url: path, headers });

    it('every avatar in every response resolves to a PNG: seeded, signed-up and ingested users', async () => {
      await seedDatabase(ctx.testDb.db, { users: 12, kills: 300, seed: 7 });
      await signUp(ctx);
      // A player first seen in a game server's events gets a profile too.
      const { token } = await registerServer(ctx.testDb.db, 'rust');
      const player = (n: number) => ({ steam_id: `7656119800000${4000 + n}`, name: `Rusty${n}` });
      const ingested = await postEvents(ctx, token, [
        {
          type: 'kill',
          client_id: 'k-1',
          occurred_at: new Date().toISOString(),
          killer: player(1),
          victim: player(2),
          weapon: 'rifle.ak',
          headshot: false,
          distance: 10,
        },
      ]);
      assert.equal(ingested.statusCode, 200, ingested.body);

      const ids = (await ctx.testDb.db.kysely.selectFrom('users').select('id').execute()).map((r) => r.id);
      assert.ok(ids.length >= 15);
      // Every published GET without path parameters, and the user routes for every user.
      const doc = json<OpenApiDocument>(
        await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }),
      );
      const paths = Object.keys(doc.paths)
        .filter((p) => p.startsWith('/api-platform/v1/') && doc.paths[p]?.get && !p.includes('{'))
        .map((p) => p.slice('/api-platform/v1'.length));
      assert.ok(paths.length >= 8, paths.join(' '));
      const found = new Set<string>();
      for (const path of [...paths, ...ids.flatMap((id) => [`/users/${id}`, `/users/${id}/stats`])]) {
        const res = await ctx.get(path);
        assert.equal(res.statusCode, 200, path);
        avatarsIn(res.json(), found);
      }
      assert.deepEqual(
        [...found].sort(),
        ids.map((id) => `/avatars/${id}.png`).sort(),
        'one avatar per user',
      );

      for (const path of found) {
        const res = await avatar(path);
        assert.equal(res.statusCode, 200, path);
        assert.equal(res.headers['content-type'], 'image/png');
        assert.deepEqual(decodePng(res.rawPayload), { width: 120, height: 120, colours: 2 });
      }
    });

    it('is the same picture for the same id and a different one for another id', async () => {
      const first = await avatar('/avatars/42.png');
      assert.ok((await avatar('/avatars/42.png')).rawPayload.equals(first.rawPayload));
      const pictures = new Set<string>();
      for (let id = 1; id <= 40; id++)
        pictures.add((await avatar(`/avatars/${id}.png`)).rawPayload.toString('base64'));
      assert.ok(pictures.size >= 39, `${pictures.size} different pictures for 40 ids`);
      assert.ok(first.rawPayload.length < 1000, `${first.rawPayload.length} bytes`);
    });

    it('is public, cacheable for a week, revalidated by ETag, embeddable from other sites', async () => {
      const res = await avatar('/avatars/7.png');
      assert.equal(res.headers['cache-control'], 'public, max-age=604800');
      assert.equal(res.headers['cross-origin-resource-policy'], 'cross-origin');
      assert.equal(res.headers['x-ratelimit-limit'], undefined, 'no key, no quota');
      const etag = String(res.headers.etag);
      const again = await avatar('/avatars/7.png', { 'if-none-match': etag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.notEqual((await avatar('/avatars/8.png')).headers.etag, etag);
      const head = await ctx.inject({ method: 'HEAD', url: '/avatars/7.png' });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers['content-length'], String(res.rawPayload.length));
    });

    it('answers any other path under /avatars with a 404 problem', async () => {
      for (const bad of [
        '0.png',
        'default.png',
        '1.jpg',
        '01.png',
        '1.png.png',
        '-1.png',
        '2147483648.png',
        '99999999999.png',
        '1',
      ]) {
        const res = await avatar(`/avatars/${bad}`);
        assert.equal(res.statusCode, 404, bad);
        assert.equal(json<Problem>(res).code, 'not_found');
      }
      assert.equal((await avatar('/avatars/2147483647.png')).statusCode, 200);
    });
  });
}
