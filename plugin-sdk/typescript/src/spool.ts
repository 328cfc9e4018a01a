import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WireEvent } from './events.js';

/**
 * Events the hub has not settled, on disk (plugin-sdk/vectors/spool.json): one segment file per
 * batch, written whole (tmp + rename) so a crash leaves a segment whole or absent; bounded, the
 * oldest dropped first and counted. Operations are serialized: the sender and close() share it.
 */
const SEGMENT = /^(\d{12})\.jsonl$/;
const nameOf = (n: number) => `${String(n).padStart(12, '0')}.jsonl`;

interface Segment {
  n: number;
  count: number;
}

export class Spool {
  /** events dropped (oldest first, or unreadable) since this spool was opened */
  dropped = 0;
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly dir: string,
    readonly maxEvents: number,
    private readonly segments: Segment[],
    /** events found when it was opened */
    readonly found: number,
    unreadable: number,
  ) {
    this.dropped = unreadable;
  }

  static async open(dir: string, maxEvents = 100_000): Promise<Spool> {
    await mkdir(dir, { recursive: true });
    const segments: Segment[] = [];
    let unreadable = 0;
    for (const name of (await readdir(dir)).sort()) {
      if (name.endsWith('.tmp')) {
        await rm(join(dir, name), { force: true });
        continue;
      }
      const match = SEGMENT.exec(name);
      if (!match) continue;
      const lines = (await readFile(join(dir, name), 'utf8')).split('\n').filter((l) => l !== '');
      const events = lines.map(parseLine).filter((e): e is WireEvent => e !== undefined);
      unreadable += lines.length - events.length;
      const n = Number(match[1]);
      if (events.length === 0) await rm(join(dir, name), { force: true });
      else {
        if (events.length !== lines.length) await writeSegment(dir, n, events);
        segments.push({ n, count: events.length });
      }
    }
    const found = segments.reduce((sum, s) => sum + s.count, 0);
    return new Spool(dir, maxEvents, segments, found, unreadable);
  }

  /** events held */
  get size(): number {
    return this.segments.reduce((sum, s) => sum + s.count, 0);
  }

  /** segment file names, oldest first */
  get files(): string[] {
    return this.segments.map((s) => nameOf(s.n));
  }

  /** Appends one batch as a new segment, dropping the oldest events past the bound. */
  append(batch: readonly WireEvent[]): Promise<void> {
    return this.serial(async () => {
      let events = batch;
      if (events.length > this.maxEvents) {
        this.dropped += events.length - this.maxEvents;
        events = events.slice(events.length - this.maxEvents);
      }
      if (events.length === 0) return;
      await this.dropOldest(this.size + events.length - this.maxEvents);
      const n = (this.segments.at(-1)?.n ?? this.highestRemoved) + 1;
      await writeSegment(this.dir, n, events);
      this.segments.push({ n, count: events.length });
    });
  }

  /** The oldest segment's events (the next batch to send), or undefined when empty. */
  oldest(): Promise<WireEvent[] | undefined> {
    return this.serial(async () => {
      const first = this.segments[0];
      if (!first) return undefined;
      return readSegment(this.dir, first.n);
    });
  }

  /** Every event held, oldest first (for inspection: the sender reads one segment at a time). */
  events(): Promise<WireEvent[]> {
    return this.serial(async () => {
      const all: WireEvent[] = [];
      for (const s of this.segments) all.push(...(await readSegment(this.dir, s.n)));
      return all;
    });
  }

  /** The oldest segment was settled by the hub: delete it. */
  settle(): Promise<void> {
    return this.serial(async () => {
      const first = this.segments.shift();
      if (!first) return;
      this.highestRemoved = Math.max(this.highestRemoved, first.n);
      await rm(join(this.dir, nameOf(first.n)), { force: true });
    });
  }

  /** so that numbering continues after the last segment is settled (never reuses a number in one run) */
  private highestRemoved = 0;

  private async dropOldest(count: number): Promise<void> {
    let left = count;
    while (left > 0) {
      const first = this.segments[0];
      if (!first) return;
      if (first.count <= left) {
        this.segments.shift();
        this.highestRemoved = Math.max(this.highestRemoved, first.n);
        await rm(join(this.dir, nameOf(first.n)), { force: true });
        this.dropped += first.count;
        left -= first.count;
      } else {
        const kept = (await readSegment(this.dir, first.n)).slice(left);
        await writeSegment(this.dir, first.n, kept);
        first.count = kept.length;
        this.dropped += left;
        left = 0;
      }
    }
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.chain.then(op, op);
    this.chain = next.catch(() => undefined);
    return next;
  }
}

function parseLine(line: string): WireEvent | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null && typeof (value as WireEvent).client_id === 'string')
      return value as WireEvent;
  } catch {
    // a damaged line: counted as dropped by the caller
  }
  return undefined;
}

async function readSegment(dir: string, n: number): Promise<WireEvent[]> {
  const text = await readFile(join(dir, nameOf(n)), 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map(parseLine)
    .filter((e): e is WireEvent => e !== undefined);
}

async function writeSegment(dir: string, n: number, events: readonly WireEvent[]): Promise<void> {
  const path = join(dir, nameOf(n));
  await writeFile(`${path}.tmp`, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  await rename(`${path}.tmp`, path);
}
