package io.github.gaminghub.plugin;

/**
 * A snapshot of what the SDK has done since it started (the totals are per process; the spool's
 * content survives a restart, these numbers do not).
 *
 * @param sent events the hub has (accepted + duplicates)
 * @param accepted events the hub stored
 * @param duplicates events the hub had already (a resend counted once)
 * @param rejected events the hub refused as invalid (never resent)
 * @param spooled events written to the disk spool while the hub could not take them, plus those found
 *     in it at start
 * @param dropped events lost: the spool or the memory queue was full (the oldest go first), a batch the
 *     hub refused as a whole (400, 413, 415, 422), or damaged lines found in the spool
 * @param queued events waiting in memory now
 * @param spoolSize events waiting in the spool now
 * @param commandsRun command results the hub recorded (ok or error; a resent result counts again)
 * @param commandsFailed results that were {@code error} (the handler threw, timed out, or no handler)
 * @param commandsExpired commands that expired before they ran or before their result arrived
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
    long commandsExpired,
    long heartbeats,
    long retries) {}
