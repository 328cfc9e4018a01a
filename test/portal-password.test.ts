import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_SCRYPT,
  hashPassword,
  setScryptCost,
  verifyPassword,
} from '../src/modules/accounts/password.js';

describe('password hashing (scrypt)', () => {
  it('uses OWASP scrypt parameters by default, a fresh salt per hash, and verifies', async () => {
    assert.deepEqual(DEFAULT_SCRYPT, { N: 16384, r: 8, p: 5 });
    setScryptCost(DEFAULT_SCRYPT);
    const a = await hashPassword('violet-harbor-97');
    const b = await hashPassword('violet-harbor-97');
    assert.match(a, /^scrypt\$16384\$8\$5\$/);
    assert.notEqual(a, b, 'salted');
    assert.equal(await verifyPassword('violet-harbor-97', a), true);
    assert.equal(await verifyPassword('violet-harbor-98', a), false);
  });

  it('verifies hashes made with other parameters, and refuses garbage or no hash', async () => {
    setScryptCost({ N: 1024, r: 8, p: 1 });
    const cheap = await hashPassword('another-secret-1');
    setScryptCost(DEFAULT_SCRYPT);
    assert.equal(await verifyPassword('another-secret-1', cheap), true);
    assert.equal(await verifyPassword('another-secret-1', 'md5$abc'), false);
    assert.equal(await verifyPassword('another-secret-1', null), false);
    assert.equal(await verifyPassword('another-secret-1', undefined), false);
  });
});
