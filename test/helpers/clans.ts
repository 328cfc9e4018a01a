import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Problem } from '../../src/http/problem.js';
import type { Scope } from '../../src/http/scopes.js';
import type { ClanDetailBody } from '../../src/modules/clans/schemas.js';
import type { Factories } from './factories.js';
import { type TokenTable, userToken } from './token-table.js';

export interface Player {
  id: number;
  token: string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

let clanSequence = 0;

/**
 * Drives the /v1 clan routes as hub users: each player is a user row with an OAuth token (from a
 * token table standing in for the authorization server) holding the clan scopes.
 */
export function clanClient(app: FastifyInstance, tokens: TokenTable, made: Factories, apiKey: string) {
  async function player(scopes: Scope[] = ['clans:read', 'clans:write']): Promise<Player> {
    const { id } = await made.makeUser();
    const token = `tok-clans-${id}-${scopes.join('+')}`;
    tokens.tokens.set(token, userToken(scopes, { userId: id }));
    return { id, token };
  }

  function call(
    method: Method,
    url: string,
    as: Player | string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const token = typeof as === 'string' ? as : as?.token;
    return app.inject({
      method,
      url: `/v1${url}`,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  }

  function ok<T = unknown>(res: LightMyRequestResponse, status: number): T {
    assert.equal(res.statusCode, status, `${res.statusCode} ${res.body}`);
    return status === 204 ? (undefined as T) : res.json<T>();
  }

  /** The clan as `as` sees it (by default through an API key: public data). */
  async function detail(id: number, as: Player | string = apiKey): Promise<ClanDetailBody> {
    return ok<{ data: ClanDetailBody }>(await call('GET', `/clans/${id}`, as), 200).data;
  }

  /**
   * A clan with an owner, `officers` officers and `members` plain members, then the settings
   * given (an open clan while members join).
   */
  async function makeClan(
    options: {
      game?: 'cs2' | 'cs16' | 'rust' | 'minecraft';
      officers?: number;
      members?: number;
      settings?: Record<string, unknown>;
    } = {},
  ): Promise<{ id: number; game: string; owner: Player; officers: Player[]; members: Player[] }> {
    const n = ++clanSequence;
    const game = options.game ?? 'cs2';
    const owner = await player();
    const created = ok<{ data: { id: number } }>(
      await call('POST', '/clans', owner, { name: `Clan ${n} ${process.pid}`, tag: `C${n % 100000}`, game }),
      201,
    );
    const id = created.data.id;
    const officers: Player[] = [];
    const members: Player[] = [];
    const size = (options.officers ?? 0) + (options.members ?? 0);
    if (size > 0) ok(await call('PUT', `/clans/${id}/settings`, owner, { join_policy: 'open' }), 200);
    for (let i = 0; i < size; i++) {
      const p = await player();
      ok(await call('POST', `/clans/${id}/join`, p), 201);
      if (i < (options.officers ?? 0)) {
        ok(await call('POST', `/clans/${id}/members/${p.id}/promote`, owner), 200);
        officers.push(p);
      } else members.push(p);
    }
    if (options.settings) ok(await call('PUT', `/clans/${id}/settings`, owner, options.settings), 200);
    return { id, game, owner, officers, members };
  }

  return { player, call, ok, detail, makeClan };
}

export type ClanClient = ReturnType<typeof clanClient>;

/** Asserts a problem response with this status and code. */
export function expectProblem(res: LightMyRequestResponse, status: number, code: string): Problem {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode} ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const problem = res.json<Problem>();
  assert.equal(problem.code, code, problem.detail);
  return problem;
}
