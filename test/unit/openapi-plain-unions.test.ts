import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withPlainUnions } from '../../src/http/docs/plain-unions.js';

describe('withPlainUnions', () => {
  it('writes a nullable field as a type list, keeping both descriptions and the enum', () => {
    const field = {
      anyOf: [{ type: 'string', enum: ['a', 'b'], description: 'SteamID64' }, { type: 'null' }],
      description: 'null without a Steam account',
      examples: ['a'],
    };
    assert.deepEqual(withPlainUnions(field), {
      type: ['string', 'null'],
      enum: ['a', 'b', null],
      description: 'SteamID64; null without a Steam account',
      examples: ['a'],
    });
  });

  it('writes a literal union as an enum, nullable or not', () => {
    const literals = {
      anyOf: [
        { const: 'ok', type: 'string' },
        { const: 'error', type: 'string' },
      ],
    };
    assert.deepEqual(withPlainUnions(literals), { type: 'string', enum: ['ok', 'error'] });
    assert.deepEqual(withPlainUnions({ anyOf: [...literals.anyOf, { type: 'null' }] }), {
      type: ['string', 'null'],
      enum: ['ok', 'error', null],
    });
  });

  it('leaves references, mixed unions and examples alone, and changes nothing in place', () => {
    const ref = { anyOf: [{ $ref: '#/components/schemas/User' }, { type: 'null' }] };
    const mixed = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    const example = { example: { anyOf: [{ type: 'string' }, { type: 'null' }] } };
    const shared = { properties: { example: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } };
    const before = structuredClone({ ref, mixed, example, shared });
    assert.deepEqual(withPlainUnions({ ref, mixed, example }), { ref, mixed, example });
    assert.deepEqual(withPlainUnions(shared), { properties: { example: { type: ['integer', 'null'] } } });
    assert.deepEqual({ ref, mixed, example, shared }, before);
  });
});
