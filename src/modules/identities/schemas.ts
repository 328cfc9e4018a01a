import { Type } from 'typebox';
import { StringEnum, Timestamp } from '../../http/schemas.js';
import { CODE_PATTERN } from './service.js';
import { LINKED_PLATFORMS } from './player.js';

/** The schemas the identity routes share (ingest, /v1, the portal's page reads the same views). */
export const LinkCodeField = Type.String({
  pattern: CODE_PATTERN,
  description:
    'A link code as shown (`7KQ-M3X`): 6 characters of `23456789ABCDEFGHJKMNPQRSTWXYZ`, the dash and case optional',
  examples: ['7KQ-M3X'],
});

const CodeExpiry = Timestamp('when the code stops working (10 minutes after it was made)');

export const LinkCodeSchema = Type.Object(
  {
    code: Type.String({
      description: 'The code to enter: valid 10 minutes, used once; never shown again',
      examples: ['7KQ-M3X'],
    }),
    expires_at: CodeExpiry,
  },
  { description: 'A one-use link code' },
);

/**
 * The code a user asks for with an `Idempotency-Key`: the stored answer a replay gets keeps no
 * code (`withheldOnReplay`), as only the code's hash is kept anywhere else.
 */
export const UserLinkCodeSchema = Type.Object(
  {
    code: Type.Union([Type.String(), Type.Null()], {
      description:
        'The code to enter: valid 10 minutes, used once; shown only in this answer. `null` in a replay of this answer (`Idempotent-Replayed: true`): the code is not kept with stored answers, so if the first answer was lost, make a new code',
      examples: ['7KQ-M3X'],
    }),
    expires_at: CodeExpiry,
  },
  { description: 'A one-use link code' },
);

export const Platform = StringEnum(LINKED_PLATFORMS, {
  description:
    'the identity\u2019s platform: `minecraft` (a Minecraft UUID) or `eos` (an Epic Online Services id)',
  examples: ['minecraft'],
});

export const IdentityLinkSchema = Type.Object(
  {
    platform: Platform,
    player_id: Type.String({
      description: 'The platform id: a Minecraft UUID (lowercase, dashed) or an EOS id (lowercase)',
      examples: ['069a79f4-44e9-4726-a5be-fca90e38aaf5'],
    }),
    name: Type.String({ description: 'The in-game name when the link was made', examples: ['Steve'] }),
    linked_at: Timestamp('when the link was made'),
  },
  {
    description: 'A game identity linked to a hub account: what a plugin reports of it lands on that profile',
  },
);
