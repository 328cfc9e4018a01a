import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import { chunks } from '../killboard/rollups.js';
import { identityOfKey, playerKey, type LinkedPlatform } from './player.js';

/** All SQL of identity links and link codes. */
type Db = Kysely<Database> | Transaction<Database>;

export interface LinkRow {
  platform: LinkedPlatform;
  player_id: string;
  user_id: number;
  name: string;
  server_id: number | null;
  linked_at: number;
}

export interface CodeRow {
  user_id: number | null;
  platform: LinkedPlatform | null;
  player_id: string | null;
  name: string | null;
  server_id: number | null;
  expires_at: number;
}

/** Hub user ids of the linked ones among these player keys (`minecraft:<uuid>`, `eos:<id>`). */
export async function linkedUsers(db: Db, keys: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const byPlatform = new Map<string, string[]>();
  for (const key of new Set(keys)) {
    const { platform, id } = identityOfKey(key);
    byPlatform.set(platform, [...(byPlatform.get(platform) ?? []), id]);
  }
  for (const [platform, ids] of byPlatform)
    for (const chunk of chunks(ids, 500)) {
      const rows = await db
        .selectFrom('identity_links')
        .select(['player_id', 'user_id'])
        .where('platform', '=', platform as LinkedPlatform)
        .where('player_id', 'in', chunk)
        .execute();
      for (const r of rows)
        out.set(playerKey({ platform: platform as LinkedPlatform, id: r.player_id }), r.user_id);
    }
  return out;
}

export function identitiesRepo(db: Db) {
  return {
    linksOf(userId: number): Promise<LinkRow[]> {
      return db
        .selectFrom('identity_links')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('linked_at')
        .orderBy('platform')
        .orderBy('player_id')
        .execute();
    },

    findLink(platform: LinkedPlatform, playerId: string): Promise<LinkRow | undefined> {
      return db
        .selectFrom('identity_links')
        .selectAll()
        .where('platform', '=', platform)
        .where('player_id', '=', playerId)
        .executeTakeFirst();
    },

    /** Inserts the link unless the identity has one already; whether it was inserted. */
    async insertLink(link: LinkRow): Promise<boolean> {
      const done = await db
        .insertInto('identity_links')
        .values(link)
        .onConflict((oc) => oc.columns(['platform', 'player_id']).doNothing())
        .returning('user_id')
        .executeTakeFirst();
      return done !== undefined;
    },

    /** Removes the user's link of this identity; the link removed, or undefined when there was none. */
    removeLink(userId: number, platform: LinkedPlatform, playerId: string): Promise<LinkRow | undefined> {
      return db
        .deleteFrom('identity_links')
        .where('user_id', '=', userId)
        .where('platform', '=', platform)
        .where('player_id', '=', playerId)
        .returningAll()
        .executeTakeFirst();
    },

    async insertCode(row: CodeRow & { code_hash: string; created_at: number }): Promise<void> {
      await db.insertInto('link_codes').values(row).execute();
    },

    /**
     * Takes a code: deletes it and returns what it held, when it exists and has not expired (an
     * expired one is deleted too). Deleting is what makes a code one-use, also under concurrency:
     * of two takers, one deletes the row.
     */
    async takeCode(codeHash: string, now: number): Promise<CodeRow | undefined> {
      const row = await db
        .deleteFrom('link_codes')
        .where('code_hash', '=', codeHash)
        .returning(['user_id', 'platform', 'player_id', 'name', 'server_id', 'expires_at'])
        .executeTakeFirst();
      return row && row.expires_at > now ? row : undefined;
    },

    async codeExists(codeHash: string): Promise<boolean> {
      const row = await db
        .selectFrom('link_codes')
        .select('code_hash')
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Forgets expired codes (they can never be used). */
    async sweepCodes(now: number): Promise<void> {
      await db.deleteFrom('link_codes').where('expires_at', '<=', now).execute();
    },
  };
}

export type IdentitiesRepo = ReturnType<typeof identitiesRepo>;
