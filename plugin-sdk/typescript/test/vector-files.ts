import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The shapes of the shared vector files (plugin-sdk/vectors), as far as these tests read them. */
export const VECTORS = resolve(import.meta.dirname, '../../vectors');
type Status = number | 'network error' | 'timeout';
interface HttpAnswer {
  status: Status;
  body?: unknown;
  headers?: Record<string, string>;
}
export interface EventVectors {
  instance: string;
  now: string;
  valid: { name: string; input: unknown; wire: unknown }[];
  invalid: { name: string; field: string; input: unknown }[];
}
export interface BatchingVectors {
  client_ids: { instance_pattern: string; cases: { instance: string; seq: number; client_id: string }[] };
  batches: {
    cases: {
      name: string;
      max_events: number;
      max_bytes: number;
      event_bytes: number[];
      batches: number[];
    }[];
  };
  answers: { cases: { status: Status; action: string }[] };
}
export interface BackoffVectors {
  cases: { attempt: number; random: number; retry_after: string | null; now?: string; delay_ms: number }[];
}
export interface SpoolVectors {
  cases: {
    name: string;
    max_events: number;
    files?: Record<string, string>;
    steps: {
      op: 'append' | 'oldest' | 'settle' | 'reopen' | 'expect';
      client_ids?: string[];
      events?: string[];
      segments?: string[];
      dropped?: number;
      spooled?: number;
    }[];
  }[];
}
export interface Then {
  do: 'run' | 'result' | 'poll' | 'count' | 'stop' | 'forget' | 'repost' | 'heartbeat';
  id?: string;
  name?: string;
  args?: string;
  body?: Record<string, unknown>;
  delay_ms?: number;
  counter?: 'commands_run' | 'commands_expired';
}
export interface CommandVectors {
  poll: {
    name: string;
    handlers?: Record<string, { output?: string | null; throws?: string }>;
    already_ran?: Record<string, { status: 'ok' | 'error'; output: string; duration_ms: number }>;
    answer: HttpAnswer;
    now?: string;
    attempt?: number;
    random?: number;
    then: Then[];
  }[];
  result: { name: string; answer: HttpAnswer; attempt?: number; random?: number; then: Then[] }[];
  output: { name: string; output: { repeat: string; times: number }; bytes: number }[];
  heartbeat: { cases: { name: string; interval_s?: number; answer: HttpAnswer; then: Then[] }[] };
}

export const loadVectors = <T>(name: string): T => JSON.parse(readFileSync(join(VECTORS, name), 'utf8')) as T;
