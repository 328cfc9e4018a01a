package io.github.gaminghub.plugin;

/**
 * A snapshot of what the SDK has done since it started (the totals are per process; the spool's
 * content survives a restart, these numbers do not).
 *
 * @param sent events delivered to the hub in a successful answer (accepted + duplicates + rejected)
 * @param accepted events the hub stored
 * @param duplicates events the hub had already (a resend counted once)
 * @param rejected events the hub refused as invalid (never resent)
 * @param spooled events written to the disk spool while the hub could not take them
 * @param dropped events lost because the spool or the memory queue was full (the oldest go first)
 * @param queued events waiting in memory now
 * @param spoolSize events waiting in the spool now
 * @param commandsRun commands run by the handler (ok or error)
 * @param commandsFailed of those, the ones whose result was {@code error}
 * @param heartbeats heartbeats the hub answered
 * @param retries calls retried after a 429, a 5xx or a network error
 */
public record Counters(
    long sent,
    long accepted,
    long duplicates,
    long rejected,
    long spooled,
    long dropped,
    long queued,
    long spoolSize,
    long commandsRun,
    long commandsFailed,
    long heartbeats,
    long retries) {}
