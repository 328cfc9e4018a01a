package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashSet;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(60), new Random(7));

  @Test
  void growsExponentiallyWithEqualJitterUpToTheCap() {
    for (int attempt = 1; attempt <= 12; attempt++) {
      long ceiling = Math.min(60_000, 500L << (attempt - 1));
      for (int i = 0; i < 50; i++) {
        long d = backoff.delay(attempt, Optional.empty()).toMillis();
        assertTrue(d >= ceiling / 2 && d <= ceiling, "attempt " + attempt + ": " + d + " in [" + ceiling / 2 + ", " + ceiling + "]");
      }
    }
  }

  @Test
  void jitterSpreadsRetries() {
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      seen.add(backoff.delay(5, Optional.empty()).toMillis());
    }
    assertTrue(seen.size() > 10, "20 draws gave " + seen.size() + " distinct waits");
  }

  @Test
  void retryAfterIsAFloorWithAtMostOneSecondOfJitter() {
    for (int i = 0; i < 50; i++) {
      long d = backoff.delay(1, Optional.of(Duration.ofSeconds(3))).toMillis();
      assertTrue(d >= 3_000 && d <= 3_300, String.valueOf(d));
      long big = backoff.delay(1, Optional.of(Duration.ofSeconds(120))).toMillis();
      assertTrue(big >= 120_000 && big <= 121_000, String.valueOf(big));
    }
    assertEquals(0, backoff.delay(1, Optional.of(Duration.ZERO)).toMillis());
  }

  @Test
  void retryAfterIsReadAsSecondsOrAnHttpDate() {
    assertEquals(Optional.of(Duration.ofSeconds(7)), HubHttp.retryAfter(Optional.of("7")));
    assertEquals(Optional.of(Duration.ofSeconds(7)), HubHttp.retryAfter(Optional.of(" 7 ")));
    assertEquals(Optional.empty(), HubHttp.retryAfter(Optional.of("-1")));
    assertEquals(Optional.empty(), HubHttp.retryAfter(Optional.of("soon")));
    assertEquals(Optional.empty(), HubHttp.retryAfter(Optional.empty()));
    String inTen = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(10));
    long s = HubHttp.retryAfter(Optional.of(inTen)).orElseThrow().toSeconds();
    assertTrue(s >= 8 && s <= 10, String.valueOf(s));
    String past = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).minusSeconds(10));
    assertEquals(Optional.of(Duration.ZERO), HubHttp.retryAfter(Optional.of(past)));
  }
}
