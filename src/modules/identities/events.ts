import { Type } from 'typebox';
import { StringEnum } from '../../http/schemas.js';
import { defineEvent } from '../events/define.js';
import { Text, UserId } from '../events/fields.js';
import { LINKED_PLATFORMS } from './player.js';

/** Events of identity links: private to the user who linked or unlinked (scope `identify`). */
export const PLAYER_IDENTITY_LINKED = defineEvent({
  type: 'player.identity_linked',
  description:
    'A Minecraft or Epic Online Services identity was linked to the user\u2019s hub account (a link code was entered): what a plugin reports of that player now lands on this profile. Private to the user.',
  properties: {
    user_id: UserId(),
    platform: StringEnum(LINKED_PLATFORMS, {
      description: 'the identity\u2019s platform',
      examples: ['minecraft'],
    }),
    player_id: Text(
      'The platform id: a Minecraft UUID (lowercase, dashed) or an EOS id (lowercase)',
      '069a79f4-44e9-4726-a5be-fca90e38aaf5',
    ),
    name: Text('The player\u2019s in-game name when the link was made', 'Steve'),
    server_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'The game server whose plugin took part (null: none known)',
      examples: [3],
    }),
  },
  example: {
    user_id: 42,
    platform: 'minecraft',
    player_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5',
    name: 'Steve',
    server_id: 3,
  },
  scope: 'identify',
  audience: 'user',
});

export const PLAYER_IDENTITY_UNLINKED = defineEvent({
  type: 'player.identity_unlinked',
  description:
    'The user removed a linked Minecraft or Epic Online Services identity (`DELETE /v1/me/links/{platform}/{id}` or the portal): from now on it credits nobody, and what it earned stays on the profile. Private to the user.',
  properties: {
    user_id: UserId(),
    platform: PLAYER_IDENTITY_LINKED.schema.properties.platform,
    player_id: PLAYER_IDENTITY_LINKED.schema.properties.player_id,
    name: Text('The player\u2019s in-game name as the link kept it', 'Steve'),
  },
  example: {
    user_id: 42,
    platform: 'minecraft',
    player_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5',
    name: 'Steve',
  },
  scope: 'identify',
  audience: 'user',
});

export const IDENTITY_EVENTS = [PLAYER_IDENTITY_LINKED, PLAYER_IDENTITY_UNLINKED];
