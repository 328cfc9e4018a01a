import type { ClanRole } from '../../db/types.js';

/** A caller's role in a clan; `null` for someone outside it. */
export type Role = ClanRole | null;

/** What members do to a clan or to each other (joining and leaving are open to anyone eligible). */
export type ClanAction = 'settings' | 'invite' | 'kick' | 'promote' | 'demote' | 'transfer' | 'disband';

const RANK: Record<ClanRole, number> = { owner: 3, officer: 2, member: 1 };

/** The least role each action needs. */
const NEEDS: Record<ClanAction, ClanRole> = {
  settings: 'officer',
  invite: 'officer',
  kick: 'officer',
  promote: 'owner',
  demote: 'owner',
  transfer: 'owner',
  disband: 'owner',
};

/**
 * The role rules: settings and invites by an officer or the owner; promoting, demoting,
 * transferring and disbanding by the owner; kicking someone of a lower role only (an officer
 * kicks members, the owner kicks officers and members). Without `target`, whether the actor may
 * take the action at all.
 */
export function mayAct(actor: Role, action: ClanAction, target?: ClanRole): boolean {
  if (actor === null || RANK[actor] < RANK[NEEDS[action]]) return false;
  return action !== 'kick' || target === undefined || RANK[actor] > RANK[target];
}

/** Who may take an action, in words for a problem's detail. */
export function whoMay(action: ClanAction): string {
  return NEEDS[action] === 'owner' ? 'the owner' : 'the owner or an officer';
}

/** A private clan is seen only by its members and by users it invited; a public one by anyone. */
export function maySee(visibility: 'public' | 'private', role: Role, invited: boolean): boolean {
  return visibility === 'public' || role !== null || invited;
}
