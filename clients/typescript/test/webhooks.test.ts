import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { WebhookVector } from '../conformance/harness.js';
import { WebhookVerificationError, WebhookVerifier } from '../src/index.js';

const { vectors } = JSON.parse(
  readFileSync(new URL('../../conformance/webhook-vectors.json', import.meta.url), 'utf8'),
) as { vectors: WebhookVector[] };

describe('WebhookVerifier', () => {
  for (const vector of vectors)
    it(`${vector.name}: ${vector.valid ? 'accepted' : 'refused'}`, async () => {
      const verifier = new WebhookVerifier(vector.secrets, { now: () => vector.now * 1000 });
      const outcome = await verifier.parse(vector.body, vector.headers).then(
        (event) => event,
        (error: unknown) => error,
      );
      if (vector.valid) assert.equal((outcome as { type?: string }).type, 'economy.transfer.created');
      else assert.ok(outcome instanceof WebhookVerificationError, String(outcome));
    });

  it('accepts what the standardwebhooks package signs now, from a Headers object or a byte body', async () => {
    const secret = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
    const body = JSON.stringify({
      id: 'evt_0000000000000001',
      type: 'clan.created',
      created_at: 'x',
      data: {},
    });
    const signature = new Webhook(secret).sign('evt_0000000000000001', new Date(), body);
    const headers = new Headers({
      'webhook-id': 'evt_0000000000000001',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': signature,
    });
    const event = await new WebhookVerifier(secret).parse(new TextEncoder().encode(body), headers);
    assert.equal(event.type, 'clan.created');
  });
});
