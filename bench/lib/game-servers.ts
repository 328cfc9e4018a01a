import type { Db } from '../../src/db/connect.js';
import type { CommandChannel } from '../../src/db/types.js';
import { serversRepo } from '../../src/modules/servers/repo.js';
import { generateToken, hashToken } from '../../src/modules/servers/tokens.js';

export interface BenchServer {
  name: string;
  owner: number;
  game?: string;
  /** its remote console (a fake server of test/helpers/fake-rcon): port and sealed password */
  rcon_port?: number;
  rcon_password?: string;
  /** `rcon` (default) or `plugin`: the queue its plugin long-polls */
  command_channel?: CommandChannel;
}

/** Registers a game server as `hub servers add` does; returns its id and its plain ingest token. */
export async function addGameServer(db: Db, server: BenchServer): Promise<{ id: number; token: string }> {
  const token = generateToken();
  const row = await serversRepo(db.kysely).add({
    name: server.name,
    game: server.game ?? 'rust',
    ip: '127.0.0.1',
    port: 1,
    query_port: null,
    token_hash: hashToken(token),
    created_at: Date.now(),
    owner_user_id: server.owner,
    rcon_port: server.rcon_port ?? null,
    rcon_password: server.rcon_password ?? null,
    command_channel: server.command_channel ?? 'rcon',
  });
  return { id: row.id, token };
}
