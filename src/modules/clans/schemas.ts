import { Type, type Static } from 'typebox';
import { GAMES, StringEnum, Timestamp, toIso } from '../../http/schemas.js';
import { ListOf, One, PageQuery } from '../../http/v1-route.js';
import { avatarPath } from '../avatars/routes.js';
import type { ClanRow, InviteRow, MemberRow } from './repo.js';
import type { ClanDetail } from './service.js';

/** Bounds of the clan fields, shared by the schemas and the docs. */
export const CLAN_LIMITS = { minMembers: 2, maxMembers: 100, description: 500 } as const;

const JOIN_POLICIES = ['open', 'invite', 'closed'] as const;
const VISIBILITIES = ['public', 'private'] as const;
const ROLES = ['owner', 'officer', 'member'] as const;

// ASCII only, so that "unique without regard to case" means the same on SQLite and PostgreSQL.
const ClanName = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: "^[A-Za-z0-9](?:[A-Za-z0-9 ._'-]*[A-Za-z0-9])?$",
  description:
    "3-32 characters: ASCII letters, digits, spaces and . _ ' -, starting and ending with a letter or digit. Unique per game without regard to case.",
  examples: ['Night Owls'],
});
const ClanTag = Type.String({
  pattern: '^[A-Za-z0-9]{2,6}$',
  description: '2-6 ASCII letters or digits. Unique per game without regard to case.',
  examples: ['OWL'],
});
const Description = Type.String({
  maxLength: CLAN_LIMITS.description,
  description: `What the clan is about, up to ${CLAN_LIMITS.description} characters.`,
  examples: ['EU evening squad, scrims on Thursdays.'],
});
const JoinPolicy = StringEnum(JOIN_POLICIES, {
  description:
    '`open`: anyone may join; `invite`: only players with a pending invite; `closed`: no new members (pending invites cannot be accepted).',
  examples: ['invite'],
});
const Visibility = StringEnum(VISIBILITIES, {
  description:
    '`public`: listed and readable by anyone; `private`: seen only by its members and the players it invited (to anyone else it does not exist: 404).',
  examples: ['public'],
});
const MaxMembers = Type.Integer({
  minimum: CLAN_LIMITS.minMembers,
  maximum: CLAN_LIMITS.maxMembers,
  description: `Most members the clan takes, ${CLAN_LIMITS.minMembers}-${CLAN_LIMITS.maxMembers}; never below the current member count.`,
  examples: [50],
});
const Game = StringEnum(GAMES, { description: 'The game the clan plays', examples: ['cs2'] });
const UserId = (description: string) =>
  Type.Integer({ minimum: 1, maximum: 2147483647, description, examples: [42] });

const clanProperties = {
  id: Type.Integer({ description: 'clan ID', examples: [12] }),
  name: ClanName,
  tag: ClanTag,
  game: Game,
  description: Description,
  join_policy: JoinPolicy,
  visibility: Visibility,
  max_members: MaxMembers,
  member_count: Type.Integer({ minimum: 1, description: 'members now, the owner included', examples: [8] }),
  created_at: Timestamp('when the clan was created'),
  updated_at: Timestamp('when its settings last changed'),
};

export const ClanSchema = Type.Object(clanProperties, { description: 'A clan of one game' });

const memberProperties = {
  user_id: Type.Integer({ examples: [42] }),
  username: Type.String({ examples: ['night_owl'] }),
  avatar: Type.String({ description: 'path of the user\u2019s avatar', examples: ['/avatars/42.png'] }),
  role: StringEnum(ROLES, {
    description:
      '`owner` (exactly one; everything), `officer` (settings, invites, removes members), `member`',
    examples: ['member'],
  }),
  joined_at: Timestamp('when the user joined'),
};

export const MemberSchema = Type.Object(
  { clan_id: Type.Integer({ examples: [12] }), ...memberProperties },
  { description: 'A member of a clan and their role' },
);

export const ClanDetailSchema = Type.Object(
  {
    ...clanProperties,
    members: Type.Array(Type.Object(memberProperties), {
      description: 'every member: the owner, then officers, then members, longest-standing first',
    }),
  },
  { description: 'A clan with its members and their roles' },
);

export const InviteSchema = Type.Object(
  {
    clan: ClanSchema,
    user_id: Type.Integer({ description: 'the invited player', examples: [42] }),
    invited_by: Type.Union([Type.Integer(), Type.Null()], {
      description: 'who sent the invite (null if that account is gone)',
      examples: [7],
    }),
    created_at: Timestamp('when the invite was sent'),
  },
  { description: 'A pending invite to a clan' },
);

export const ClanParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'clan ID', examples: [12] }),
});
export const ClanUserParams = Type.Object({
  id: ClanParams.properties.id,
  user_id: UserId('the member or invited player'),
});

export const ClansQuery = Type.Object({
  game: Type.Optional(StringEnum(GAMES, { description: 'Only clans of this game.', examples: ['cs2'] })),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: "^[A-Za-z0-9 ._'-]+$",
      description: 'Only clans whose name or tag contains this text, without regard to case.',
      examples: ['owl'],
    }),
  ),
  ...PageQuery,
});
export const InvitesQuery = Type.Object(PageQuery);

export const CreateClanBody = Type.Object(
  { name: ClanName, tag: ClanTag, game: Game, description: Type.Optional(Description) },
  { additionalProperties: false, examples: [{ name: 'Night Owls', tag: 'OWL', game: 'cs2' }] },
);
export const SettingsBody = Type.Object(
  {
    description: Type.Optional(Description),
    join_policy: Type.Optional(JoinPolicy),
    visibility: Type.Optional(Visibility),
    max_members: Type.Optional(MaxMembers),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'The settings to change; those left out keep their value.',
    examples: [{ join_policy: 'open', max_members: 30 }],
  },
);
export const UserBody = (description: string) =>
  Type.Object({ user_id: UserId(description) }, { additionalProperties: false, examples: [{ user_id: 42 }] });

export const ClanResponse = One(ClanSchema, 'The clan');
export const ClanDetailResponse = One(ClanDetailSchema, 'The clan with its members');
export const MemberResponse = One(MemberSchema, 'The membership');
export const InviteResponse = One(InviteSchema, 'The pending invite');
export const ClansResponse = ListOf(ClanSchema, 'One page of clans');
export const InvitesResponse = ListOf(InviteSchema, 'One page of your pending invites, newest first');
export const NoContent = Type.Null({ description: 'Done; no body.' });

export type ClanBody = Static<typeof ClanSchema>;
export type ClanDetailBody = Static<typeof ClanDetailSchema>;
export type MemberBody = Static<typeof MemberSchema>;
export type InviteBody = Static<typeof InviteSchema>;

export const clanBody = (row: ClanRow): ClanBody => ({
  id: row.id,
  name: row.name,
  tag: row.tag,
  game: row.game as ClanBody['game'],
  description: row.description,
  join_policy: row.join_policy,
  visibility: row.visibility,
  max_members: row.max_members,
  member_count: row.member_count,
  created_at: toIso(row.created_at),
  updated_at: toIso(row.updated_at),
});

export const memberBody = (row: MemberRow): MemberBody => ({
  clan_id: row.clan_id,
  user_id: row.user_id,
  username: row.username,
  avatar: avatarPath(row.user_id),
  role: row.role,
  joined_at: toIso(row.joined_at),
});

export const clanDetailBody = ({ clan, members }: ClanDetail): ClanDetailBody => ({
  ...clanBody(clan),
  members: members.map((member) => {
    const { clan_id: _, ...rest } = memberBody(member);
    return rest;
  }),
});

export const inviteBody = (row: InviteRow & { clan: ClanRow }): InviteBody => ({
  clan: clanBody(row.clan),
  user_id: row.user_id,
  invited_by: row.invited_by,
  created_at: toIso(row.created_at),
});
