import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords are hashed with Node's built-in scrypt (no native add-on) using OWASP's
 * N=2^14, r=8, p=5 profile (16 MiB, equivalent in cost to N=2^17, p=1 but lighter on memory).
 * The parameters travel in the stored string, so they can be raised later without a migration:
 *   scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>
 */
export const DEFAULT_SCRYPT = { N: 16384, r: 8, p: 5 } as const;
let params: { N: number; r: number; p: number } = DEFAULT_SCRYPT;

/**
 * Lowers (or raises) the cost of new hashes. Only tests call this, so that dozens of sign-ins stay
 * fast on a shared CI machine; stored hashes keep verifying because they carry their parameters.
 */
export function setScryptCost(next: { N: number; r: number; p: number }): void {
  params = next;
  dummyHash = undefined;
}
// A real hash of a random password: verifying against it costs exactly what a real check costs.
let dummyHash: Promise<string> | undefined;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_LENGTH,
      { ...options, maxmem: 64 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

const parse = (stored: string) => {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return undefined;
  return {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    salt: Buffer.from(salt, 'base64'),
    hash: Buffer.from(hash, 'base64'),
  };
};

/**
 * Checks a password in constant time. With `stored` null or undefined (unknown account, or an
 * account without a portal password) it still runs one full scrypt, so the response time does not
 * tell whether the username exists.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  const parsed = parse(stored ?? (await dummyHash));
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, { N: parsed.N, r: parsed.r, p: parsed.p });
  return stored != null && key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}
