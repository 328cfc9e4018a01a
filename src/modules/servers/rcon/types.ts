export type RconProtocol = 'source' | 'goldsrc' | 'webrcon';

export interface RconTarget {
  protocol: RconProtocol;
  host: string;
  port: number;
  password: string;
}

export interface RconOptions {
  /** Bound on the whole exchange (connect, login, command, reply); default 5000. */
  timeoutMs?: number;
  /** Output beyond this many bytes (UTF-8) is cut and `truncated` set; default 65536. */
  maxOutputBytes?: number;
  /**
   * Silence that ends a reply whose end the protocol does not mark: every GoldSrc reply, and Source
   * servers that ignore the end marker; default 300.
   */
  quietMs?: number;
}

export interface RconResult {
  output: string;
  truncated: boolean;
  durationMs: number;
}

/** What a protocol client returns; runRconCommand adds the duration. */
export type RconResultBody = Omit<RconResult, 'durationMs'>;

export type ExchangeLimits = Required<RconOptions>;
