import type { FastifyBaseLogger } from 'fastify';

/**
 * On the first SIGINT or SIGTERM: `stop` (drain, flush, close), then exit 0, or 1 if it failed.
 * A second signal while stopping exits at once (an operator pressing Ctrl-C again).
 */
export function exitOnSignal(
  stop: () => Promise<void>,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.error({ signal }, 'second signal while shutting down: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down: draining requests, flushing buffers');
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
