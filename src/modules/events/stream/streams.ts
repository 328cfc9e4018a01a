import type { EventReader } from '../audience.js';
import type { EventsRepo } from '../repo.js';
import { StreamConnection, type StreamLimits } from './connection.js';
import { EventHub, type WakeUps } from './hub.js';

export interface StreamSettings extends StreamLimits {
  /** outbox poll without a wake-up */
  pollMs: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  pollMs: 1000,
  heartbeatMs: 15_000,
  maxBufferedBytes: 1_048_576,
  catchUpPage: 500,
};

/** The live streams of one API instance: one hub, every open connection, and their shutdown. */
export class EventStreams {
  private readonly hub: EventHub;
  private readonly open = new Set<StreamConnection>();

  constructor(
    private readonly repo: Pick<EventsRepo, 'after' | 'allAfter' | 'latest'>,
    wakeUps: WakeUps,
    private readonly settings: StreamSettings,
    onError: (err: unknown) => void,
  ) {
    this.hub = new EventHub(repo, wakeUps, { pollMs: settings.pollMs, onError });
  }

  /** A new connection (its body is the response); `after` undefined: from now. */
  connect(reader: EventReader, types: ReadonlySet<string> | undefined, after: number | undefined) {
    const connection = new StreamConnection(
      { hub: this.hub, repo: this.repo },
      reader,
      types,
      after,
      this.settings,
    );
    this.open.add(connection);
    connection.body.on('close', () => this.open.delete(connection));
    return connection;
  }

  /**
   * On shutdown, before the server waits for requests in flight: every stream ends with a comment
   * telling the client to reconnect (to another instance) with its Last-Event-ID.
   */
  async close(): Promise<void> {
    for (const connection of this.open) connection.close('the server is shutting down; reconnect');
    await this.hub.close();
  }
}
