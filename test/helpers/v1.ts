import type { LightMyRequestResponse } from 'fastify';
import { V1_PREFIX } from '../../src/http/paths.js';
import type { TestContext } from './context.js';

/** GET under /v1 with `Authorization: Bearer <credential>` (an API key or a test token). */
export const v1Get = (
  ctx: Pick<TestContext, 'inject'>,
  path: string,
  credential: string,
): Promise<LightMyRequestResponse> =>
  ctx.inject({
    method: 'GET',
    url: `${V1_PREFIX}${path}`,
    headers: { authorization: `Bearer ${credential}` },
  });
