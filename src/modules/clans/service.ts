import type { ClanRole } from '../../db/types.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { ProblemError } from '../../http/problem.js';
import type {
  ClanListFilter,
  ClanRow,
  ClansRepo,
  ClansStore,
  InviteRow,
  MemberRow,
  SettingsPatch,
} from './repo.js';
import { mayAct, maySee, whoMay, type ClanAction, type Role } from './rules.js';
import {
  CLAN_CREATED,
  CLAN_DISBANDED,
  CLAN_INVITE_ACCEPTED,
  CLAN_INVITE_CREATED,
  CLAN_INVITE_DECLINED,
  CLAN_INVITE_REVOKED,
  CLAN_MEMBER_DEMOTED,
  CLAN_MEMBER_JOINED,
  CLAN_MEMBER_KICKED,
  CLAN_MEMBER_LEFT,
  CLAN_MEMBER_PROMOTED,
  CLAN_OWNERSHIP_TRANSFERRED,
  CLAN_UPDATED,
  clanEvent,
  inviteEvent,
  memberEvent,
} from './events.js';

export interface NewClanInput {
  name: string;
  tag: string;
  game: string;
  description?: string;
}

export interface ClanDetail {
  clan: ClanRow;
  members: MemberRow[];
}

/** Defaults of a new clan, documented on `POST /v1/clans`. */
export const NEW_CLAN_DEFAULTS = { join_policy: 'invite', visibility: 'public', max_members: 50 } as const;

const ACTION_WORDS: Record<ClanAction, string> = {
  settings: 'Changing the settings of',
  invite: 'Inviting players to',
  kick: 'Removing members from',
  promote: 'Promoting members of',
  demote: 'Demoting officers of',
  transfer: 'Transferring the ownership of',
  disband: 'Disbanding',
};

const clanNotFound = (id: number) => new ProblemError('clan_not_found', `There is no clan with id ${id}.`);
const notMember = (clanId: number, userId: number) =>
  new ProblemError('clan_member_not_found', `User ${userId} is not a member of clan ${clanId}.`);
const roleConflict = (detail: string) => new ProblemError('clan_role_conflict', detail);

/** A clan locked for this transaction, as the caller sees it. */
interface Locked {
  clan: ClanRow;
  role: Role;
  invite: InviteRow | undefined;
}

/**
 * The clan rules over the repository. Every change runs in one transaction that starts by
 * locking the clan's row, so concurrent changes to one clan take turns; what spans clans (one
 * clan per game per user, unique names and tags) the database's unique indexes decide, and a
 * request that loses such a race is told which rule it broke.
 */
export function clansService(store: ClansStore, now: () => number) {
  /** Locks the clan, or 404 when it does not exist or is private to the caller. */
  async function lockVisible(tx: ClansRepo, clanId: number, userId: number): Promise<Locked> {
    const clan = await tx.lockClan(clanId);
    if (!clan) throw clanNotFound(clanId);
    const [member, invite] = await Promise.all([tx.member(clanId, userId), tx.invite(clanId, userId)]);
    const role = member?.role ?? null;
    if (!maySee(clan.visibility, role, invite !== undefined)) throw clanNotFound(clanId);
    return { clan, role, invite };
  }

  function requireRole(locked: Locked, action: ClanAction, target?: ClanRole): void {
    if (mayAct(locked.role, action, target)) return;
    const you = locked.role === null ? 'you are not in this clan' : `you are ${article(locked.role)}`;
    const whom = target ? ` (user is ${article(target)})` : '';
    throw new ProblemError(
      'clan_role_required',
      `${ACTION_WORDS[action]} clan ${locked.clan.id} needs ${whoMay(action)}${whom}; ${you}.`,
    );
  }

  async function requireMember(tx: ClansRepo, clanId: number, userId: number): Promise<MemberRow> {
    const member = await tx.member(clanId, userId);
    if (!member) throw notMember(clanId, userId);
    return member;
  }

  /** Says which rule a request broke when a concurrent writer won a unique index. */
  async function explainRace(userId: number, game: string, named?: NewClanInput): Promise<ProblemError> {
    if (named) {
      const taken = await store.taken(game, named.name, named.tag);
      if (taken.name) return nameTaken(named);
      if (taken.tag) return tagTaken(named);
    }
    return alreadyInClan(userId, game, await store.clanOfUserInGame(userId, game));
  }

  async function join(userId: number, clanId: number, viaInvite: boolean): Promise<MemberRow> {
    let game: string | undefined;
    try {
      return await store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        const { clan, invite } = locked;
        game = clan.game;
        if (locked.role !== null)
          throw new ProblemError('already_in_clan', `You are already a member of clan ${clanId}.`);
        if (clan.join_policy === 'closed')
          throw new ProblemError('clan_closed', `Clan ${clanId} is closed to new members.`);
        if (viaInvite && !invite)
          throw new ProblemError('clan_invite_not_found', `You have no pending invite to clan ${clanId}.`);
        if (clan.join_policy === 'invite' && !invite) {
          throw new ProblemError(
            'clan_invite_required',
            `Clan ${clanId} takes members by invite only, and you have no pending invite.`,
          );
        }
        const current = await tx.clanOfUserInGame(userId, clan.game);
        if (current !== undefined) throw alreadyInClan(userId, clan.game, current);
        if (!(await tx.addMember(clan, userId, 'member', now()))) {
          throw new ProblemError(
            'clan_full',
            `Clan ${clanId} is full (${clan.member_count} of ${clan.max_members} members).`,
          );
        }
        if (invite) await tx.deleteInvite(clanId, userId);
        const member = await requireMember(tx, clanId, userId);
        await tx.tell(
          [
            memberEvent(CLAN_MEMBER_JOINED, clan, userId, 'member', userId),
            ...(invite ? [inviteEvent(CLAN_INVITE_ACCEPTED, clan, userId, userId)] : []),
          ],
          now(),
        );
        return member;
      });
    } catch (error) {
      if (game !== undefined && isUniqueViolation(error)) throw await explainRace(userId, game);
      throw error;
    }
  }

  return {
    list: (filter: ClanListFilter) => store.list(filter),
    invitesOf: (userId: number, page: { limit: number; offset: number }) => store.invitesOf(userId, page),

    /** The clan and its members, or 404 when it does not exist or is private to the viewer. */
    async get(clanId: number, viewerId: number | null): Promise<ClanDetail> {
      const clan = await store.findClan(clanId);
      if (!clan) throw clanNotFound(clanId);
      if (clan.visibility === 'private') {
        const [member, invite] =
          viewerId === null
            ? [undefined, undefined]
            : await Promise.all([store.member(clanId, viewerId), store.invite(clanId, viewerId)]);
        if (!maySee(clan.visibility, member?.role ?? null, invite !== undefined)) throw clanNotFound(clanId);
      }
      return { clan, members: await store.members(clanId) };
    },

    /**
     * A new clan with its creator as owner. Writes come first (no read before them), so the
     * unique indexes decide a race and the request is told which rule it broke.
     */
    async create(userId: number, input: NewClanInput): Promise<ClanDetail> {
      try {
        return await store.transaction(async (tx) => {
          const created_at = now();
          const clan = await tx.insertClan(
            { ...NEW_CLAN_DEFAULTS, ...input, description: input.description ?? '', created_at },
            userId,
          );
          const members = await tx.members(clan.id);
          await tx.tell([clanEvent(CLAN_CREATED, clan, userId)], created_at);
          return { clan, members };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw await explainRace(userId, input.game, input);
        throw error;
      }
    },

    async updateSettings(userId: number, clanId: number, patch: SettingsPatch): Promise<ClanRow> {
      return store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        requireRole(locked, 'settings');
        const updated = await tx.updateSettings(clanId, patch, now());
        if (!updated) {
          throw new ProblemError(
            'clan_max_members_too_low',
            `Clan ${clanId} has ${locked.clan.member_count} members; max_members cannot be lower than that.`,
          );
        }
        await tx.tell([clanEvent(CLAN_UPDATED, updated, userId)], now());
        return updated;
      });
    },

    async disband(userId: number, clanId: number): Promise<void> {
      await store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        requireRole(locked, 'disband');
        await tx.deleteClan(clanId);
        await tx.tell([clanEvent(CLAN_DISBANDED, locked.clan, userId)], now());
      });
    },

    /** Joins an open clan, or an invite-only one with a pending invite (which it uses up). */
    join: (userId: number, clanId: number) => join(userId, clanId, false),
    /** Joins with the caller's pending invite, whatever the join policy short of closed. */
    acceptInvite: (userId: number, clanId: number) => join(userId, clanId, true),

    async leave(userId: number, clanId: number): Promise<void> {
      await store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        if (locked.role === null) throw notMember(clanId, userId);
        if (locked.role === 'owner') {
          throw new ProblemError(
            'clan_owner_must_transfer',
            `The owner cannot leave clan ${clanId}; transfer ownership to another member or disband the clan.`,
          );
        }
        await tx.removeMember(clanId, userId);
        await tx.tell([memberEvent(CLAN_MEMBER_LEFT, locked.clan, userId, locked.role, userId)], now());
      });
    },

    async invite(userId: number, clanId: number, inviteeId: number): Promise<InviteRow & { clan: ClanRow }> {
      return store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        requireRole(locked, 'invite');
        if (locked.clan.join_policy === 'closed')
          throw new ProblemError('clan_closed', `Clan ${clanId} is closed to new members.`);
        if (!(await tx.userExists(inviteeId)))
          throw new ProblemError('user_not_found', `There is no user with id ${inviteeId}.`);
        if (await tx.member(clanId, inviteeId))
          throw new ProblemError(
            'already_in_clan',
            `User ${inviteeId} is already a member of clan ${clanId}.`,
          );
        const invite = await tx.upsertInvite({
          clan_id: clanId,
          user_id: inviteeId,
          invited_by: userId,
          created_at: now(),
        });
        await tx.tell([inviteEvent(CLAN_INVITE_CREATED, locked.clan, inviteeId, userId)], now());
        return { ...invite, clan: locked.clan };
      });
    },

    /** The invitee declines, or an officer or the owner revokes. */
    async removeInvite(userId: number, clanId: number, inviteeId: number): Promise<void> {
      await store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        if (inviteeId !== userId) requireRole(locked, 'invite');
        if (!(await tx.deleteInvite(clanId, inviteeId))) {
          throw new ProblemError(
            'clan_invite_not_found',
            `There is no pending invite of user ${inviteeId} to clan ${clanId}.`,
          );
        }
        const told = inviteeId === userId ? CLAN_INVITE_DECLINED : CLAN_INVITE_REVOKED;
        await tx.tell([inviteEvent(told, locked.clan, inviteeId, userId)], now());
      });
    },

    async kick(userId: number, clanId: number, memberId: number): Promise<void> {
      await store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        requireRole(locked, 'kick');
        if (memberId === userId)
          throw roleConflict(`You cannot remove yourself from clan ${clanId}; leave it instead.`);
        const target = await requireMember(tx, clanId, memberId);
        requireRole(locked, 'kick', target.role);
        await tx.removeMember(clanId, memberId);
        await tx.tell([memberEvent(CLAN_MEMBER_KICKED, locked.clan, memberId, target.role, userId)], now());
      });
    },

    async promote(userId: number, clanId: number, memberId: number): Promise<MemberRow> {
      return store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        requireRole(locked, 'promote');
        const target = await requireMember(tx, clanId, memberId);
        if (target.role !== 'member')
          throw roleConflict(`User ${memberId} is already ${article(target.role)} of clan ${clanId}.`);
        await tx.setRole(clanId, memberId, 'officer');
        await tx.tell([memberEvent(CLAN_MEMBER_PROMOTED, locked.clan, memberId, 'officer', userId)], now());
        return { ...target, role: 'officer' };
      });
    },

    async demote(userId: number, clanId: number, memberId: number): Promise<MemberRow> {
      return store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        requireRole(locked, 'demote');
        const target = await requireMember(tx, clanId, memberId);
        if (target.role !== 'officer')
          throw roleConflict(
            `User ${memberId} is ${article(target.role)} of clan ${clanId}, not an officer.`,
          );
        await tx.setRole(clanId, memberId, 'member');
        await tx.tell([memberEvent(CLAN_MEMBER_DEMOTED, locked.clan, memberId, 'member', userId)], now());
        return { ...target, role: 'member' };
      });
    },

    /** The owner hands the clan to another member and stays on as an officer. */
    async transfer(userId: number, clanId: number, memberId: number): Promise<ClanDetail> {
      return store.transaction(async (tx) => {
        const locked = await lockVisible(tx, clanId, userId);
        requireRole(locked, 'transfer');
        if (memberId === userId) throw roleConflict(`You already own clan ${clanId}.`);
        await requireMember(tx, clanId, memberId);
        // the old owner steps down first: the database allows one owner per clan
        await tx.setRole(clanId, userId, 'officer');
        await tx.setRole(clanId, memberId, 'owner');
        await tx.tell(
          [memberEvent(CLAN_OWNERSHIP_TRANSFERRED, locked.clan, memberId, 'owner', userId)],
          now(),
        );
        return { clan: locked.clan, members: await tx.members(clanId) };
      });
    },
  };

  function nameTaken(input: NewClanInput): ProblemError {
    return new ProblemError('clan_name_taken', `A ${input.game} clan named '${input.name}' already exists.`);
  }

  function tagTaken(input: NewClanInput): ProblemError {
    return new ProblemError(
      'clan_tag_taken',
      `A ${input.game} clan with the tag '${input.tag}' already exists.`,
    );
  }
}

function alreadyInClan(userId: number, game: string, clanId: number | undefined): ProblemError {
  const which = clanId === undefined ? 'a clan' : `clan ${clanId}`;
  return new ProblemError(
    'already_in_clan',
    `User ${userId} is already in ${which} for ${game}; a player belongs to one clan per game.`,
  );
}

const ROLE_WORDS: Record<ClanRole, string> = {
  owner: 'the owner',
  officer: 'an officer',
  member: 'a member',
};
const article = (role: ClanRole) => ROLE_WORDS[role];

export type ClansService = ReturnType<typeof clansService>;
