#!/usr/bin/env node
// Writes clients/conformance/webhook-vectors.json: deliveries signed by the `standardwebhooks`
// package (what the hub signs with) and whether a verifier must accept them. Every library's
// verifier is run over these; each vector carries the clock (`now`) the verifier must use.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';

const OLD = 'whsec_' + Buffer.from('conformance-old-secret-0123456789').toString('base64');
const NEW = 'whsec_' + Buffer.from('conformance-new-secret-9876543210').toString('base64');
const WRONG = 'whsec_' + Buffer.from('someone-elses-secret-abcdefghijk').toString('base64');
const ID = 'evt_0000000000004711';
const T = 1_763_661_851; // seconds; fixed, so the file is reproducible
const body = JSON.stringify({
  id: ID,
  type: 'economy.transfer.created',
  created_at: '2025-11-20T18:04:11.000Z',
  data: {
    transfer_id: 9001,
    from_user_id: 41,
    to_user_id: 42,
    amount: 7,
    note: null,
    created_at: '2025-11-20T18:04:11.000Z',
    balance: 93,
  },
});

const sign = (secret, payload = body, at = T) => new Webhook(secret).sign(ID, new Date(at * 1000), payload);
const headers = (signature, at = T) => ({
  'webhook-id': ID,
  'webhook-timestamp': String(at),
  'webhook-signature': signature,
});

const vectors = [
  { name: 'valid', secrets: [OLD], headers: headers(sign(OLD)), body, now: T + 10, valid: true },
  {
    name: 'tampered_body',
    secrets: [OLD],
    headers: headers(sign(OLD)),
    body: body.replace('"amount":7', '"amount":700'),
    now: T + 10,
    valid: false,
  },
  { name: 'wrong_secret', secrets: [WRONG], headers: headers(sign(OLD)), body, now: T + 10, valid: false },
  { name: 'old_timestamp', secrets: [OLD], headers: headers(sign(OLD)), body, now: T + 301, valid: false },
  { name: 'future_timestamp', secrets: [OLD], headers: headers(sign(OLD)), body, now: T - 301, valid: false },
  {
    name: 'rotated_two_signatures_old_secret',
    secrets: [OLD],
    headers: headers(`${sign(OLD)} ${sign(NEW)}`),
    body,
    now: T + 10,
    valid: true,
  },
  {
    name: 'rotated_two_signatures_new_secret',
    secrets: [NEW],
    headers: headers(`${sign(OLD)} ${sign(NEW)}`),
    body,
    now: T + 10,
    valid: true,
  },
  {
    name: 'verifier_holds_old_and_new',
    secrets: [OLD, NEW],
    headers: headers(sign(NEW)),
    body,
    now: T + 10,
    valid: true,
  },
  {
    name: 'signature_of_another_timestamp',
    secrets: [OLD],
    headers: headers(sign(OLD, body, T - 5)),
    body,
    now: T + 10,
    valid: false,
  },
  {
    name: 'missing_signature',
    secrets: [OLD],
    headers: { 'webhook-id': ID, 'webhook-timestamp': String(T) },
    body,
    now: T + 10,
    valid: false,
  },
];

const out = join(import.meta.dirname, '../../clients/conformance/webhook-vectors.json');
writeFileSync(
  out,
  `${JSON.stringify({ description: 'Standard Webhooks deliveries signed by the standardwebhooks package; tolerance 300 s; verify with the clock at `now` (epoch seconds).', tolerance_seconds: 300, vectors }, null, 2)}\n`,
);
console.log(`wrote ${vectors.length} vectors to ${out}`);
