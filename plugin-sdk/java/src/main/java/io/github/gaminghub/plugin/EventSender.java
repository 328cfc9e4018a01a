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
  private final int maxBatchBytes;
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
  private boolean flushing;
  private long failuresTotal;

  EventSender(HubHttp http, Spool spool, Backoff backoff, Stats stats, int batchSize, int maxBatchBytes,
      Duration linger, int maxQueued, Duration requestTimeout, Consumer<HubException> unauthorized) {
    this.http = http;
    this.spool = spool;
    this.backoff = backoff;
    this.stats = stats;
    this.batchSize = batchSize;
    this.maxBatchBytes = maxBatchBytes;
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

  /**
   * Sends what is queued and spooled now, without waiting for the linger, and waits until the hub has
   * it all (true), or an attempt fails or the token is refused (false), or {@code timeout} passes.
   */
  boolean flush(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long failuresBefore;
    lock.lock();
    try {
      flushing = true;
      failuresBefore = failuresTotal;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
    try {
      while (System.nanoTime() - deadline < 0) {
        lock.lock();
        try {
          if (halted || failuresTotal > failuresBefore) {
            return false;
          }
          if (queue.isEmpty() && inFlight.isEmpty() && spool.size() == 0) {
            return true;
          }
        } finally {
          lock.unlock();
        }
        Thread.sleep(10);
      }
      return false;
    } finally {
      lock.lock();
      try {
        flushing = false;
      } finally {
        lock.unlock();
      }
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
      List<String> rest;
      lock.lock();
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
        boolean due = queue.size() >= batchSize || (!queue.isEmpty() && (flushing || now - oldestQueuedAt >= lingerNanos));
        if (waiting || spool.size() > 0) {
          // while the spool holds anything, due batches join it: events reach the hub in order
          if (due) {
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

  /** Up to {@code n} queued events; a batch to send also stops at {@code maxBatchBytes} of body. */
  private List<String> drain(int n) {
    List<String> out = new ArrayList<>(Math.min(n, queue.size()));
    if (n == batchSize) {
      int take = cut(queue.stream().limit(n).map(EventSender::utf8Length).toList(), batchSize, maxBatchBytes);
      n = Math.max(1, take);
    }
    while (out.size() < n && !queue.isEmpty()) {
      out.add(queue.pollFirst());
    }
    oldestQueuedAt = System.nanoTime();
    inFlight = out;
    return out;
  }

  /**
   * How many of the events (their UTF-8 sizes, oldest first) the next batch takes
   * (plugin-sdk/vectors/batching.json): greedily, at most {@code maxEvents} and a body
   * {@code {"events":[...]}} of at most {@code maxBytes}; an event too large alone travels alone.
   */
  static int cut(List<Integer> sizes, int maxEvents, long maxBytes) {
    long body = 13;
    int n = 0;
    for (int size : sizes) {
      long next = body + size + (n > 0 ? 1 : 0);
      if (n == maxEvents || (n > 0 && next > maxBytes)) {
        break;
      }
      body = next;
      n++;
    }
    return n;
  }

  private static int utf8Length(String s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /** What an answer to a batch means (plugin-sdk/vectors/batching.json "answers"); 0 for no answer. */
  enum Action { DONE, RETRY, DROP, STOP }

  static Action action(int status) {
    if (status >= 200 && status < 300) {
      return Action.DONE;
    }
    if (status == 401 || status == 403) {
      return Action.STOP;
    }
    if (status == 0 || status == 404 || status == 408 || status == 429 || status >= 500 || status < 400) {
      return Action.RETRY; // a proxy, a hub being deployed, a timeout: the events are not lost
    }
    return Action.DROP; // 400, 413, 415, 422: this batch can never succeed as it is
  }

  private void toSpool(List<String> events) {
    if (events.isEmpty()) {
      return;
    }
    List<Integer> sizes = events.stream().map(EventSender::utf8Length).toList();
    for (int from = 0; from < events.size(); ) {
      int n = Math.max(1, cut(sizes.subList(from, sizes.size()), batchSize, maxBatchBytes));
      List<String> part = events.subList(from, from + n);
      from += n;
      try {
        long dropped = spool.append(part);
        stats.dropped.addAndGet(dropped);
        stats.spooled.addAndGet(part.size()); // last: readers wait on it
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
    switch (action(a.status())) {
      case DONE -> {
        try {
          JsonObject r = a.json();
          stats.accepted.addAndGet(count(r, "accepted"));
          stats.duplicates.addAndGet(count(r, "duplicates"));
          stats.rejected.addAndGet(count(r, "rejected"));
          stats.sent.addAndGet(count(r, "accepted") + count(r, "duplicates")); // last: readers wait on it
          if (count(r, "rejected") > 0) {
            LOG.log(Level.WARNING, "the hub rejected " + count(r, "rejected") + " events: " + r.get("errors"));
          }
        } catch (HubException e) {
          LOG.log(Level.WARNING, "the hub's answer to a batch was not JSON; the batch is settled");
        }
        succeeded();
        return true;
      }
      case STOP -> {
        unauthorized.accept(a.error());
        return false;
      }
      case RETRY -> {
        failed(a.retryAfter());
        return false;
      }
      default -> {
        stats.dropped.addAndGet(events.size());
        LOG.log(Level.ERROR, "the hub refused a batch of " + events.size() + " events, dropped: "
            + a.error().getMessage());
        succeeded();
        return true;
      }
    }
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

  private void failed(Optional<String> retryAfter) {
    stats.retries.incrementAndGet();
    lock.lock();
    try {
      failures++;
      failuresTotal++;
      nextAttemptAt = System.nanoTime() + backoff.delay(failures, retryAfter).toNanos();
    } finally {
      lock.unlock();
    }
  }
}
