import type { InvalidParam } from '../../http/problem.js';

export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{3,32}$/;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 128;

// The handful of passwords that pass the length rule and top every breach list.
const COMMON = new Set([
  'password123',
  'password1234',
  '1234567890',
  '12345678910',
  'qwertyuiop',
  'iloveyou123',
  'letmein1234',
  'administrator',
  'passwordpassword',
  'qwerty12345',
]);

/** Every rule a new username and password break, as body parameters (empty when all pass). */
export function accountRuleErrors(username: string, password: string): InvalidParam[] {
  const errors: InvalidParam[] = [];
  if (!USERNAME_PATTERN.test(username)) {
    errors.push({
      in: 'body',
      name: 'username',
      reason: 'must be 3 to 32 characters: letters, digits, underscore, dot or hyphen',
    });
  }
  // code points, not UTF-16 units: a password of emoji counts what the user typed
  const length = Array.from(password).length;
  const lower = password.toLowerCase();
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    errors.push({
      in: 'body',
      name: 'password',
      reason: `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`,
    });
  } else if (username.length > 0 && lower.includes(username.toLowerCase())) {
    errors.push({ in: 'body', name: 'password', reason: 'must not contain the username' });
  } else if (new Set(password).size < 4) {
    errors.push({ in: 'body', name: 'password', reason: 'must use at least 4 different characters' });
  } else if (COMMON.has(lower)) {
    errors.push({ in: 'body', name: 'password', reason: 'is one of the most common passwords' });
  }
  return errors;
}
