/**
 * Progress for `hub seed` on stderr (stdout stays clean for scripts): a redrawn bar on a terminal,
 * one line per finished phase otherwise, so logs of non-interactive runs stay short.
 */
export function progressReporter(
  stream: NodeJS.WriteStream = process.stderr,
): (done: number, total: number, phase: string) => void {
  const started = performance.now();
  let lastPhase = '';
  let lastDraw = 0;
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  if (!stream.isTTY) {
    return (done, total, phase) => {
      if (done >= total && phase !== lastPhase) {
        lastPhase = phase;
        stream.write(`seed: ${phase} done (${total.toLocaleString('en-US')}) at ${elapsed()}\n`);
      }
    };
  }
  return (done, total, phase) => {
    const t = performance.now();
    const finished = done >= total;
    if (!finished && phase === lastPhase && t - lastDraw < 100) return;
    lastDraw = t;
    const width = 30;
    const share = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(share * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    const line = `${phase.padEnd(10)} ${bar} ${String(Math.round(share * 100)).padStart(3)}%  ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}  ${elapsed()}`;
    stream.write(`\r${line}\x1b[K`);
    if (finished) stream.write('\n');
    lastPhase = phase;
  };
}
