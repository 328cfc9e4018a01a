package io.github.gaminghub.plugin;

import java.util.concurrent.atomic.AtomicLong;

/** The running totals behind {@link Counters}, written by the SDK's threads. */
final class Stats {
  final AtomicLong sent = new AtomicLong();
  final AtomicLong accepted = new AtomicLong();
  final AtomicLong duplicates = new AtomicLong();
  final AtomicLong rejected = new AtomicLong();
  final AtomicLong spooled = new AtomicLong();
  final AtomicLong dropped = new AtomicLong();
  final AtomicLong commandsRun = new AtomicLong();
  final AtomicLong commandsFailed = new AtomicLong();
  final AtomicLong commandsExpired = new AtomicLong();
  final AtomicLong heartbeats = new AtomicLong();
  final AtomicLong retries = new AtomicLong();
}
