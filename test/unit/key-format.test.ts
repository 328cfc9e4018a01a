import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateKey, hashKey, isWellFormedKey, sameHash } from '../../src/modules/keys/key-format.js';

describe('key format', () => {
  it('generates well-formed keys whose checksum catches a typo', () => {
    const key = generateKey();
    assert.ok(isWellFormedKey(key));
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    assert.ok(!isWellFormedKey(key.slice(0, -1) + last));
    assert.ok(!isWellFormedKey(`${key}x`));
  });

  it('compares digests exactly, wherever they differ', () => {
    const digest = hashKey(generateKey());
    assert.ok(sameHash(digest, digest.toUpperCase().toLowerCase()));
    const flip = (at: number) =>
      digest.slice(0, at) + (digest[at] === '0' ? '1' : '0') + digest.slice(at + 1);
    for (const at of [0, 31, 63]) assert.ok(!sameHash(digest, flip(at)), `differs at ${at}`);
    assert.ok(!sameHash(digest, digest.slice(0, 63)));
    assert.ok(!sameHash(digest, hashKey(generateKey())));
  });
});
