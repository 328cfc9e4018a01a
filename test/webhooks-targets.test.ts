import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import type { WebhookBody } from '../src/modules/webhooks/schemas.js';
import { createTestContext, fakeDns, PUBLIC_ADDRESS, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';

/**
 * Issue 23, part 3: a webhook target that can never be delivered to is refused when it is
 * registered or changed (422 invalid_webhook_url saying why, nothing stored), by the same SSRF
 * guard the sender runs; names are resolved then too. The resolver is injected: `evil.example`
 * resolves to loopback as a hosts-file entry would, and no test reaches a real DNS server.
 */
const NEVER_DELIVERABLE: [url: string, why: RegExp][] = [
  ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is not a public address \(link-local/],
  ['https://10.0.0.1', /10\.0\.0\.1 is not a public address \(private\)/],
  ['https://192.168.1.1', /192\.168\.1\.1 is not a public address \(private\)/],
  ['https://100.64.0.1', /100\.64\.0\.1 is not a public address \(shared \(CGNAT/],
  ['https://[::1]', /::1 is not a public address \(loopback\)/],
  ['https://[::ffff:127.0.0.1]', /::ffff:7f00:1 is not a public address \(loopback \(IPv4 inside IPv6\)\)/],
  ['https://[::ffff:a9fe:a9fe]', /::ffff:a9fe:a9fe is not a public address \(link-local/],
  ['https://2130706433', /127\.0\.0\.1 is not a public address \(loopback\)/],
  ['https://0x7f.1/', /127\.0\.0\.1 is not a public address \(loopback\)/],
  ['https://0177.0.0.1/', /127\.0\.0\.1 is not a public address \(loopback\)/],
  ['https://[64:ff9b::a9fe:a9fe]/', /64:ff9b::a9fe:a9fe is not a public address \(link-local/],
  ['https://[::ffff:0:a00:1]/', /::ffff:0:a00:1 is not a public address \(private/],
  ['https://localhost/', /localhost is not a public address \(a loopback name/],
  ['https://LOCALHOST./', /localhost is not a public address \(a loopback name/],
  ['https://hooks.localhost/', /hooks\.localhost is not a public address \(a loopback name/],
  ['https://evil.example/hook', /evil\.example resolves to 127\.0\.0\.1, not a public address \(loopback\)/],
  ['https://evil.example./hook', /evil\.example resolves to 127\.0\.0\.1/],
  ['https://mixed.example/', /mixed\.example resolves to 10\.1\.2\.3, not a public address \(private\)/],
  ['https://metadata.example/', /metadata\.example resolves to fd00:ec2::254/],
  ['https://gone.invalid/', /gone\.invalid did not resolve \(ENOTFOUND\)/],
];
const ALLOW_SETTING = /WEBHOOKS_ALLOW_PRIVATE_TARGETS=true \(it also allows plain http\)/;

const dns = fakeDns({
  'evil.example': ['127.0.0.1'],
  'mixed.example': [PUBLIC_ADDRESS, '10.1.2.3'],
  'metadata.example': ['2606:4700::1111', 'fd00:ec2::254'],
  'hooks.example.com': [PUBLIC_ADDRESS, '2606:4700::1111'],
});

for (const dialect of testDialects()) {
  describe(`webhook targets refused at registration (${dialect})`, () => {
    let ctx: TestContext;
    let local: TestContext;
    let key: string;
    let localKey: string;

    before(async () => {
      ctx = await createTestContext(dialect, { lookup: dns });
      key = (await ctx.makeKey({ userId: (await ctx.makeUser()).id, tier: 'partner' })).secret;
      local = await createTestContext(dialect, { lookup: dns, allowPrivateTargets: true });
      localKey = (await local.makeKey({ userId: (await local.makeUser()).id, tier: 'partner' })).secret;
    });
    after(async () => {
      await ctx.close();
      await local.close();
    });

    const call = (on: TestContext, token: string, method: 'POST' | 'PATCH', url: string, payload: unknown) =>
      on.inject({
        method,
        url: `/v1${url}`,
        headers: { authorization: `Bearer ${token}` },
        payload: payload as Record<string, unknown>,
      });
    const stored = async (on: TestContext) =>
      (await on.testDb.db.kysely.selectFrom('webhooks').select(['id', 'url']).orderBy('id').execute()).map(
        (row) => `${row.id} ${row.url}`,
      );
    const refusal = (res: Awaited<ReturnType<typeof call>>): Problem => {
      assert.equal(res.statusCode, 422, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const problem = res.json<Problem>();
      assert.equal(problem.code, 'invalid_webhook_url');
      return problem;
    };

    it('refuses each target that can never be delivered to, on create and on update, storing nothing', async () => {
      const created = await call(ctx, key, 'POST', '/webhooks', {
        url: 'https://hooks.example.com/hub',
        events: ['*'],
      });
      assert.equal(created.statusCode, 201, created.body);
      const { id } = created.json<{ data: { webhook: WebhookBody } }>().data.webhook;
      const before = await stored(ctx);
      for (const [url, why] of NEVER_DELIVERABLE) {
        const onCreate = refusal(await call(ctx, key, 'POST', '/webhooks', { url, events: ['*'] }));
        assert.match(onCreate.detail, why, url);
        const onUpdate = refusal(await call(ctx, key, 'PATCH', `/webhooks/${id}`, { url, enabled: false }));
        assert.match(onUpdate.detail, why, url);
        // a private target can be tested against locally: the refusal names the setting
        if (!url.includes('.invalid')) assert.match(onCreate.detail, ALLOW_SETTING, url);
      }
      assert.deepEqual(await stored(ctx), before);
      const [webhook] = await ctx.testDb.db.kysely
        .selectFrom('webhooks')
        .select('enabled')
        .where('id', '=', id)
        .execute();
      assert.equal(webhook?.enabled, 1, 'a refused update changed nothing else either');
    });

    it('refuses plain http, naming the setting that allows it for local tests', async () => {
      const before = await stored(ctx);
      const problem = refusal(
        await call(ctx, key, 'POST', '/webhooks', { url: 'http://hooks.example.com/hub', events: ['*'] }),
      );
      assert.match(problem.detail, /must use https/);
      assert.match(problem.detail, ALLOW_SETTING);
      assert.deepEqual(await stored(ctx), before);
    });

    it('accepts public targets: names whose every address is public, and public literals', async () => {
      for (const url of [
        'https://hooks.example.com/hub',
        'https://8.8.8.8/x',
        'https://[2606:4700::1111]/x',
      ]) {
        const res = await call(ctx, key, 'POST', '/webhooks', { url, events: ['match.ended'] });
        assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
        assert.equal(res.json<{ data: { webhook: WebhookBody } }>().data.webhook.enabled, true);
      }
    });

    it('with WEBHOOKS_ALLOW_PRIVATE_TARGETS, accepts loopback and private targets and plain http', async () => {
      const accepted = [
        'http://127.0.0.1:8080/hook',
        'http://localhost:8080/hook',
        'https://evil.example/hook',
        'https://[::1]/hook',
        'https://10.0.0.1/hook',
      ];
      for (const url of accepted) {
        const res = await call(local, localKey, 'POST', '/webhooks', { url, events: ['*'] });
        assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
      }
      // a name that does not resolve cannot be delivered to on any deployment
      refusal(
        await call(local, localKey, 'POST', '/webhooks', { url: 'https://gone.invalid/', events: ['*'] }),
      );
    });
  });
}
