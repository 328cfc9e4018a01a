import type { TSchema } from 'typebox';
import { v1Route, type V1RouteSpec } from '../../http/v1-route.js';

export const CLANS_TAG = 'Clans';

type WriteSpec<P extends TSchema | undefined, B extends TSchema | undefined, R extends TSchema> = Omit<
  V1RouteSpec<P, undefined, B, R>,
  'tag' | 'scope' | 'userContext' | 'idempotency' | 'querystring'
>;

/**
 * A clan write: acts for the signed-in user with `clans:write`, and takes an `Idempotency-Key`
 * so a retried request does not act twice.
 */
export const clanWrite = <P extends TSchema | undefined, B extends TSchema | undefined, R extends TSchema>(
  spec: WriteSpec<P, B, R>,
) =>
  v1Route({
    ...spec,
    description: `${spec.description} Send an \`Idempotency-Key\` to retry safely.`,
    tag: CLANS_TAG,
    scope: 'clans:write',
    userContext: true,
    idempotency: 'optional',
  });
