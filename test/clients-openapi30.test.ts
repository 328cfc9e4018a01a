import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openapi30 } from '../scripts/clients/openapi30.js';

// The 3.1 -> 3.0 conversion Go (oapi-codegen) and Rust (progenitor) read. The drift test proves the
// served document converts to the same clients; these are the forms it does not hold today (a
// nullable union: plain-unions.ts writes type lists) and the one option the generators differ by.

const problem = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

const doc = (schemas: Record<string, unknown>) => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1', license: { name: 'MIT', identifier: 'MIT' } },
  paths: {
    '/clans/{id}': {
      get: {
        operationId: 'clans_get',
        responses: { '200': { description: 'ok' }, '404': { content: problem } },
      },
    },
  },
  components: { schemas },
  webhooks: {
    'clan.member_joined': {
      post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } },
    },
    'clan.created': {
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Clan' } } } },
      },
    },
  },
});

const schemasOf = (out: Record<string, unknown>) =>
  (out.components as { schemas: Record<string, Record<string, unknown>> }).schemas;

describe('openapi30', () => {
  it('writes 3.1 keywords the 3.0 way, and keeps examples as data', () => {
    const out = openapi30(
      doc({
        Clan: {
          type: 'object',
          properties: {
            tag: { type: ['string', 'null'], examples: ['ACE', 'BOLT'] },
            kind: { const: 'clan' },
            size: { type: 'integer', exclusiveMinimum: 0 },
            // a field may be called `type`: a property name, not the keyword
            type: { type: 'string' },
          },
          example: { tag: 'ACE', type: ['not', 'a', 'schema'] },
        },
      }),
    );
    assert.equal(out.openapi, '3.0.3');
    assert.deepEqual(schemasOf(out).Clan, {
      type: 'object',
      properties: {
        tag: { nullable: true, type: 'string', example: 'ACE' },
        kind: { enum: ['clan'] },
        size: { type: 'integer', minimum: 0, exclusiveMinimum: true },
        type: { type: 'string' },
      },
      example: { tag: 'ACE', type: ['not', 'a', 'schema'] },
    });
    assert.equal((out.info as { license: Record<string, unknown> }).license.identifier, undefined);
  });

  it('makes a nullable reference allOf [$ref] (Go: *Clan, not a union wrapper) and a nullable union its member', () => {
    const out = openapi30(
      doc({
        Clan: { type: 'object' },
        Member: {
          type: 'object',
          properties: {
            clan: { anyOf: [{ $ref: '#/components/schemas/Clan' }, { type: 'null' }] },
            note: { oneOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }], description: 'why' },
          },
        },
      }),
    );
    assert.deepEqual(schemasOf(out).Member?.properties, {
      clan: { allOf: [{ $ref: '#/components/schemas/Clan' }], nullable: true },
      note: { type: 'string', maxLength: 10, description: 'why', nullable: true },
    });
  });

  it('refuses a type list of several types: neither generator has a type for it', () => {
    assert.throws(
      () => openapi30(doc({ Clan: { type: ['string', 'integer'] } })),
      /one type, or one and null/,
    );
  });

  it('names the webhook events as components (a named one stays) and drops the webhooks', () => {
    const out = openapi30(doc({ Clan: { type: 'object' } }));
    assert.equal(out.webhooks, undefined);
    assert.deepEqual(Object.keys(schemasOf(out)), ['Clan', 'ClanMemberJoinedEvent']);
  });

  it('reads problem answers as JSON only when asked (progenitor), and keeps them for oapi-codegen', () => {
    type Paths = Record<string, { get: { responses: Record<string, { content?: object }> } } | undefined>;
    const answer = (out: Record<string, unknown>) =>
      Object.keys((out.paths as Paths)['/clans/{id}']?.get.responses['404']?.content ?? {});
    assert.deepEqual(answer(openapi30(doc({ Clan: { type: 'object' } }))), ['application/problem+json']);
    assert.deepEqual(answer(openapi30(doc({ Clan: { type: 'object' } }), { problemAsJson: true })), [
      'application/json',
    ]);
  });
});
