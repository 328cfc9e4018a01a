package io.github.gaminghub.plugin;

import java.time.Instant;

/**
 * A command the hub queued for this server (issued through {@code POST /v1/servers/:id/command}).
 *
 * @param id the hub's id; the result is acknowledged by it
 * @param command the command line, e.g. {@code say hello} or {@code kick Steve}
 * @param issuedAt when it was issued
 * @param expiresAt after this the hub refuses its result (the caller has been told it expired)
 */
public record Command(String id, String command, Instant issuedAt, Instant expiresAt) {
  /** The first word of the command line ({@code say} for {@code say hello}), case kept. */
  public String name() {
    return command.strip().split("\\s+", 2)[0];
  }

  /** What follows the first run of whitespace, trimmed ({@code hello  world} for {@code say hello  world}). */
  public String arguments() {
    String[] parts = command.strip().split("\\s+", 2);
    return parts.length < 2 ? "" : parts[1].strip();
  }
}
