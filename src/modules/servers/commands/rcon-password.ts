import { open, seal, type SecretKey } from '../../../engines/secret-box.js';

/** Authenticated with every sealed RCON password: a blob moved to another column does not open. */
const PURPOSE = 'game_servers.rcon_password';

/** RCON passwords: 1 to 128 printable characters (the protocols send them as one line of text). */
export const RCON_PASSWORD = /^[\x20-\x7e]{1,128}$/;

export const sealRconPassword = (key: SecretKey, password: string): string => seal(key, password, PURPOSE);
export const openRconPassword = (key: SecretKey, sealed: string): string => open(key, sealed, PURPOSE);
