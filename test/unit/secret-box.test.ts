import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  generateSecretKey,
  open,
  parseSecretKey,
  seal,
  sealedKeyId,
  SecretBoxError,
} from '../../src/engines/secret-box.js';

const HEX_KEY = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

describe('secret box (AES-256-GCM under HUB_SECRET_KEY)', () => {
  it('reads a key as 64 hex digits or 44 base64 characters, the same bytes either way', () => {
    const hex = parseSecretKey(HEX_KEY);
    const b64 = parseSecretKey(Buffer.from(HEX_KEY, 'hex').toString('base64'));
    const b64url = parseSecretKey(Buffer.from(HEX_KEY, 'hex').toString('base64url'));
    assert.deepEqual(hex.bytes, b64.bytes);
    assert.deepEqual(hex.bytes, b64url.bytes);
    assert.equal(hex.id, b64.id);
    assert.match(hex.id, /^[0-9a-f]{8}$/);
  });

  it('refuses a key of the wrong length or alphabet, without repeating it', () => {
    for (const bad of [
      '',
      'short',
      HEX_KEY.slice(2),
      `${HEX_KEY}00`,
      'z'.repeat(64),
      'A'.repeat(42) + '==',
    ]) {
      assert.throws(
        () => parseSecretKey(bad),
        (err: unknown) =>
          err instanceof SecretBoxError &&
          /32 random bytes/.test(err.message) &&
          (bad === '' || !err.message.includes(bad)),
      );
    }
  });

  it('seals with a fresh IV each time, in the versioned format naming the key, and opens again', () => {
    const { key } = generateSecretKey();
    const a = seal(key, 'hunter2', 'rcon');
    const b = seal(key, 'hunter2', 'rcon');
    assert.notEqual(a, b);
    assert.match(a, /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
    assert.equal(sealedKeyId(a), key.id);
    assert.ok(!a.includes('hunter2'));
    assert.ok(!Buffer.from(a.split('.')[2] ?? '', 'base64url').includes('hunter2'));
    assert.equal(open(key, a, 'rcon'), 'hunter2');
    assert.equal(open(key, seal(key, 'pässwörd ✓', 'rcon'), 'rcon'), 'pässwörd ✓');
  });

  it('refuses another key (naming both key ids), another purpose, and any altered byte', () => {
    const { key } = generateSecretKey();
    const other = generateSecretKey().key;
    const blob = seal(key, 'hunter2', 'rcon');
    assert.throws(() => open(other, blob, 'rcon'), new RegExp(`key id ${key.id}.*key id ${other.id}`));
    assert.throws(() => open(key, blob, 'another column'), SecretBoxError);
    const payload = Buffer.from(blob.split('.')[2] ?? '', 'base64url');
    for (const at of [0, 12, 27, payload.length - 1]) {
      const altered = Buffer.from(payload);
      altered[at] = (altered[at] ?? 0) ^ 1;
      assert.throws(
        () => open(key, `v1.${key.id}.${altered.toString('base64url')}`, 'rcon'),
        SecretBoxError,
        `byte ${at}`,
      );
    }
    assert.throws(() => open(key, 'hunter2', 'rcon'), /known format/);
    assert.throws(() => open(key, `v2.${key.id}.${payload.toString('base64url')}`, 'rcon'), /known format/);
    assert.throws(() => open(key, `v1.${key.id}.AAAA`, 'rcon'), /truncated/);
  });
});
