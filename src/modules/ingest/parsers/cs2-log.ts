import { parseLogLine, type LogEvent } from './log-line.js';

/** One parsed log line: its 1-based number in the batch (0 over UDP), its text and its event. */
export interface LogLine {
  line: number;
  text: string;
  event: LogEvent;
}

/**
 * A batch of log lines as CS2 posts it with `logaddress_add_http` (one line per `\n`), or as a
 * CS 1.6 relay posts it. Lines that are not log lines are rejected with a reason; the rest parse
 * to events. Empty lines are not counted.
 */
export interface ParsedBatch {
  lines: LogLine[];
  /** the events of `lines`, in order */
  events: LogEvent[];
  rejected: { line: number; reason: string }[];
}

export function parseLogBatch(text: string): ParsedBatch {
  const lines: LogLine[] = [];
  const rejected: ParsedBatch['rejected'] = [];
  let start = 0;
  let lineNo = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNo++;
    const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    start = end + 1;
    if (line.length === 0 || line === '\0') continue;
    const parsed = parseLogLine(line);
    if (parsed.ok) lines.push({ line: lineNo, text: line, event: parsed.event });
    else rejected.push({ line: lineNo, reason: parsed.reason });
  }
  return { lines, events: lines.map((l) => l.event), rejected };
}
