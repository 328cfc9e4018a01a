import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  DISCORD_LIMITS,
  discordWebhook,
  fitDiscord,
  httpWebhook,
  type DiscordMessage,
} from '@gaming-hub/bot';

/** The outputs against local receivers that check what arrives. */
interface Received {
  headers: IncomingHttpHeaders;
  body: unknown;
  at: number;
}
/** A receiver answering each request with the next planned status (then 204). */
function receiver() {
  const received: Received[] = [];
  let plan: { status: number; headers?: Record<string, string>; body?: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(body) as unknown, at: Date.now() });
      const next = plan.shift() ?? { status: 204 };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(next.body ?? '');
    });
  });
  return {
    received,
    plan: (p: typeof plan) => {
      plan = p;
      received.length = 0;
    },
    url: () => {
      const address = server.address();
      return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
    },
    listen: () => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('outputs', () => {
  const hook = receiver();
  before(() => hook.listen());
  after(() => hook.close());

  it('Discord: waits the retry_after of a 429, then posts once', async () => {
    hook.plan([
      {
        status: 429,
        body: JSON.stringify({ message: 'You are being rate limited.', retry_after: 0.25, global: false }),
      },
    ]);
    await discordWebhook(hook.url()).send({ content: 'gg' }, 'k1');
    assert.equal(hook.received.length, 2);
    const [first, second] = hook.received;
    assert.ok(first && second && second.at - first.at >= 240, 'waited the 250 ms Discord asked for');
    assert.deepEqual(second.body, { content: 'gg' });
  });

  it('Discord: gives up on a refusal (400) at once, and on a wait longer than allowed', async () => {
    hook.plan([{ status: 400, body: '{"message":"Invalid Form Body"}' }]);
    await assert.rejects(discordWebhook(hook.url()).send({ content: 'x' }, 'k'), /refused the message: 400/);
    assert.equal(hook.received.length, 1);
    hook.plan([{ status: 429, headers: { 'retry-after': '3600' }, body: '{}' }]);
    await assert.rejects(discordWebhook(hook.url()).send({ content: 'x' }, 'k'), /asks to wait 3600 s/);
  });

  it('Discord: fits a message within the documented limits', () => {
    const long = (n: number) => 'x'.repeat(n);
    const message: DiscordMessage = {
      content: long(2500),
      embeds: Array.from({ length: 12 }, () => ({
        title: long(300),
        description: long(5000),
        fields: Array.from({ length: 30 }, () => ({ name: long(300), value: long(2000) })),
        footer: { text: long(3000) },
      })),
    };
    const fitted = fitDiscord(message);
    const chars = (s: string | undefined) => Array.from(s ?? '').length;
    assert.equal(chars(fitted.content), DISCORD_LIMITS.content);
    assert.equal(fitted.embeds?.length, DISCORD_LIMITS.embeds);
    let total = 0;
    for (const embed of fitted.embeds ?? []) {
      assert.ok(chars(embed.title) <= DISCORD_LIMITS.title);
      assert.ok(chars(embed.description) <= DISCORD_LIMITS.description);
      assert.ok(chars(embed.footer?.text) <= DISCORD_LIMITS.footer);
      assert.ok((embed.fields?.length ?? 0) <= DISCORD_LIMITS.fields);
      for (const f of embed.fields ?? []) {
        assert.ok(chars(f.name) <= DISCORD_LIMITS.fieldName && chars(f.value) <= DISCORD_LIMITS.fieldValue);
        total += chars(f.name) + chars(f.value);
      }
      total += chars(embed.title) + chars(embed.description) + chars(embed.footer?.text);
    }
    assert.ok(total <= DISCORD_LIMITS.total, `${total} characters in all embeds`);
    const first = fitted.embeds.at(0)?.title ?? '';
    assert.ok(first.endsWith('…'), 'a long title ends with …');
  });

  it('HTTP webhook: the same Idempotency-Key on every attempt, retried after 503', async () => {
    hook.plan([{ status: 503, headers: { 'retry-after': '0' } }, { status: 200 }]);
    await httpWebhook(hook.url(), { headers: { authorization: 'Bearer x' } }).send(
      { kills: 3 },
      'bot:evt_1:on:x:0',
    );
    assert.equal(hook.received.length, 2);
    for (const r of hook.received) {
      assert.equal(r.headers['idempotency-key'], 'bot:evt_1:on:x:0');
      assert.equal(r.headers.authorization, 'Bearer x');
      assert.deepEqual(r.body, { kills: 3 });
    }
  });
});
