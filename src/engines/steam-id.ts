/**
 * Steam ID forms accepted wherever a player is named (the killboard `player` filter, log ingest).
 * All steam forms denote an individual account in the public universe, whose SteamID64 is
 * 76561197960265728 + account id, with a 32-bit account id:
 * - SteamID64: 17 digits in [76561197960265728, 76561197960265728 + 2^32 − 1];
 * - STEAM_X:Y:Z (Steam2, CS 1.6 logs): X universe 0–5 (0 and 1 both mean public), Y the low bit,
 *   Z the rest: account id = Z × 2 + Y;
 * - [U:1:N] (Steam3, CS2 logs): N is the account id.
 * `u<userId>` names a hub user directly.
 */
export const STEAM_ID64_BASE = 76561197960265728n;
const MAX_ACCOUNT_ID = 0xffff_ffffn;
const MAX_USER_ID = 2_147_483_647;

export type PlayerRef = { kind: 'steam'; steamId64: string } | { kind: 'user'; userId: number };

const STEAM_ID64 = /^\d{17}$/;
const STEAM2 = /^STEAM_([0-5]):([01]):(\d{1,10})$/;
const STEAM3 = /^\[U:1:(\d{1,10})\]$/;
const USER = /^u([1-9]\d{0,9})$/;

const fromAccountId = (accountId: bigint): string | null =>
  accountId <= MAX_ACCOUNT_ID ? String(STEAM_ID64_BASE + accountId) : null;

/** The account id of a SteamID64 in the individual range, or null. */
function accountIdOf(id64: string | bigint): bigint | null {
  const text = String(id64);
  if (!STEAM_ID64.test(text)) return null;
  const accountId = BigInt(text) - STEAM_ID64_BASE;
  return accountId >= 0n && accountId <= MAX_ACCOUNT_ID ? accountId : null;
}

/** Any steam form (SteamID64, STEAM_X:Y:Z, [U:1:N]) → SteamID64 string; anything else → null. */
export function fromAnySteamId(text: string): string | null {
  if (STEAM_ID64.test(text)) return accountIdOf(text) === null ? null : text;
  const steam2 = STEAM2.exec(text);
  if (steam2) return fromAccountId(BigInt(steam2[3] ?? '') * 2n + BigInt(steam2[2] ?? ''));
  const steam3 = STEAM3.exec(text);
  if (steam3) return fromAccountId(BigInt(steam3[1] ?? ''));
  return null;
}

/** A `player` parameter → a steam account or a hub user; null when it is none of the four forms. */
export function parsePlayer(text: string): PlayerRef | null {
  const user = USER.exec(text);
  if (user) {
    const userId = Number(user[1]);
    return userId <= MAX_USER_ID ? { kind: 'user', userId } : null;
  }
  const steamId64 = fromAnySteamId(text);
  return steamId64 === null ? null : { kind: 'steam', steamId64 };
}

function requireAccountId(id64: string | bigint): bigint {
  const accountId = accountIdOf(id64);
  if (accountId === null) throw new RangeError(`not an individual SteamID64: ${String(id64)}`);
  return accountId;
}

/** SteamID64 → `STEAM_X:Y:Z`; universe 0 as CS 1.6 writes it (newer games write 1). */
export function toSteam2(id64: string | bigint, universe: 0 | 1 = 0): string {
  const accountId = requireAccountId(id64);
  return `STEAM_${universe}:${accountId % 2n}:${accountId / 2n}`;
}

/** SteamID64 → `[U:1:N]`, as CS2 logs write it. */
export function toSteam3(id64: string | bigint): string {
  return `[U:1:${requireAccountId(id64)}]`;
}
