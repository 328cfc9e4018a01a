import { createHash, randomInt } from 'node:crypto';
import type { Db } from '../../db/connect.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { ProblemError } from '../../http/problem.js';
import { toIso } from '../../http/schemas.js';
import { eventOf } from '../events/define.js';
import { emitEvents } from '../events/outbox.js';
import { PLAYER_IDENTITY_LINKED, PLAYER_IDENTITY_UNLINKED } from './events.js';
import { identitiesRepo, type CodeRow, type LinkRow } from './repo.js';
import type { Identity, LinkedPlatform } from './player.js';

/**
 * Link codes and identity links (docs/game-servers.md, "Identity links"). A code is 6 characters
 * from an alphabet without look-alikes (no 0/O, 1/I/L, no U/V pair), shown as `7KQ-M3X`, valid
 * 10 minutes, used once. It is stored as its SHA-256 only; taking it deletes it, inside the same
 * transaction as the link it makes, so a refused link (409) leaves the code usable.
 */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTWXYZ';
export const CODE_LENGTH = 6;
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_PATTERN = `^[${CODE_ALPHABET}${CODE_ALPHABET.toLowerCase()}]{3}-?[${CODE_ALPHABET}${CODE_ALPHABET.toLowerCase()}]{3}$`;

export interface IssuedCode {
  code: string;
  expires_at: string;
}

export interface LinkView {
  platform: LinkedPlatform;
  player_id: string;
  name: string;
  linked_at: string;
}

const hashCode = (code: string): string => createHash('sha256').update(code).digest('hex');
/** `7kq-m3x`, `7KQM3X` -> `7KQM3X`, or null when it cannot be a code (one answer for all of them). */
const normalise = (input: string): string | null => {
  const code = input.replace(/-/g, '').toUpperCase();
  return new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`).test(code) ? code : null;
};
const invalidCode = () => new ProblemError('link_code_invalid', 'The link code is unknown, used or expired.');

export const linkView = (row: LinkRow): LinkView => ({
  platform: row.platform,
  player_id: row.player_id,
  name: row.name,
  linked_at: toIso(row.linked_at),
});

/** A Steam id has its own hub profile: linking one is refused before anything is looked up. */
export function linkable(identity: Identity): { platform: LinkedPlatform; id: string } {
  if (identity.platform === 'steam')
    throw new ProblemError(
      'invalid_body',
      'A Steam id needs no link: it has a hub profile of its own. Links are for minecraft_uuid and eos_id.',
    );
  return { platform: identity.platform, id: identity.id };
}

export function identityService(db: Db, now: () => number = Date.now) {
  const repo = identitiesRepo(db.kysely);

  async function issue(row: Omit<CodeRow, 'expires_at'>): Promise<IssuedCode> {
    const at = now();
    await repo.sweepCodes(at);
    for (;;) {
      const code = Array.from(
        { length: CODE_LENGTH },
        () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)],
      ).join('');
      const expires = at + CODE_TTL_MS;
      try {
        await repo.insertCode({ ...row, code_hash: hashCode(code), created_at: at, expires_at: expires });
      } catch (err) {
        // a live code with the same six characters (1 in 594 million per live code): draw again
        if (await repo.codeExists(hashCode(code))) continue;
        throw err;
      }
      return { code: `${code.slice(0, 3)}-${code.slice(3)}`, expires_at: toIso(expires) };
    }
  }

  /**
   * Takes the code and links `identity` to `userId` in one transaction, telling
   * `player.identity_linked`. An identity already linked to this user stays as it is (and the code
   * is spent); linked to another user: 409, and nothing changes.
   */
  async function link(
    code: string,
    pick: (row: CodeRow) => {
      userId: number;
      identity: { platform: LinkedPlatform; id: string };
      name: string;
      serverId: number | null;
    } | null,
  ): Promise<LinkRow> {
    const normal = normalise(code);
    if (normal === null) throw invalidCode();
    const at = now();
    return writeTransaction(db.kysely, async (trx) => {
      const tx = identitiesRepo(trx);
      const row = await tx.takeCode(hashCode(normal), at);
      const chosen = row ? pick(row) : null;
      if (!chosen) throw invalidCode();
      const { userId, identity, name, serverId } = chosen;
      const existing = await tx.findLink(identity.platform, identity.id);
      if (existing) {
        if (existing.user_id === userId) return existing;
        throw new ProblemError(
          'identity_linked',
          `This ${identity.platform} identity is already linked to another hub account.`,
        );
      }
      const made: LinkRow = {
        platform: identity.platform,
        player_id: identity.id,
        user_id: userId,
        name: name.slice(0, 64),
        server_id: serverId,
        linked_at: at,
      };
      if (!(await tx.insertLink(made)))
        throw new ProblemError(
          'identity_linked',
          `This ${identity.platform} identity is already linked to another hub account.`,
        );
      await emitEvents(
        trx,
        db.dialect,
        [
          eventOf(
            PLAYER_IDENTITY_LINKED,
            {
              user_id: userId,
              platform: made.platform,
              player_id: made.player_id,
              name: made.name,
              server_id: serverId,
            },
            { userId },
          ),
        ],
        at,
      );
      return made;
    });
  }

  return {
    /** A code a signed-in user types in game. */
    codeForUser: (userId: number): Promise<IssuedCode> =>
      issue({ user_id: userId, platform: null, player_id: null, name: null, server_id: null }),

    /** A code a plugin shows a player, typed by the user in the portal; 409 when already linked. */
    async codeForPlayer(serverId: number, identity: Identity, name: string): Promise<IssuedCode> {
      const { platform, id } = linkable(identity);
      if (await repo.findLink(platform, id))
        throw new ProblemError(
          'identity_linked',
          `This ${platform} identity is already linked to a hub account.`,
        );
      return issue({ user_id: null, platform, player_id: id, name: name.slice(0, 64), server_id: serverId });
    },

    /** A player typed a user's code in game (`POST /api-platform/ingest/links`). */
    linkFromGame(serverId: number, identity: Identity, name: string, code: string): Promise<LinkRow> {
      const target = linkable(identity);
      return link(code, (row) =>
        row.user_id === null ? null : { userId: row.user_id, identity: target, name, serverId },
      );
    },

    /** A user typed a player's code in the portal or through `/v1/me/links`. */
    linkFromAccount(userId: number, code: string): Promise<LinkRow> {
      return link(code, (row) =>
        row.platform === null || row.player_id === null
          ? null
          : {
              userId,
              identity: { platform: row.platform, id: row.player_id },
              name: row.name ?? '',
              serverId: row.server_id,
            },
      );
    },

    links: (userId: number): Promise<LinkRow[]> => repo.linksOf(userId),

    /** Removes the user's link and tells `player.identity_unlinked`, in one transaction; 404 when there is none. */
    unlink(userId: number, platform: LinkedPlatform, playerId: string): Promise<void> {
      const at = now();
      return writeTransaction(db.kysely, async (trx) => {
        const removed = await identitiesRepo(trx).removeLink(userId, platform, playerId.toLowerCase());
        if (!removed)
          throw new ProblemError('identity_link_not_found', `You have no ${platform} link for ${playerId}.`);
        await emitEvents(
          trx,
          db.dialect,
          [
            eventOf(
              PLAYER_IDENTITY_UNLINKED,
              {
                user_id: userId,
                platform: removed.platform,
                player_id: removed.player_id,
                name: removed.name,
              },
              { userId },
            ),
          ],
          at,
        );
      });
    },
  };
}

export type IdentityService = ReturnType<typeof identityService>;
