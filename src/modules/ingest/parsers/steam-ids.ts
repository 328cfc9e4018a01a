import { fromAnySteamId, STEAM_ID64_BASE } from '../../../engines/steam-id.js';

const ACCOUNT_ZERO = String(STEAM_ID64_BASE);

/**
 * A player's Steam ID as a log line or event gives it (`[U:1:N]`, `STEAM_X:Y:Z` or a SteamID64),
 * as the SteamID64 stored and shown; null when it names no account. Parsing is the engines' one;
 * ingest also refuses account 0, the placeholder some servers print for bots and players not yet
 * authenticated, so they never become a profile.
 */
export function toSteamId64(raw: string): string | null {
  const id = fromAnySteamId(raw);
  return id === ACCOUNT_ZERO ? null : id;
}
