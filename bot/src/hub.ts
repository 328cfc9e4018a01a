import { HubApiError, HubErrorCode, type HubClient, type HubEvent } from '@gaming-hub/client';
import type { CommandChannel, EventSource } from './transport.js';

/** The hub's live stream (`GET /v1/events/stream`), resumed with `Last-Event-ID` after the cursor. */
export const hubSource = (hub: HubClient): EventSource => ({
  events: ({ after, types, signal }): AsyncIterable<HubEvent> =>
    hub.events({
      ...(after === undefined ? {} : { after }),
      ...(types === undefined ? {} : { types }),
      signal,
    }),
});

/** A command still running at the hub is waited for this many times 250 ms (a console answers within 15 s). */
const IN_USE_ATTEMPTS = 80;

/**
 * Console commands through `POST /v1/servers/{id}/command` (needs `servers:command`, acting for
 * the server's owner or an operator): over its remote console, or, for a server registered with
 * the plugin channel, through the queue its plugin long-polls (the hub picks by the server; a `202`
 * means the plugin has it queued and will run it, an `error` or `expired` result is a failed reply). The effect's key is the `Idempotency-Key`: a reply sent
 * again after a crash is answered from the hub's record instead of being said twice. The client
 * retries 429 and 503 itself, honouring `Retry-After`.
 */
export const hubCommands = (hub: HubClient): CommandChannel => ({
  async run(serverId, command, key) {
    for (let attempt = 1; ; attempt++) {
      try {
        const { data } = await hub.post('/v1/servers/{id}/command', {
          params: { path: { id: serverId } },
          body: { command },
          idempotencyKey: key,
        });
        // a plugin-channel server: the game refused the line, or its plugin never took it
        if (data.status === 'error' || data.status === 'expired')
          throw new Error(
            `server ${serverId} did not run the reply (${data.status}${data.output ? `: ${data.output}` : ''})`,
          );
        return;
      } catch (error) {
        if (!(error instanceof HubApiError)) throw error;
        // the key was used with another text: a run before a crash made this effect already
        if (error.code === HubErrorCode.IdempotencyKeyReused) return;
        // the same effect sent before a crash is still running at the hub: its answer will be the one
        if (error.code === HubErrorCode.IdempotencyKeyInUse && attempt < IN_USE_ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          continue;
        }
        throw error;
      }
    }
  },
});
