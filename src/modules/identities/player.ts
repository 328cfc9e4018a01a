import { Type, type Static } from 'typebox';
import { accountOf } from '../../engines/counting.js';

/**
 * A player as a game server names them (docs/game-servers.md, "Players"): a name and exactly one
 * platform id. A Steam id has a hub profile of its own (created the first time it is seen); a
 * Minecraft UUID or an Epic Online Services id reaches a hub user only through an identity link
 * (links.ts), and credits nobody without one.
 */
export const PLATFORMS = ['steam', 'minecraft', 'eos'] as const;
export type Platform = (typeof PLATFORMS)[number];
/** the platforms a hub user links (a Steam id needs no link) */
export const LINKED_PLATFORMS = ['minecraft', 'eos'] as const;
export type LinkedPlatform = (typeof LINKED_PLATFORMS)[number];

export const SteamIdField = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'SteamID64 (17 digits), STEAM_X:Y:Z or [U:1:N]; stored as SteamID64',
  examples: ['76561198000000001'],
});
export const MinecraftUuidField = Type.String({
  pattern: '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$',
  description: 'Minecraft (Java) player UUID, dashes optional; stored lowercase with dashes',
  examples: ['069a79f4-44e9-4726-a5be-fca90e38aaf5'],
});
export const EosIdField = Type.String({
  pattern: '^[0-9a-fA-F]{32}$',
  description: 'Epic Online Services product user id (32 hex digits); stored lowercase',
  examples: ['0002a1b2c3d4e5f60718293a4b5c6d7e'],
});
export const PlayerName = Type.String({ minLength: 1, maxLength: 64, examples: ['Notch'] });

const ID_FIELDS = { steam_id: 'steam', minecraft_uuid: 'minecraft', eos_id: 'eos' } as const;
export const ID_FIELD_NAMES = Object.keys(ID_FIELDS) as (keyof typeof ID_FIELDS)[];

/** `name` and exactly one id: with no other field allowed, two properties say "exactly one id". */
export const PlayerSchema = Type.Object(
  {
    name: PlayerName,
    steam_id: Type.Optional(SteamIdField),
    minecraft_uuid: Type.Optional(MinecraftUuidField),
    eos_id: Type.Optional(EosIdField),
  },
  {
    $id: 'IngestPlayer',
    title: 'IngestPlayer',
    additionalProperties: false,
    minProperties: 2,
    maxProperties: 2,
    description: 'A player: `name` and exactly one of `steam_id`, `minecraft_uuid`, `eos_id`.',
  },
);
export type PlayerBody = Static<typeof PlayerSchema>;

/** A player of the link routes: a Steam id needs no link, so only the two linkable ids are taken. */
export const LinkPlayerSchema = Type.Object(
  {
    name: PlayerName,
    minecraft_uuid: Type.Optional(MinecraftUuidField),
    eos_id: Type.Optional(EosIdField),
  },
  {
    additionalProperties: false,
    minProperties: 2,
    maxProperties: 2,
    description:
      'The player to link: `name` and exactly one of `minecraft_uuid`, `eos_id` (a Steam id needs no link: it has a hub profile of its own).',
  },
);

export interface Identity {
  platform: Platform;
  /** normalised: SteamID64, lowercase dashed UUID, lowercase EOS id */
  id: string;
}

/** `069a79f444e94726a5befca90e38aaf5` -> `069a79f4-44e9-4726-a5be-fca90e38aaf5` */
function dashedUuid(raw: string): string {
  const hex = raw.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The identity a player object names, normalised, or the reason it names none (`where`: the
 * field's path for the message). The schema checked each id's shape; this checks "exactly one" for
 * objects whose other fields make the property count unable to, and the Steam id's ranges.
 */
export function identityOf(player: Partial<Record<string, unknown>>, where: string): Identity {
  const present = ID_FIELD_NAMES.filter((f) => player[f] !== undefined);
  if (present.length !== 1)
    throw new Error(`${where} must have exactly one of steam_id, minecraft_uuid, eos_id`);
  const field = present[0] as keyof typeof ID_FIELDS;
  const raw = String(player[field]);
  const platform = ID_FIELDS[field];
  if (platform === 'steam') {
    const id = accountOf(raw);
    if (!id) throw new Error(`${where}.steam_id is not a Steam account (${JSON.stringify(raw)})`);
    return { platform, id };
  }
  return { platform, id: platform === 'minecraft' ? dashedUuid(raw) : raw.toLowerCase() };
}

/**
 * The key the ingest pipeline files a player under: the SteamID64 itself for Steam (as the log
 * path always has), `minecraft:<uuid>` / `eos:<id>` otherwise, so a non-Steam id never passes for
 * a Steam one (a SteamID64 has no colon).
 */
export const playerKey = (identity: Identity): string =>
  identity.platform === 'steam' ? identity.id : `${identity.platform}:${identity.id}`;

/** The identity behind a key made by `playerKey`. */
export function identityOfKey(key: string): Identity {
  const colon = key.indexOf(':');
  if (colon < 0) return { platform: 'steam', id: key };
  return { platform: key.slice(0, colon) as Platform, id: key.slice(colon + 1) };
}

export const isSteamKey = (key: string): boolean => !key.includes(':');
