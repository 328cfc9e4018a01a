import { Type } from 'typebox';
import type { ClanRole } from '../../db/types.js';
import { defineEvent, eventOf, type EventDefinition, type EventTarget } from '../events/define.js';
import type { NewEvent } from '../events/outbox.js';
import { Count, Game, Id, Text, UserId } from '../events/fields.js';
import type { ClanRow } from './repo.js';

/**
 * Events of clans. Public clans' events are public (scope clans:read); a private clan's are told
 * only to the member they concern, as the clan itself is visible only to its members.
 */

const PRIVATE_NOTE = ' For a private clan the event is told only to apps acting for the user it concerns.';

const ClanRef = {
  clan_id: Id('Clan', 7),
  game: Game(),
};
const CLAN_REF = { clan_id: 7, game: 'cs2' as const };

const Role = () =>
  Type.Union([Type.Literal('owner'), Type.Literal('officer'), Type.Literal('member')], {
    description: 'Role in the clan',
    examples: ['member'],
  });

const ClanFields = {
  ...ClanRef,
  name: Text('Clan name', 'Night Owls'),
  tag: Text('Clan tag', 'OWL'),
  description: Text('Description', 'Late-night scrims'),
  join_policy: Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')], {
    description: 'How players join',
    examples: ['invite'],
  }),
  visibility: Type.Union([Type.Literal('public'), Type.Literal('private')], {
    description: 'Who sees the clan',
    examples: ['public'],
  }),
  max_members: Count('Member cap', 50),
  member_count: Count('Members now', 1),
};
const CLAN_EXAMPLE = {
  ...CLAN_REF,
  name: 'Night Owls',
  tag: 'OWL',
  description: 'Late-night scrims',
  join_policy: 'invite' as const,
  visibility: 'public' as const,
  max_members: 50,
  member_count: 1,
};

const clanDefinition = (type: string, description: string) =>
  defineEvent({
    type,
    description: description + PRIVATE_NOTE,
    properties: { ...ClanFields, by_user_id: UserId('Who made the change') },
    example: { ...CLAN_EXAMPLE, by_user_id: 42 },
    scope: 'clans:read',
    audience: 'public',
  });

export const CLAN_CREATED = clanDefinition('clan.created', 'A player created a clan (they are its owner).');
export const CLAN_UPDATED = clanDefinition(
  'clan.updated',
  'An owner or officer changed the clan’s settings.',
);
export const CLAN_DISBANDED = clanDefinition('clan.disbanded', 'The owner disbanded the clan; it is gone.');

/** A change to one member, made by `by_user_id` (the member themself for joins and leaves). */
const memberDefinition = (type: string, description: string) =>
  defineEvent({
    type,
    description: description + PRIVATE_NOTE,
    properties: {
      ...ClanRef,
      user_id: UserId('The member'),
      role: Role(),
      by_user_id: UserId('Who made the change'),
    },
    example: { ...CLAN_REF, user_id: 43, role: 'member', by_user_id: 42 },
    scope: 'clans:read',
    audience: 'public',
  });

export const CLAN_MEMBER_JOINED = memberDefinition(
  'clan.member_joined',
  'A player joined the clan (open clan, or with an invite).',
);
export const CLAN_MEMBER_LEFT = memberDefinition('clan.member_left', 'A member left the clan.');
export const CLAN_MEMBER_KICKED = memberDefinition(
  'clan.member_kicked',
  'An owner or officer removed a member; `role` is the role they had.',
);
export const CLAN_MEMBER_PROMOTED = memberDefinition(
  'clan.member_promoted',
  'A member was promoted to officer.',
);
export const CLAN_MEMBER_DEMOTED = memberDefinition(
  'clan.member_demoted',
  'An officer was demoted to member.',
);
export const CLAN_OWNERSHIP_TRANSFERRED = memberDefinition(
  'clan.ownership_transferred',
  'The owner handed the clan to `user_id` (now owner) and stayed on as an officer.',
);

/** Invites are the invitee's business: told only to apps acting for them. */
const inviteDefinition = (type: string, description: string) =>
  defineEvent({
    type,
    description,
    properties: {
      ...ClanRef,
      name: Text('Clan name', 'Night Owls'),
      user_id: UserId('The invitee'),
      by_user_id: UserId('Who acted'),
    },
    example: { ...CLAN_REF, name: 'Night Owls', user_id: 43, by_user_id: 42 },
    scope: 'clans:read',
    audience: 'user',
  });

export const CLAN_INVITE_CREATED = inviteDefinition(
  'clan.invite_created',
  'The user was invited to a clan (told to the invitee).',
);
export const CLAN_INVITE_ACCEPTED = inviteDefinition(
  'clan.invite_accepted',
  'The user accepted their invite and joined the clan.',
);
export const CLAN_INVITE_DECLINED = inviteDefinition(
  'clan.invite_declined',
  'The user declined their invite.',
);
export const CLAN_INVITE_REVOKED = inviteDefinition(
  'clan.invite_revoked',
  'An owner or officer withdrew the user’s invite.',
);

type Game = (typeof CLAN_REF)['game'];

/** A private clan's event reaches only apps acting for the user it concerns. */
const clanTarget = (clan: ClanRow, concerns: number): EventTarget =>
  clan.visibility === 'private' ? { userId: concerns } : {};

/** A change to the clan itself (created, updated, disbanded) made by `by`. */
export const clanEvent = (definition: typeof CLAN_CREATED, clan: ClanRow, by: number): NewEvent =>
  eventOf(
    definition,
    {
      clan_id: clan.id,
      game: clan.game as Game,
      name: clan.name,
      tag: clan.tag,
      description: clan.description,
      join_policy: clan.join_policy,
      visibility: clan.visibility,
      max_members: clan.max_members,
      member_count: clan.member_count,
      by_user_id: by,
    },
    clanTarget(clan, by),
  );

/** A change to one member (`userId`, now `role`) made by `by`. */
export const memberEvent = (
  definition: typeof CLAN_MEMBER_LEFT,
  clan: ClanRow,
  userId: number,
  role: ClanRole,
  by: number,
): NewEvent =>
  eventOf(
    definition,
    { clan_id: clan.id, game: clan.game as Game, user_id: userId, role, by_user_id: by },
    clanTarget(clan, userId),
  );

/** An invite's change, told to the invitee only. */
export const inviteEvent = (
  definition: typeof CLAN_INVITE_CREATED,
  clan: ClanRow,
  inviteeId: number,
  by: number,
): NewEvent =>
  eventOf(
    definition,
    { clan_id: clan.id, game: clan.game as Game, name: clan.name, user_id: inviteeId, by_user_id: by },
    { userId: inviteeId },
  );

export const CLAN_EVENTS: readonly EventDefinition[] = [
  CLAN_CREATED,
  CLAN_UPDATED,
  CLAN_DISBANDED,
  CLAN_MEMBER_JOINED,
  CLAN_MEMBER_LEFT,
  CLAN_MEMBER_KICKED,
  CLAN_MEMBER_PROMOTED,
  CLAN_MEMBER_DEMOTED,
  CLAN_OWNERSHIP_TRANSFERRED,
  CLAN_INVITE_CREATED,
  CLAN_INVITE_ACCEPTED,
  CLAN_INVITE_DECLINED,
  CLAN_INVITE_REVOKED,
];
