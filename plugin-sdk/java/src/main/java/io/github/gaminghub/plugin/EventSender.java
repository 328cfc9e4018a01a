package io.github.gaminghub.plugin;

import com.google.gson.JsonObject;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The event pipeline: {@link #offer} (any thread, never blocks on the network) queues an event in
 * memory; this sender thread posts batches, oldest first: the spool before memory. A batch the hub
 * could not take (unreachable, 429, 5xx) goes to the spool, and the sender waits out a backoff; while
 * it waits, what piles up in memory is spooled too, so a crash loses at most the last {@code linger}.
 */
final class EventSender implements Runnable {
  private static final System.Logger LOG = System.getLogger("io.github.gaminghub.plugin");

  private final HubHttp http;
  private final Spool spool;
  private final Backoff backoff;
  private final Stats stats;
  private final int batchSize;
  private final long lingerNanos;
  private final int maxQueued;
  private final Duration requestTimeout;
  private final Consumer<HubException> unauthorized;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final ArrayDeque<String> queue = new ArrayDeque<>();
  private long oldestQueuedAt;
  private boolean closing;
  private long closeDeadline;
  private boolean halted;
  private long nextAttemptAt;
  private int failures;
  private List<String> inFlight = List.of();

  EventSender(HubHttp http, Spool spool, Backoff backoff, Stats stats, int batchSize, Duration linger,
      int maxQueued, Duration requestTimeout, Consumer<HubException> unauthorized) {
    this.http = http;
    this.spool = spool;
    this.backoff = backoff;
    this.stats = stats;
    this.batchSize = batchSize;
    this.lingerNanos = linger.toNanos();
    this.maxQueued = maxQueued;
    this.requestTimeout = requestTimeout;
    this.unauthorized = unauthorized;
    this.nextAttemptAt = System.nanoTime(); // nanoTime's origin is arbitrary (it may be negative): never 0
  }

  /** Queues one event (its JSON); past {@code maxQueued} the oldest queued event is dropped. */
  void offer(String json) {
    lock.lock();
    try {
      if (queue.isEmpty()) {
        oldestQueuedAt = System.nanoTime();
      }
      queue.addLast(json);
      if (queue.size() > maxQueued) {
        queue.pollFirst();
        stats.dropped.incrementAndGet();
      }
      if (queue.size() == 1 || queue.size() == batchSize) {
        wake.signalAll(); // the linger starts, or a batch is full
      }
    } finally {
      lock.unlock();
    }
  }

  int queued() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** The token was refused: nothing more is sent; what arrives is spooled for a later token. */
  void halt() {
    lock.lock();
    try {
      halted = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Asks the sender to flush (memory and spool) and end by {@code deadline} (System.nanoTime). */
  void close(long deadline) {
    lock.lock();
    try {
      closing = true;
      closeDeadline = deadline;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private enum Kind { SPOOL, SEND_SPOOL, SEND_MEMORY }

  private record Work(Kind kind, List<String> events) {}

  @Override
  public void run() {
    try {
      for (Work w = next(); w != null; w = next()) {
        switch (w.kind()) {
          case SPOOL -> toSpool(w.events());
          case SEND_SPOOL -> sendSpooled();
          case SEND_MEMORY -> sendMemory(w.events());
        }
      }
    } catch (InterruptedException e) {
      // close() stopped waiting for the hub: keep what was on its way and what is queued
      lock.lock();
      List<String> rest;
      try {
        rest = new ArrayList<>(inFlight);
        rest.addAll(queue);
        queue.clear();
        inFlight = List.of();
      } finally {
        lock.unlock();
      }
      toSpool(rest);
    }
  }

  /** What to do next, waiting until there is something; null once closed and flushed. */
  private Work next() throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        long now = System.nanoTime();
        boolean waiting = halted || now - nextAttemptAt < 0;
        if (closing) {
          if (waiting || now - closeDeadline >= 0) {
            return queue.isEmpty() ? null : new Work(Kind.SPOOL, drain(queue.size()));
          }
          if (spool.size() > 0) {
            return new Work(Kind.SEND_SPOOL, List.of());
          }
          return queue.isEmpty() ? null : new Work(Kind.SEND_MEMORY, drain(batchSize));
        }
        boolean due = queue.size() >= batchSize || (!queue.isEmpty() && now - oldestQueuedAt >= lingerNanos);
        if (waiting || spool.size() > 0) {
          // memory waits behind the spool (order); when full or due while the hub is away, it joins it
          if (queue.size() >= batchSize || (waiting && due)) {
            return new Work(Kind.SPOOL, drain(queue.size()));
          }
          if (!waiting) {
            return new Work(Kind.SEND_SPOOL, List.of());
          }
        } else if (due) {
          return new Work(Kind.SEND_MEMORY, drain(batchSize));
        }
        long wait = Long.MAX_VALUE;
        if (!queue.isEmpty()) {
          wait = Math.max(1, lingerNanos - (now - oldestQueuedAt));
        }
        if (!halted && now - nextAttemptAt < 0) {
          wait = Math.min(wait, nextAttemptAt - now);
        }
        if (wait == Long.MAX_VALUE) {
          wake.await();
        } else {
          wake.awaitNanos(wait);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private List<String> drain(int n) {
    List<String> out = new ArrayList<>(Math.min(n, queue.size()));
    while (out.size() < n && !queue.isEmpty()) {
      out.add(queue.pollFirst());
    }
    oldestQueuedAt = System.nanoTime();
    inFlight = out;
    return out;
  }

  private void toSpool(List<String> events) {
    if (events.isEmpty()) {
      return;
    }
    for (int from = 0; from < events.size(); from += batchSize) {
      List<String> part = events.subList(from, Math.min(events.size(), from + batchSize));
      try {
        long dropped = spool.append(part);
        stats.spooled.addAndGet(part.size());
        stats.dropped.addAndGet(dropped);
      } catch (IOException e) {
        stats.dropped.addAndGet(part.size());
        LOG.log(Level.ERROR, "could not spool " + part.size() + " events, dropped: " + e);
      }
    }
    clearInFlight();
  }

  private void sendSpooled() throws InterruptedException {
    Optional<Spool.Segment> segment;
    try {
      segment = spool.oldest();
    } catch (IOException e) {
      LOG.log(Level.ERROR, "could not read the spool: " + e);
      failed(Optional.empty());
      return;
    }
    if (segment.isEmpty()) {
      return;
    }
    if (post(segment.get().events())) {
      try {
        spool.remove(segment.get());
      } catch (IOException e) {
        // sent anyway: a resend is counted once by the hub
        LOG.log(Level.WARNING, "could not delete a sent spool segment: " + e);
      }
    }
  }

  private void sendMemory(List<String> events) throws InterruptedException {
    if (!post(events)) {
      toSpool(events);
    }
    clearInFlight();
  }

  private void clearInFlight() {
    lock.lock();
    try {
      inFlight = List.of();
    } finally {
      lock.unlock();
    }
  }

  /** Posts one batch; true when the hub answered it (so it must not be sent again). */
  private boolean post(List<String> events) throws InterruptedException {
    String body = "{\"events\":[" + String.join(",", events) + "]}";
    Duration timeout = requestTimeout;
    lock.lock();
    try {
      if (closing) {
        long left = closeDeadline - System.nanoTime();
        timeout = Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(100), Math.min(left, timeout.toNanos())));
      }
    } finally {
      lock.unlock();
    }
    HubHttp.Answer a;
    try {
      a = http.call("POST", "/events", body, timeout);
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "hub unreachable: " + e);
      failed(Optional.empty());
      return false;
    }
    if (a.ok()) {
      try {
        JsonObject r = a.json();
        stats.sent.addAndGet(events.size());
        stats.accepted.addAndGet(count(r, "accepted"));
        stats.duplicates.addAndGet(count(r, "duplicates"));
        stats.rejected.addAndGet(count(r, "rejected"));
        if (count(r, "rejected") > 0) {
          LOG.log(Level.WARNING, "the hub rejected " + count(r, "rejected") + " events: " + r.get("errors"));
        }
      } catch (HubException e) {
        stats.sent.addAndGet(events.size());
      }
      succeeded();
      return true;
    }
    if (a.status() == 401) {
      unauthorized.accept(a.error());
      return false;
    }
    if (a.retryable()) {
      failed(a.retryAfter());
      return false;
    }
    // 400, 413, ...: this batch will never be taken as it is; keeping it would block the spool forever
    stats.rejected.addAndGet(events.size());
    LOG.log(Level.ERROR, "the hub refused a batch of " + events.size() + " events, dropped: " + a.error().getMessage());
    succeeded();
    return true;
  }

  private static long count(JsonObject r, String field) {
    return r.has(field) && r.get(field).isJsonPrimitive() ? r.get(field).getAsLong() : 0;
  }

  private void succeeded() {
    lock.lock();
    try {
      failures = 0;
      nextAttemptAt = System.nanoTime();
    } finally {
      lock.unlock();
    }
  }

  private void failed(Optional<Duration> retryAfter) {
    stats.retries.incrementAndGet();
    lock.lock();
    try {
      failures++;
      nextAttemptAt = System.nanoTime() + backoff.delay(failures, retryAfter).toNanos();
    } finally {
      lock.unlock();
    }
  }
}
