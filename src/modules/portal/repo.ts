import type { Kysely } from 'kysely';
import type { Database, PortalFlashesTable } from '../../db/types.js';

/** The portal's own rows: flashes (accounts, keys and usage belong to their features). */
export function portalRepo(db: Kysely<Database>) {
  return {
    /** Stores a flash; expired ones are swept here (an indexed delete per form post), not by a timer. */
    async putFlash(row: PortalFlashesTable, now: number): Promise<void> {
      await db.deleteFrom('portal_flashes').where('expires_at', '<=', now).execute();
      await db.insertInto('portal_flashes').values(row).execute();
    },

    /** Removes and returns a live flash of this owner in one statement: a second read finds nothing. */
    async takeFlash(id: string, ownerHash: string, now: number): Promise<string | undefined> {
      const row = await db
        .deleteFrom('portal_flashes')
        .where('id', '=', id)
        .where('owner_hash', '=', ownerHash)
        .where('expires_at', '>', now)
        .returning('payload')
        .executeTakeFirst();
      return row?.payload;
    },
  };
}

export type PortalRepo = ReturnType<typeof portalRepo>;
