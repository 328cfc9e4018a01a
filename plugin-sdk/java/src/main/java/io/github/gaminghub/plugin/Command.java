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
  /** The first word of the command line ({@code say} for {@code say hello}). */
  public String name() {
    String trimmed = command.strip();
    int space = trimmed.indexOf(' ');
    return space < 0 ? trimmed : trimmed.substring(0, space);
  }

  /** What follows the first word, stripped ({@code hello} for {@code say hello}). */
  public String arguments() {
    String trimmed = command.strip();
    int space = trimmed.indexOf(' ');
    return space < 0 ? "" : trimmed.substring(space + 1).strip();
  }
}
