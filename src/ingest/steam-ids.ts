/**
 * Steam ID forms seen on the wire, normalised to SteamID64 (the form stored and shown):
 *   `[U:1:N]`      (Source 2 / CS2 logs)          -> 76561197960265728 + N
 *   `STEAM_X:Y:Z`  (GoldSrc / CS 1.6, older Source) -> 76561197960265728 + 2·Z + Y
 *   a 17-digit SteamID64 (plugins, JSON events)   -> itself, if it is an individual account
 * BigInt keeps the arithmetic exact past 2^53.
 */
const BASE = 76561197960265728n;
const MAX_ACCOUNT = 0xffffffffn;
const STEAM3 = /^\[U:1:(\d{1,10})\]$/;
const STEAM2 = /^STEAM_[0-5]:([01]):(\d{1,10})$/;
const STEAM64 = /^7656119\d{10}$/;

export function toSteamId64(raw: string): string | null {
  let account: bigint;
  const s3 = STEAM3.exec(raw);
  if (s3) account = BigInt(s3[1] ?? '');
  else {
    const s2 = STEAM2.exec(raw);
    if (s2) account = BigInt(s2[2] ?? '') * 2n + BigInt(s2[1] ?? '');
    else if (STEAM64.test(raw)) account = BigInt(raw) - BASE;
    else return null;
  }
  if (account <= 0n || account > MAX_ACCOUNT) return null;
  return String(BASE + account);
}
