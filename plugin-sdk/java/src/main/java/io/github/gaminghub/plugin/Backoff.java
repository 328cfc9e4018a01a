package io.github.gaminghub.plugin;

import java.time.Duration;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * How long to wait before retrying: exponential from {@code base}, capped at {@code max}, with "equal
 * jitter" (half fixed, half random) so a fleet of servers that lost the hub together does not come
 * back in one burst. A {@code Retry-After} from the hub is a floor: the wait is at least that, plus up
 * to 10% (at most 1 s) of jitter.
 */
final class Backoff {
  private final Duration base;
  private final Duration max;
  private final RandomGenerator random;

  Backoff(Duration base, Duration max, RandomGenerator random) {
    this.base = base;
    this.max = max;
    this.random = random;
  }

  /** The wait before retry number {@code attempt} (1 for the first retry). */
  Duration delay(int attempt, Optional<Duration> retryAfter) {
    long cap = max.toMillis();
    long exp = base.toMillis() << Math.min(Math.max(attempt - 1, 0), 20);
    long ceiling = Math.max(1, Math.min(cap, exp));
    long jittered = ceiling / 2 + random.nextLong(ceiling / 2 + 1);
    if (retryAfter.isPresent()) {
      long floor = retryAfter.get().toMillis();
      long spread = Math.min(1_000, floor / 10);
      return Duration.ofMillis(floor + (spread > 0 ? random.nextLong(spread + 1) : 0));
    }
    return Duration.ofMillis(jittered);
  }
}
