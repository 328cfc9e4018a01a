// The scenarios written as data ("calls" and "paginate"), run through the library's generic
// path-typed calls and its paginator.
import { HubApiError, type HubClient } from '../src/index.js';
import assert from './assert.js';
import { UNKNOWN_KEY, clientFor, resolveRefs, type Scenario, type Step } from './harness.js';

type LooseCall = (path: string, init?: object) => Promise<unknown>;
type LoosePaginate = (path: string, init?: object) => AsyncIterable<Record<string, unknown>>;

function clientOf(scenario: string, auth: Step['auth']): HubClient {
  if (auth === 'invalid_api_key') return clientFor(scenario, { apiKey: UNKNOWN_KEY });
  if (auth === 'none') return clientFor(scenario, { apiKey: undefined });
  return clientFor(scenario);
}

async function runStep(scenario: string, raw: Step, index: number): Promise<void> {
  const step = resolveRefs(raw);
  const [method = '', path = ''] = step.call.split(' ');
  const client = clientOf(scenario, step.auth);
  const call = (client as unknown as Record<string, LooseCall>)[method.toLowerCase()];
  assert.ok(call, `no method ${method}`);
  const where = `step ${index + 1} (${step.call} ${JSON.stringify(step.params ?? {})})`;
  let body: unknown;
  try {
    body = await call.call(client, path, step.params ? { params: step.params } : undefined);
  } catch (error) {
    if (!(error instanceof HubApiError)) throw error;
    assert.equal(error.status, step.expect.status, `${where}: ${error.message}`);
    assert.equal(error.code, step.expect.code, where);
    // the problem document is carried whole
    assert.ok(error.title && error.detail && error.requestId, `${where}: title, detail and request id`);
    assert.equal(error.problem.status, error.status, where);
    return;
  }
  assert.ok(step.expect.status < 300, `${where}: expected ${step.expect.status}, got a success`);
  const object = body as Record<string, unknown>;
  for (const field of step.expect.fields ?? []) assert.ok(field in object, `${where}: no field ${field}`);
  if (step.expect.items_min !== undefined) {
    const items = Object.values(object).find(Array.isArray) as unknown[] | undefined;
    assert.ok(
      (items?.length ?? 0) >= step.expect.items_min,
      `${where}: fewer than ${step.expect.items_min} items`,
    );
  }
}

export async function runCalls(scenario: Scenario): Promise<void> {
  for (const [index, step] of (scenario.steps ?? []).entries()) await runStep(scenario.name, step, index);
}

export async function runPaginate(raw: Scenario): Promise<void> {
  const scenario = resolveRefs(raw);
  const [, path = ''] = (scenario.call ?? '').split(' ');
  const client = clientFor(scenario.name);
  const paginate = client.paginate.bind(client) as unknown as LoosePaginate;
  const items: Record<string, unknown>[] = [];
  for await (const item of paginate(path, scenario.params ? { params: scenario.params } : undefined))
    items.push(item);
  const expect = scenario.expect ?? {};
  if (expect.count !== undefined) assert.equal(items.length, expect.count, 'item count');
  if (expect.count_min !== undefined) assert.ok(items.length >= Number(expect.count_min), 'too few items');
  if (typeof expect.unique === 'string') {
    const key = expect.unique;
    assert.equal(new Set(items.map((i) => i[key])).size, items.length, `${key}s repeat`);
  }
  if (typeof expect.increasing === 'string') {
    const key = expect.increasing;
    const ids = items.map((i) => String(i[key]));
    // strictly increasing: sorted, and no repeat
    assert.deepEqual(ids, [...new Set(ids)].sort(), `${key}s not strictly increasing`);
  }
}
