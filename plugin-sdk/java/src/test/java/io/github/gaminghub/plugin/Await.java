package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition: generous deadlines, since the machine running the tests may be loaded. */
final class Await {
  private Await() {}

  static void until(String what, BooleanSupplier condition) {
    until(what, Duration.ofSeconds(20), condition);
  }

  static void until(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for: " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        fail("interrupted waiting for: " + what);
      }
    }
  }
}
