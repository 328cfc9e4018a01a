package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventPipelineTest {
  @TempDir Path spool;
  private FakeHub hub;

  @BeforeEach
  void startHub() throws Exception {
    hub = new FakeHub();
  }

  @AfterEach
  void stopHub() {
    hub.close();
  }

  private HubPlugin.Builder plugin() {
    return HubPlugin.builder(hub.url(), FakeHub.TOKEN)
        .spoolDirectory(spool)
        .withoutHeartbeat()
        .linger(Duration.ofMillis(50))
        .random(new Random(1));
  }

  private static List<HubEvent> kills(int n) {
    Player a = Player.steam("a", "76561198000000001");
    Player b = Player.steam("b", "76561198000000002");
    List<HubEvent> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(HubEvent.kill(a, b, "ak47", Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i)).withClientId("k-" + i));
    }
    return out;
  }

  @Test
  void batchesEventsWithTheirClientIds() {
    List<HubEvent> events = kills(1_200);
    try (HubPlugin p = plugin().batchSize(500).linger(Duration.ofSeconds(30)).start()) {
      events.forEach(p::emit);
      // two full batches go at once; the last 200 wait for the linger, or for close
      Await.until("two full batches", () -> hub.batches.size() == 2);
    }
    assertEquals(3, hub.batches.size(), "close flushed the rest");
    assertEquals(List.of(500, 500, 200), hub.batches.stream().map(b -> b.getAsJsonArray("events").size()).toList());
    List<String> sentIds = new ArrayList<>(hub.stored.keySet());
    assertEquals(events.stream().map(e -> e.clientId().orElseThrow()).toList(), sentIds, "in order, each once");
    assertEquals(1_200, new HashSet<>(sentIds).size());
  }

  @Test
  void countersSayWhatHappened() {
    try (HubPlugin p = plugin().start()) {
      kills(30).forEach(p::emit);
      Await.until("30 sent", () -> p.counters().sent() == 30);
      Counters c = p.counters();
      assertEquals(30, c.accepted());
      assertEquals(0, c.duplicates());
      assertEquals(0, c.spooled());
      assertEquals(0, c.dropped());
      assertEquals(0, c.queued());
      assertEquals(0, c.spoolSize());
    }
  }

  @Test
  void emitNeverWaitsForTheNetwork() {
    hub.hangMillis = 60_000; // the hub does not answer the first batch for a minute
    try (HubPlugin p = plugin().batchSize(100).flushTimeout(Duration.ofMillis(200)).start()) {
      Await.until("the first batch is on its way", () -> {
        p.emit(kills(1).get(0).withClientId("first"));
        return !hub.paths.isEmpty();
      });
      kills(5_000).forEach(p::emit);
      assertEquals(0, p.counters().sent(), "all queued while the hub still holds the first batch");
      assertTrue(p.counters().queued() >= 4_900, "queued: " + p.counters().queued());
    }
  }

  @Test
  void retriesAfter429HonouringRetryAfter() {
    hub.failEvents(1, 429, 1);
    // one batch of exactly 5, however slowly this thread runs
    try (HubPlugin p = plugin().batchSize(5).linger(Duration.ofHours(1)).start()) {
      long started = System.nanoTime();
      kills(5).forEach(p::emit);
      Await.until("delivered after the 429", () -> hub.stored.size() == 5);
      long tookMs = (System.nanoTime() - started) / 1_000_000;
      assertTrue(tookMs >= 1_000, "retried after " + tookMs + " ms, before Retry-After's 1 s");
      Await.until("counted", () -> p.counters().sent() == 5);
      assertEquals(1, p.counters().retries());
      assertEquals(5, p.counters().spooled(), "the refused batch waited in the spool");
      Await.until("its segment deleted once answered", () -> p.counters().spoolSize() == 0);
    }
  }

  @Test
  void retriesAfter5xxWithBackoff() {
    hub.failEvents(3, 503, 0);
    try (HubPlugin p = plugin().batchSize(5).linger(Duration.ofHours(1)).start()) {
      kills(5).forEach(p::emit);
      Await.until("delivered after three 503", () -> hub.stored.size() == 5);
      assertEquals(3, p.counters().retries());
      assertEquals(4, hub.paths.stream().filter(s -> s.endsWith("/events")).count());
    }
  }

  @Test
  void anOutageAndARestartLoseNothingAndCountOnce() throws Exception {
    hub.down();
    List<HubEvent> events = kills(1_234);
    try (HubPlugin p = plugin().batchSize(100).flushTimeout(Duration.ofSeconds(1)).start()) {
      events.subList(0, 600).forEach(p::emit);
      Await.until("spooled while the hub is down", () -> p.counters().spoolSize() == 600);
    }
    // the plugin restarts, still without a hub, and more happens
    try (HubPlugin p = plugin().batchSize(100).flushTimeout(Duration.ofSeconds(1)).start()) {
      assertEquals(600, p.counters().spoolSize(), "the spool survived the restart");
      events.subList(600, 1_234).forEach(p::emit);
      Await.until("all spooled", () -> p.counters().spoolSize() == 1_234);
      hub.up();
      Await.until("all delivered", () -> hub.stored.size() == 1_234);
      Await.until("spool empty", () -> p.counters().spoolSize() == 0);
      assertEquals(0, p.counters().dropped());
    }
    assertEquals(events.stream().map(e -> e.clientId().orElseThrow()).toList(), new ArrayList<>(hub.stored.keySet()),
        "oldest first, each exactly once");
  }

  @Test
  void aResentBatchCountsOnce() throws Exception {
    List<HubEvent> events = kills(10);
    try (HubPlugin p = plugin().start()) {
      events.forEach(p::emit);
      Await.until("delivered", () -> p.counters().accepted() == 10);
      events.forEach(p::emit); // as if a timeout made the plugin send them again
      Await.until("resent", () -> p.counters().sent() == 20);
      assertEquals(10, p.counters().duplicates());
    }
    assertEquals(10, hub.stored.size());
  }

  @Test
  void aFullSpoolDropsTheOldestAndCountsThem() throws Exception {
    hub.down();
    List<HubEvent> events = kills(250);
    try (HubPlugin p = plugin().batchSize(50).maxSpooledEvents(100).flushTimeout(Duration.ofMillis(200)).start()) {
      events.forEach(p::emit);
      Await.until("spooled", () -> p.counters().spooled() == 250);
      assertEquals(150, p.counters().dropped());
      assertEquals(100, p.counters().spoolSize());
      hub.up();
      Await.until("delivered", () -> hub.stored.size() == 100);
    }
    assertEquals(events.subList(150, 250).stream().map(e -> e.clientId().orElseThrow()).toList(),
        new ArrayList<>(hub.stored.keySet()), "the newest 100 survive");
  }

  @Test
  void closeSpoolsWhatTheHubCouldNotTake() throws Exception {
    hub.down();
    try (HubPlugin p = plugin().linger(Duration.ofHours(1)).flushTimeout(Duration.ofMillis(300)).start()) {
      kills(7).forEach(p::emit);
    }
    assertEquals(7, new Spool(spool, 100).size());
  }

  @Test
  void oneSpoolHasOnePlugin() {
    try (HubPlugin p = plugin().start()) {
      assertThrows(IllegalStateException.class, () -> plugin().start());
      p.emit(kills(1).get(0));
    }
    try (HubPlugin again = plugin().start()) {
      again.emit(kills(1).get(0));
    }
  }

  @Test
  void aSecondPluginLeavesTheFirstOnesSpoolAlone() throws Exception {
    HubPlugin first = plugin().start();
    try {
      // a segment the first plugin is writing (opening a spool deletes such leftovers of a crash)
      Path writing = Files.writeString(spool.resolve("000000000001.jsonl.tmp"), "{}\n");
      assertThrows(IllegalStateException.class, () -> plugin().start());
      assertTrue(Files.exists(writing), "the refused plugin did not open the spool");
    } finally {
      first.close();
    }
  }

  @Test
  void aRefusedTokenStopsEverythingAndKeepsTheEvents() throws Exception {
    hub.tokens.clear();
    List<HubException> reasons = new ArrayList<>();
    try (HubPlugin p = plugin()
        .commands(c -> CommandResult.ok("never"), Runnable::run)
        .pollWait(Duration.ofSeconds(1))
        .heartbeatInterval(Duration.ofMillis(100))
        .status(() -> new ServerStatus(1, 10, "world", "1.21"))
        .onStopped(reasons::add)
        .start()) {
      kills(3).forEach(p::emit);
      Await.until("stopped", p::isStopped);
      assertEquals("invalid_server_token", p.stopReason().code());
      assertEquals(401, p.stopReason().status());
      Thread.sleep(1_000); // a call already on its way when the token was refused lands now
      int calls = hub.paths.size();
      kills(2).forEach(p::emit);
      Thread.sleep(500);
      assertEquals(calls, hub.paths.size(), "no call after the refusal");
      assertEquals(1, reasons.size());
    }
    assertEquals(5, new Spool(spool, 100).size(), "kept for a plugin restarted with a valid token");
  }
}
