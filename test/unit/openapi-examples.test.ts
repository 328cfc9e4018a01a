import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exampleFor, invalidParamExample, invalidValueFor } from '../../src/http/docs/examples.js';
import type { SchemaObject } from '../../src/http/docs/openapi-types.js';

const components: Record<string, SchemaObject> = {
  Player: {
    type: 'object',
    properties: {
      steam_id: { type: 'string', examples: ['76561198000000001'] },
      name: { type: 'string', examples: ['NovaStrike'] },
    },
  },
};

describe('exampleFor', () => {
  it('builds objects from field examples, through $ref and arrays', () => {
    const schema: SchemaObject = {
      type: 'object',
      properties: {
        period: { type: 'string', enum: ['week', 'month', 'all'] },
        leaders: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              rank: { type: 'integer', minimum: 1, examples: [1, 2] },
              player: { $ref: '#/components/schemas/Player' },
              headshot: { type: 'boolean', examples: [false] },
            },
          },
        },
      },
    };
    assert.deepEqual(exampleFor(schema, components), {
      period: 'week',
      leaders: [{ rank: 1, player: { steam_id: '76561198000000001', name: 'NovaStrike' }, headshot: false }],
    });
  });

  it('prefers example, examples, const, default, enum, in that order', () => {
    assert.equal(exampleFor({ type: 'integer', example: 5, examples: [6], default: 7 }, {}), 5);
    assert.equal(exampleFor({ type: 'integer', examples: [6], default: 7 }, {}), 6);
    assert.equal(exampleFor({ const: 'cs2', default: 'x' }, {}), 'cs2');
    assert.equal(exampleFor({ type: 'integer', default: 25, enum: [1] }, {}), 25);
    assert.equal(exampleFor({ type: 'string', enum: ['cs2', 'cs16'] }, {}), 'cs2');
  });

  it('takes the first non-null member of a union and a literal union', () => {
    assert.equal(
      exampleFor({ anyOf: [{ type: 'null' }, { type: 'string', examples: ['de_dust2'] }] }, {}),
      'de_dust2',
    );
    assert.equal(exampleFor({ anyOf: [{ const: 'week' }, { const: 'month' }] }, {}), 'week');
    assert.equal(exampleFor({ type: ['integer', 'null'], minimum: 3 }, {}), 3);
  });

  it('falls back to a neutral value within bounds', () => {
    assert.equal(exampleFor({ type: 'integer', minimum: 1 }, {}), 1);
    assert.equal(exampleFor({ type: 'number' }, {}), 0);
    assert.equal(exampleFor({ type: 'string', minLength: 3 }, {}), 'xxx');
    assert.equal(exampleFor({ type: 'string', format: 'date-time' }, {}), '2026-11-20T18:04:11.000Z');
    assert.deepEqual(exampleFor({ type: 'array', minItems: 2, items: { type: 'boolean' } }, {}), [
      true,
      true,
    ]);
    assert.equal(exampleFor({ $ref: '#/components/schemas/Missing' }, {}), null);
  });

  it('stops on a recursive schema', () => {
    const tree: Record<string, SchemaObject> = {
      Node: { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' } } },
    };
    assert.doesNotThrow(() => exampleFor({ $ref: '#/components/schemas/Node' }, tree));
  });
});

describe('invalidValueFor / invalidParamExample', () => {
  it('steps one past the maximum, or below the minimum', () => {
    assert.equal(invalidValueFor({ type: 'integer', minimum: 1, maximum: 100 }), 101);
    assert.equal(invalidValueFor({ type: 'integer', minimum: 0 }), -1);
    assert.equal(invalidValueFor({ type: 'integer' }), undefined);
  });

  it('picks a value outside an enum, a literal union, a length or a pattern', () => {
    assert.equal(invalidValueFor({ type: 'string', enum: ['cs2', 'unknown'] }), 'none');
    assert.equal(invalidValueFor({ anyOf: [{ const: 'week' }, { const: 'all' }] }), 'unknown');
    assert.equal(invalidValueFor({ type: 'string', maxLength: 3 }), 'xxxx');
    assert.equal(invalidValueFor({ type: 'string', pattern: '^[0-9]{17}$' }), '!');
    assert.equal(invalidValueFor({ type: 'string', pattern: '^[!~x]$' }), '0');
    assert.equal(invalidValueFor({ type: 'string' }), undefined);
  });

  it('words the reason as the error handler does', () => {
    const limit = invalidParamExample({
      name: 'limit',
      in: 'query',
      description: 'Number of items to return, 1-100 (default 25).',
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    });
    assert.deepEqual(limit, {
      param: { in: 'query', name: 'limit', reason: 'must be an integer from 1 to 100 (got 101)' },
      value: 101,
    });
    const period = invalidParamExample({
      name: 'period',
      in: 'query',
      description: 'Time window.',
      schema: { type: 'string', enum: ['week', 'month', 'all'] },
    });
    assert.equal(period?.param.reason, 'must be one of: week, month, all (got "unknown")');
    const player = invalidParamExample({
      name: 'player',
      in: 'query',
      description: 'a SteamID64, STEAM_X:Y:Z, [U:1:N] or u<userId>',
      schema: { type: 'string', pattern: '^u[0-9]+$' },
    });
    assert.equal(player?.param.reason, 'must be a SteamID64, STEAM_X:Y:Z, [U:1:N] or u<userId> (got "!")');
    assert.equal(
      invalidParamExample({ name: 'If-None-Match', in: 'header', schema: { type: 'string' } }),
      undefined,
    );
  });
});
