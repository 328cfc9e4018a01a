import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { parseRetryAfter } from '../src/modules/webhooks/delivery/retry-after.js';
import { sendSignedWebhook } from '../src/modules/webhooks/delivery/send.js';
import { signWebhook } from '../src/modules/webhooks/delivery/sign.js';
import { checkTarget, forbiddenReason, hostOf } from '../src/modules/webhooks/delivery/ssrf.js';
import { newWebhookSecret, receiver, verified } from './helpers/webhook-receiver.js';

describe('webhook signatures (Standard Webhooks)', () => {
  it('verifies with the standardwebhooks library and matches an HMAC computed apart', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'evt_0000000000000001', type: 'kill.recorded', data: { n: 1 } });
    const now = Date.now();
    const headers = signWebhook('evt_0000000000000001', body, [secret], now);
    assert.equal(headers['webhook-id'], 'evt_0000000000000001');
    assert.equal(headers['webhook-timestamp'], String(Math.floor(now / 1000)));
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`evt_0000000000000001.${headers['webhook-timestamp']}.${body}`)
      .digest('base64');
    assert.equal(headers['webhook-signature'], `v1,${expected}`);
    assert.deepEqual(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body));
    assert.throws(
      () => new Webhook(newWebhookSecret()).verify(body, { ...headers }),
      /No matching signature/,
    );
    assert.throws(() => new Webhook(secret).verify(`${body} `, { ...headers }), /No matching signature/);
  });

  it('signs with every secret during a rotation: the old and the new secret both verify', () => {
    const [old, fresh] = [newWebhookSecret(), newWebhookSecret()];
    const body = '{"a":1}';
    const headers = signWebhook('evt_0000000000000002', body, [old, fresh], Date.now());
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.ok(headers['webhook-signature'].split(' ').every((s) => s.startsWith('v1,')));
    assert.deepEqual(new Webhook(old).verify(body, { ...headers }), { a: 1 });
    assert.deepEqual(new Webhook(fresh).verify(body, { ...headers }), { a: 1 });
    assert.throws(() => signWebhook('evt_0000000000000002', body, [], Date.now()));
  });
});

describe('SSRF guard', () => {
  const forbidden = [
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.1.1',
    '100.64.0.1',
    '100.100.100.200',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '198.18.0.1',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '64:ff9b::127.0.0.1',
    '2002:7f00:1::',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    'ff02::1',
    'fec0::1',
    '2001:db8::1',
    '::ffff:0:127.0.0.1',
    '::ffff:0:a9fe:a9fe',
    '3fff::1',
    'fe80::1%eth0',
  ];
  for (const address of forbidden) {
    it(`refuses ${address}`, () => {
      assert.notEqual(forbiddenReason(address), undefined, address);
    });
  }

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::',
  ];
  for (const address of allowed) {
    it(`lets ${address} through`, () => {
      assert.equal(forbiddenReason(address), undefined, address);
    });
  }

  const urls = [
    'http://127.0.0.1/',
    'http://localhost/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://127.1/',
    'http://017700000001/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
    'http://0/',
    'http://[::]/',
    'http://0.0.0.0:8080/',
  ];
  for (const url of urls) {
    it(`sends nothing to ${url}`, async () => {
      const result = await sendSignedWebhook({
        url,
        body: '{}',
        eventId: 'evt_0000000000000001',
        secrets: [newWebhookSecret()],
        allowPrivate: false,
      });
      assert.equal(result.ok, false);
      assert.equal(result.error, 'forbidden_address', JSON.stringify(result));
    });
  }

  it('refuses loopback names without asking DNS, with or without the final dot', async () => {
    for (const url of ['https://localhost/', 'https://LOCALHOST./', 'https://a.b.localhost:8443/']) {
      const check = await checkTarget(hostOf(new URL(url)), false, () =>
        Promise.reject(new Error(`no lookup expected for ${url}`)),
      );
      assert.ok(!check.ok && check.kind === 'forbidden_address', url);
    }
  });

  it('refuses a name when any one of its addresses is private', async () => {
    const check = await checkTarget('mixed.example', false, () =>
      Promise.resolve([
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]),
    );
    assert.ok(!check.ok);
    assert.match(check.message, /10\.0\.0\.7/);
  });

  it('refuses what a name resolves to, not only literal addresses', async () => {
    const result = await sendSignedWebhook({
      url: 'http://metadata.example/',
      body: '{}',
      eventId: 'evt_0000000000000001',
      secrets: [newWebhookSecret()],
      allowPrivate: false,
      resolve: () => Promise.resolve([{ address: '169.254.169.254', family: 4 }]),
    });
    assert.equal(result.error, 'forbidden_address');
  });

  it('connects to the address it checked, once resolved (no DNS rebinding), with Host kept', async () => {
    const hook = await receiver((_req, res) => res.end('ok'));
    try {
      let lookups = 0;
      // a name no real resolver knows: only the pinned address can have been used
      const result = await sendSignedWebhook({
        url: `http://hooks.rebind.invalid:${hook.port}/x`,
        body: '{}',
        eventId: 'evt_0000000000000001',
        secrets: [newWebhookSecret()],
        allowPrivate: true,
        resolve: () => {
          lookups++;
          return Promise.resolve(
            lookups === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.255.255.1', family: 4 }],
          );
        },
      });
      assert.equal(result.status, 200);
      assert.equal(lookups, 1);
      assert.equal(hook.receipts[0]?.headers.host, `hooks.rebind.invalid:${hook.port}`);
    } finally {
      await hook.close();
    }
  });

  it('reports a name that does not resolve', async () => {
    const result = await sendSignedWebhook({
      url: 'http://nowhere.invalid/',
      body: '{}',
      eventId: 'evt_0000000000000001',
      secrets: [newWebhookSecret()],
      allowPrivate: false,
    });
    assert.equal(result.error, 'dns_failed');
  });

  it('takes only http(s) URLs without credentials', async () => {
    for (const url of [
      'ftp://example.com/',
      'not a url',
      'http://user:pw@example.com/',
      'file:///etc/passwd',
    ]) {
      const result = await sendSignedWebhook({
        url,
        body: '{}',
        eventId: 'evt_0000000000000001',
        secrets: [newWebhookSecret()],
        allowPrivate: true,
      });
      assert.equal(result.error, 'invalid_url', url);
    }
  });
});

describe('sendSignedWebhook', () => {
  it('POSTs the body signed, and reports status, latency, headers and a 1 KiB excerpt', async () => {
    const secret = newWebhookSecret();
    const hook = await receiver((_req, res) => {
      res.setHeader('x-receiver', 'yes');
      res.end('y'.repeat(5000));
    });
    try {
      const body = JSON.stringify({
        id: 'evt_0000000000000009',
        type: 'match.ended',
        data: { map: 'de_dust2' },
      });
      const result = await sendSignedWebhook({
        url: hook.url,
        body,
        eventId: 'evt_0000000000000009',
        secrets: [secret],
        allowPrivate: true,
      });
      if (result.error) assert.fail(result.message);
      assert.equal(result.ok, true);
      assert.equal(result.status, 200);
      assert.ok(result.latencyMs >= 0);
      assert.equal(result.headers['x-receiver'], 'yes');
      assert.equal(result.bodyExcerpt.length, 1024);
      const receipt = hook.receipts[0];
      assert.ok(receipt);
      assert.equal(receipt.headers['content-type'], 'application/json');
      assert.equal(receipt.headers['webhook-id'], 'evt_0000000000000009');
      assert.deepEqual(verified(secret, receipt), JSON.parse(body));
    } finally {
      await hook.close();
    }
  });

  it('does not follow a redirect: a 3xx is a failed delivery', async () => {
    const target = await receiver((_req, res) => res.end('should not be reached'));
    const hook = await receiver((_req, res) => {
      res.statusCode = 307;
      res.setHeader('location', target.url);
      res.end();
    });
    try {
      const secret = newWebhookSecret();
      const result = await sendSignedWebhook({
        url: hook.url,
        body: '{}',
        eventId: 'evt_0000000000000003',
        secrets: [secret],
        allowPrivate: true,
      });
      assert.equal(result.status, 307);
      assert.equal(result.ok, false);
      assert.equal(target.receipts.length, 0);
      assert.equal(hook.receipts.length, 1);
      assert.ok(hook.receipts[0] && verified(secret, hook.receipts[0]));
    } finally {
      await Promise.all([hook.close(), target.close()]);
    }
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const secret = newWebhookSecret();
    const hook = await receiver(() => {
      /* never answers */
    });
    try {
      const result = await sendSignedWebhook({
        url: hook.url,
        body: '{}',
        eventId: 'evt_0000000000000004',
        secrets: [secret],
        allowPrivate: true,
        timeoutMs: 300,
      });
      assert.equal(result.error, 'timeout');
      assert.ok(result.latencyMs >= 290 && result.latencyMs < 5000, String(result.latencyMs));
      assert.ok(hook.receipts[0] && verified(secret, hook.receipts[0]));
    } finally {
      await hook.close();
    }
  });

  it('gives up on a receiver that sends headers and then trickles its body forever', async () => {
    const hook = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('a');
    });
    try {
      const result = await sendSignedWebhook({
        url: hook.url,
        body: '{}',
        eventId: 'evt_0000000000000004',
        secrets: [newWebhookSecret()],
        allowPrivate: true,
        timeoutMs: 300,
      });
      assert.equal(result.error, 'timeout');
    } finally {
      await hook.close();
    }
  });

  it('reads Retry-After and a refused connection', async () => {
    const hook = await receiver((_req, res) => {
      res.statusCode = 503;
      res.setHeader('retry-after', '120');
      res.end();
    });
    const { port } = hook;
    try {
      const result = await sendSignedWebhook({
        url: hook.url,
        body: '{}',
        eventId: 'evt_0000000000000005',
        secrets: [newWebhookSecret()],
        allowPrivate: true,
      });
      if (result.error) assert.fail(result.message);
      assert.equal(result.status, 503);
      assert.equal(result.ok, false);
      assert.equal(result.retryAfterMs, 120_000);
    } finally {
      await hook.close();
    }
    const refused = await sendSignedWebhook({
      url: `http://127.0.0.1:${port}/`,
      body: '{}',
      eventId: 'evt_0000000000000005',
      secrets: [newWebhookSecret()],
      allowPrivate: true,
    });
    assert.equal(refused.error, 'connection_failed');
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('30', now), 30_000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60_000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('-5', now), undefined);
    assert.equal(parseRetryAfter('1.5', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });
});
