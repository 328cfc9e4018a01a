import { stampLine } from './log-format.js';
import type { DemoGame } from './game.js';

/** What the ingest route answered, summed over every batch the demo server posted. */
export interface IngestTotals {
  batches: number;
  accepted: number;
  rejected: number;
  kills: number;
  matches: number;
  /** batches that did not reach the service or were refused */
  failed: number;
}

export interface DemoRun {
  totals(): IngestTotals;
  /** No step after this; resolves once the batch in flight (if any) has been answered. */
  stop(): Promise<void>;
}

interface IngestAnswer {
  accepted: number;
  rejected: number;
  kills: number;
  matches: number;
}

/**
 * Steps the game every `stepMs` and posts what it wrote to `url` (the ingest route with the
 * server's token in the path), as CS2's `logaddress_add_http` does: one text/plain batch of lines.
 * The next step is scheduled only after the answer, so batches never overlap and a slow service
 * slows the game instead of piling requests up. A failed post is reported once per run of failures
 * and the game goes on (a real server drops what it could not send, too).
 */
export function runDemoGame(options: {
  game: DemoGame;
  url: string;
  /** sent with every batch besides the content type */
  headers?: Record<string, string>;
  stepMs: number;
  now: () => number;
  onFailure: (message: string) => void;
  /** after each answered batch, with the totals so far */
  afterPost?: (totals: IngestTotals) => void;
}): DemoRun {
  const { game, url, headers = {}, stepMs, now, onFailure, afterPost } = options;
  const totals: IngestTotals = { batches: 0, accepted: 0, rejected: 0, kills: 0, matches: 0, failed: 0 };
  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const post = async (body: string): Promise<void> => {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/plain' },
        body,
      });
      if (!res.ok) throw new Error(`the ingest route answered ${res.status}: ${await res.text()}`);
      const answer = (await res.json()) as IngestAnswer;
      totals.batches++;
      totals.accepted += answer.accepted;
      totals.rejected += answer.rejected;
      totals.kills += answer.kills;
      totals.matches += answer.matches;
      failing = false;
      afterPost?.({ ...totals });
    } catch (err) {
      totals.failed++;
      if (!failing) onFailure(err instanceof Error ? err.message : String(err));
      failing = true;
    }
  };

  const step = () => {
    timer = undefined;
    const at = now();
    // one millisecond apart: the lines of a moment keep their order and each its own fingerprint
    const lines = game.step(at).map((line, i) => stampLine(at + i, line));
    inFlight = (lines.length > 0 ? post(lines.join('\n')) : Promise.resolve()).then(() => {
      if (!stopped) timer = setTimeout(step, stepMs);
    });
  };
  timer = setTimeout(step, stepMs);

  return {
    totals: () => ({ ...totals }),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
