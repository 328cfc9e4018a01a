import { readFileSync } from 'node:fs';

/** What `npm run test:plugins` hands a language (plugin-sdk/README.md). */
export interface Fixture {
  hub_url: string;
  control_url: string;
  scenarios_file: string;
  work_dir: string;
  servers: Record<string, { id: number; token: string }>;
}
export interface Scenario {
  name: string;
  server: string;
  skip?: string;
}

export function loadFixture(): { fixture: Fixture; scenarios: Scenario[] } {
  const file = process.env.HUB_PLUGIN_FIXTURE;
  if (!file)
    throw new Error('HUB_PLUGIN_FIXTURE is not set: run `npm run test:plugins` at the repository root');
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as Fixture;
  const { scenarios } = JSON.parse(readFileSync(fixture.scenarios_file, 'utf8')) as { scenarios: Scenario[] };
  return { fixture, scenarios };
}

/** The control server: what a plugin cannot do itself (stop the hub, count stored rows). */
export function control(fixture: Fixture) {
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(new URL(path, fixture.control_url), {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const answer: unknown = await res.json();
    if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  /** a /v1 call made by the control server as the servers' owner: the hub's status and body */
  const hub = async (method: 'GET' | 'POST', path: string, body?: unknown) =>
    (await call(method, path, body)) as HubAnswer;
  return {
    stopHub: () => call('POST', '/hub/stop'),
    startHub: () => call('POST', '/hub/start'),
    removeServer: (id: number) => call('POST', `/servers/${id}/remove`),
    kills: async (serverId: number) =>
      ((await call('GET', `/count/kills?server_id=${serverId}`)) as { count: number }).count,
    command: (serverId: number, command: string, waitMs: number) =>
      hub('POST', '/command', { server_id: serverId, command, wait_ms: waitMs }),
    commandStatus: (serverId: number, id: string) => hub('GET', `/command/${serverId}/${id}`),
    v1: (path: string) => hub('GET', path),
    linkCode: () => hub('POST', '/link-code'),
  };
}

export interface HubAnswer {
  status: number;
  body: { data?: Record<string, unknown> } & Record<string, unknown>;
}
/** the `data` of a /v1 answer */
export const dataOf = (answer: HubAnswer): Record<string, unknown> => answer.body.data ?? answer.body;
