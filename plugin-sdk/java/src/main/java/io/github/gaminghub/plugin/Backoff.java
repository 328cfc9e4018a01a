package io.github.gaminghub.plugin;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import java.util.regex.Pattern;

/**
 * How long a loop waits before trying again (plugin-sdk/vectors/backoff.json): "full jitter" over an
 * exponential ceiling, bounded below so a failing hub is never hammered; a {@code Retry-After} the hub
 * sent wins, capped at an hour and bounded below all the same.
 */
final class Backoff {
  static final long BASE_MS = 500;
  static final long MAX_MS = 30_000;
  static final long MIN_MS = 100;
  static final long MAX_RETRY_AFTER_MS = 3_600_000;
  private static final Pattern DELTA_SECONDS = Pattern.compile("\\d+");

  private final DoubleSupplier random;

  Backoff(DoubleSupplier random) {
    this.random = random;
  }

  /** The wait before retry number {@code attempt} (failures in a row, from 1). */
  Duration delay(int attempt, Optional<String> retryAfter) {
    return Duration.ofMillis(delayMs(attempt, draw(), retryAfter, Instant.now()));
  }

  /** The jitter's draw in [0, 1), for the loops that decide by the vectors' rules themselves. */
  double draw() {
    return random.getAsDouble();
  }

  /** The rule itself, with the random draw in [0, 1) and the clock given. */
  static long delayMs(int attempt, double random, Optional<String> retryAfter, Instant now) {
    Optional<Long> hub = retryAfter.flatMap(v -> retryAfterMs(v, now));
    if (hub.isPresent()) {
      // the floor holds for the hub's wait too: a hub answering Retry-After: 0 forever is not hammered
      return Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_MS, hub.get()));
    }
    long ceiling = BASE_MS << Math.min(Math.max(attempt - 1, 0), 30);
    ceiling = Math.min(MAX_MS, ceiling);
    return Math.max(MIN_MS, (long) Math.floor(random * ceiling));
  }

  /** {@code Retry-After} as delta-seconds or an HTTP date (IMF-fixdate); empty when it is neither. */
  static Optional<Long> retryAfterMs(String header, Instant now) {
    String v = header.strip();
    if (DELTA_SECONDS.matcher(v).matches()) {
      try {
        return Optional.of(Math.multiplyExact(Long.parseLong(v), 1_000L));
      } catch (ArithmeticException | NumberFormatException e) {
        return Optional.of(Long.MAX_VALUE);
      }
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      return Optional.of(Math.max(0, Duration.between(now, at).toMillis()));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
