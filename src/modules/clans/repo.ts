import { sql, type Kysely } from 'kysely';
import type { ClanRole, ClansTable, Database } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { emit } from '../events/emit.js';
import type { NewEvent } from '../events/outbox.js';

export interface ClanRow {
  id: number;
  game: string;
  name: string;
  tag: string;
  description: string;
  join_policy: ClansTable['join_policy'];
  visibility: ClansTable['visibility'];
  max_members: number;
  member_count: number;
  created_at: number;
  updated_at: number;
}

export interface MemberRow {
  clan_id: number;
  user_id: number;
  username: string;
  role: ClanRole;
  joined_at: number;
}

export interface InviteRow {
  clan_id: number;
  user_id: number;
  invited_by: number | null;
  created_at: number;
}

export type NewClan = Omit<ClanRow, 'id' | 'member_count' | 'updated_at'>;
export type SettingsPatch = Partial<
  Pick<ClanRow, 'description' | 'join_policy' | 'visibility' | 'max_members'>
>;

export interface ClanListFilter {
  game?: string;
  /** part of the name or tag, any case */
  search?: string;
  /** private clans this user belongs to are listed too */
  viewerId: number | null;
  limit: number;
  offset: number;
}

const CLAN_COLUMNS = [
  'id',
  'game',
  'name',
  'tag',
  'description',
  'join_policy',
  'visibility',
  'max_members',
  'member_count',
  'created_at',
  'updated_at',
] as const;

/** Owner first, then officers, then members; the longest-standing first within a role. */
const ROLE_ORDER = sql<number>`case clan_members.role when 'owner' then 0 when 'officer' then 1 else 2 end`;

/** A LIKE pattern matching `text` anywhere; `_`, `%` and `\` in it match themselves. */
const containsPattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** All SQL of clans. Every write runs inside a transaction of `clansStore().transaction()`. */
export function clansRepo(db: Kysely<Database>) {
  /** A clan's members with their user names, as `MemberRow`s. */
  const memberRows = (clanId: number) =>
    db
      .selectFrom('clan_members')
      .innerJoin('users', 'users.id', 'clan_members.user_id')
      .select([
        'clan_members.clan_id',
        'clan_members.user_id',
        'users.username',
        'clan_members.role',
        'clan_members.joined_at',
      ])
      .where('clan_members.clan_id', '=', clanId);

  return {
    findClan(id: number): Promise<ClanRow | undefined> {
      return db.selectFrom('clans').select(CLAN_COLUMNS).where('id', '=', id).executeTakeFirst();
    },

    /**
     * Reads the clan behind a no-op update of its row, which on PostgreSQL keeps the row locked
     * until the transaction ends (on SQLite the immediate transaction already holds the write
     * lock). Every change to a clan's members, roles, invites or settings starts here, so they
     * take turns.
     */
    lockClan(id: number): Promise<ClanRow | undefined> {
      return db
        .updateTable('clans')
        .set((eb) => ({ id: eb.ref('id') }))
        .where('id', '=', id)
        .returning(CLAN_COLUMNS)
        .executeTakeFirst();
    },

    async list(filter: ClanListFilter): Promise<{ rows: ClanRow[]; total: number }> {
      let query = db.selectFrom('clans');
      if (filter.game !== undefined) query = query.where('game', '=', filter.game);
      if (filter.search !== undefined) {
        const pattern = containsPattern(filter.search);
        query = query.where(
          (eb) =>
            sql<boolean>`(lower(${eb.ref('name')}) like ${pattern} escape '\\' or lower(${eb.ref('tag')}) like ${pattern} escape '\\')`,
        );
      }
      const viewerId = filter.viewerId;
      query = query.where((eb) =>
        eb.or([
          eb('visibility', '=', 'public'),
          ...(viewerId === null
            ? []
            : [
                eb.exists(
                  eb
                    .selectFrom('clan_members')
                    .select('clan_members.clan_id')
                    .whereRef('clan_members.clan_id', '=', 'clans.id')
                    .where('clan_members.user_id', '=', viewerId),
                ),
              ]),
        ]),
      );
      const [rows, count] = await Promise.all([
        query
          .select(CLAN_COLUMNS)
          .orderBy('member_count', 'desc')
          .orderBy('id')
          .limit(filter.limit)
          .offset(filter.offset)
          .execute(),
        query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    members(clanId: number): Promise<MemberRow[]> {
      return memberRows(clanId)
        .orderBy(ROLE_ORDER)
        .orderBy('clan_members.joined_at')
        .orderBy('clan_members.user_id')
        .execute();
    },

    member(clanId: number, userId: number): Promise<MemberRow | undefined> {
      return memberRows(clanId).where('clan_members.user_id', '=', userId).executeTakeFirst();
    },

    /** The clan a user belongs to in a game, if any. */
    async clanOfUserInGame(userId: number, game: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('clan_members')
        .select('clan_id')
        .where('user_id', '=', userId)
        .where('game', '=', game)
        .executeTakeFirst();
      return row?.clan_id;
    },

    /** Which of the name and tag another clan of the game already has (any case). */
    async taken(game: string, name: string, tag: string): Promise<{ name: boolean; tag: boolean }> {
      const rows = await db
        .selectFrom('clans')
        .select(['name', 'tag'])
        .where('game', '=', game)
        .where((eb) =>
          eb.or([
            eb(eb.fn('lower', ['name']), '=', name.toLowerCase()),
            eb(eb.fn('lower', ['tag']), '=', tag.toLowerCase()),
          ]),
        )
        .execute();
      return {
        name: rows.some((r) => r.name.toLowerCase() === name.toLowerCase()),
        tag: rows.some((r) => r.tag.toLowerCase() === tag.toLowerCase()),
      };
    },

    async userExists(userId: number): Promise<boolean> {
      const row = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
      return row !== undefined;
    },

    /** A new clan with its owner as the only member. */
    async insertClan(clan: NewClan, ownerId: number): Promise<ClanRow> {
      const row = await db
        .insertInto('clans')
        .values({ ...clan, member_count: 1, updated_at: clan.created_at })
        .returning(CLAN_COLUMNS)
        .executeTakeFirstOrThrow();
      await db
        .insertInto('clan_members')
        .values({
          clan_id: row.id,
          game: row.game,
          user_id: ownerId,
          role: 'owner',
          joined_at: clan.created_at,
        })
        .execute();
      return row;
    },

    /**
     * Adds a member if the clan has room: the count goes up only while below `max_members`, in
     * the same statement that checks it. False when the clan is full.
     */
    async addMember(clan: ClanRow, userId: number, role: ClanRole, at: number): Promise<boolean> {
      const counted = await db
        .updateTable('clans')
        .set((eb) => ({ member_count: eb('member_count', '+', 1) }))
        .where('id', '=', clan.id)
        .whereRef('member_count', '<', 'max_members')
        .executeTakeFirst();
      if (counted.numUpdatedRows === 0n) return false;
      await db
        .insertInto('clan_members')
        .values({ clan_id: clan.id, game: clan.game, user_id: userId, role, joined_at: at })
        .execute();
      return true;
    },

    async removeMember(clanId: number, userId: number): Promise<boolean> {
      const removed = await db
        .deleteFrom('clan_members')
        .where('clan_id', '=', clanId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (removed.numDeletedRows === 0n) return false;
      await db
        .updateTable('clans')
        .set((eb) => ({ member_count: eb('member_count', '-', 1) }))
        .where('id', '=', clanId)
        .execute();
      return true;
    },

    async setRole(clanId: number, userId: number, role: ClanRole): Promise<void> {
      await db
        .updateTable('clan_members')
        .set({ role })
        .where('clan_id', '=', clanId)
        .where('user_id', '=', userId)
        .execute();
    },

    /** Applies the settings unless `max_members` would fall below the member count. */
    updateSettings(clanId: number, patch: SettingsPatch, at: number): Promise<ClanRow | undefined> {
      let query = db
        .updateTable('clans')
        .set({ ...patch, updated_at: at })
        .where('id', '=', clanId);
      if (patch.max_members !== undefined) query = query.where('member_count', '<=', patch.max_members);
      return query.returning(CLAN_COLUMNS).executeTakeFirst();
    },

    async deleteClan(clanId: number): Promise<void> {
      await db.deleteFrom('clans').where('id', '=', clanId).execute();
    },

    invite(clanId: number, userId: number): Promise<InviteRow | undefined> {
      return db
        .selectFrom('clan_invites')
        .select(['clan_id', 'user_id', 'invited_by', 'created_at'])
        .where('clan_id', '=', clanId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
    },

    /** A pending invite; inviting again keeps the first one. */
    async upsertInvite(invite: InviteRow): Promise<InviteRow> {
      await db
        .insertInto('clan_invites')
        .values(invite)
        .onConflict((oc) => oc.columns(['clan_id', 'user_id']).doNothing())
        .execute();
      return db
        .selectFrom('clan_invites')
        .select(['clan_id', 'user_id', 'invited_by', 'created_at'])
        .where('clan_id', '=', invite.clan_id)
        .where('user_id', '=', invite.user_id)
        .executeTakeFirstOrThrow();
    },

    async deleteInvite(clanId: number, userId: number): Promise<boolean> {
      const deleted = await db
        .deleteFrom('clan_invites')
        .where('clan_id', '=', clanId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return deleted.numDeletedRows > 0n;
    },

    /** A user's pending invites, newest first, with the clans they are for. */
    async invitesOf(
      userId: number,
      page: { limit: number; offset: number },
    ): Promise<{ rows: (InviteRow & { clan: ClanRow })[]; total: number }> {
      const base = db.selectFrom('clan_invites').where('user_id', '=', userId);
      const [invites, count] = await Promise.all([
        base
          .select(['clan_id', 'user_id', 'invited_by', 'created_at'])
          .orderBy('created_at', 'desc')
          .orderBy('clan_id', 'desc')
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      const clans =
        invites.length === 0
          ? []
          : await db
              .selectFrom('clans')
              .select(CLAN_COLUMNS)
              .where(
                'id',
                'in',
                invites.map((i) => i.clan_id),
              )
              .execute();
      const byId = new Map(clans.map((c) => [c.id, c]));
      const rows = invites.flatMap((invite) => {
        const clan = byId.get(invite.clan_id);
        return clan ? [{ ...invite, clan }] : [];
      });
      return { rows, total: count.n };
    },
  };
}

export type ClansRepo = ReturnType<typeof clansRepo>;

/** The repository, and write transactions (immediate on SQLite) with a repository bound to each. */
export interface ClansStore extends ClansRepo {
  transaction<T>(work: (tx: ClansTx) => Promise<T>): Promise<T>;
}

/** The repository bound to a write transaction, which also writes the change's events. */
export interface ClansTx extends ClansRepo {
  /** writes events in this transaction (last, after the change) */
  tell(events: readonly NewEvent[], at: number): Promise<void>;
}

export function clansStore(db: Kysely<Database>): ClansStore {
  return {
    ...clansRepo(db),
    transaction: (work) =>
      writeTransaction(db, (trx) =>
        work({
          ...clansRepo(trx),
          tell: async (events, at) => {
            await emit(trx, events, at);
          },
        }),
      ),
  };
}
