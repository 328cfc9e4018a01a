package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeartbeatAndLinksTest {
  @TempDir Path spool;
  private FakeHub hub;

  @BeforeEach
  void start() throws Exception {
    hub = new FakeHub();
  }

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void heartbeatsReportTheLatestStatusAtTheHubsInterval() throws Exception {
    hub.heartbeatInterval = 1;
    try (HubPlugin p = HubPlugin.builder(hub.url(), FakeHub.TOKEN).spoolDirectory(spool).start()) {
      Thread.sleep(300); // time enough for a wrong heartbeat to go
      assertEquals(0, hub.heartbeats.size(), "no heartbeat before the first status");
      p.updateStatus(new ServerStatus(3, 20, "world", "1.21.4"));
      Await.until("first heartbeat", () -> hub.heartbeats.size() >= 1);
      p.updateStatus(new ServerStatus(4, 20, "world_nether", "1.21.4"));
      Await.until("a heartbeat with the new status, one interval later",
          () -> hub.heartbeats.stream().anyMatch(h -> h.get("players").getAsInt() == 4));
      JsonObject last = hub.heartbeats.stream().filter(h -> h.get("players").getAsInt() == 4).findFirst().orElseThrow();
      assertEquals(4, last.get("players").getAsInt());
      assertEquals(20, last.get("max_players").getAsInt());
      assertEquals("world_nether", last.get("map").getAsString());
      assertEquals("1.21.4", last.get("version").getAsString());
      assertEquals(HubPlugin.SDK, last.get("plugin").getAsString());
      assertEquals(Duration.ofSeconds(60), p.offlineAfter());
      Await.until("counted", () -> p.counters().heartbeats() >= 2);
    }
  }

  @Test
  void heartbeatsDoNotWaitForEachOtherWhenTheHubIsDown() throws Exception {
    hub.down();
    try (HubPlugin p = HubPlugin.builder(hub.url(), FakeHub.TOKEN).spoolDirectory(spool)
        .heartbeatInterval(Duration.ofMillis(100))
        .status(() -> new ServerStatus(0, 10, "", "1.0"))
        .start()) {
      Thread.sleep(300);
      hub.up();
      Await.until("heartbeat once the hub is back", () -> p.counters().heartbeats() >= 1);
    }
  }

  @Test
  void linksAnswerWithTheirOutcome() throws Exception {
    Player steve = Player.minecraft("Steve", "069a79f4-44e9-4726-a5be-fca90e38aaf5");
    try (HubPlugin p = HubPlugin.builder(hub.url(), FakeHub.TOKEN).spoolDirectory(spool).withoutHeartbeat().start()) {
      LinkResult ok = p.link(steve, "7KQ-M3X").get();
      assertTrue(ok.linked());
      assertEquals("41", ok.userId());
      assertEquals("alice", ok.username());
      assertEquals(LinkResult.Outcome.CODE_INVALID, p.link(steve, "NOPE00").get().outcome());
      LinkResult taken = p.link(steve, "TAKEN1").get();
      assertEquals(LinkResult.Outcome.ALREADY_LINKED, taken.outcome());
      assertFalse(taken.linked());
      LinkCode code = p.requestLinkCode(steve).get();
      assertEquals("ABC-DEF", code.code());
      assertEquals(Instant.parse("2030-01-01T00:10:00Z"), code.expiresAt());
    }
  }

  @Test
  void aLinkWithTheHubUnreachableFailsWithAHubException() throws Exception {
    Player steve = Player.minecraft("Steve", "069a79f4-44e9-4726-a5be-fca90e38aaf5");
    hub.down();
    try (HubPlugin p = HubPlugin.builder(hub.url(), FakeHub.TOKEN).spoolDirectory(spool).withoutHeartbeat().start()) {
      ExecutionException failed = assertThrows(ExecutionException.class, () -> p.link(steve, "7KQ-M3X").get());
      HubException reason = assertInstanceOf(HubException.class, failed.getCause());
      assertEquals(0, reason.status());
      assertEquals("unreachable", reason.code());
    }
  }

  @Test
  void aRotatedTokenIsUsedAtOnce() throws Exception {
    List<TokenRotation> stored = new CopyOnWriteArrayList<>();
    try (HubPlugin p = HubPlugin.builder(hub.url(), FakeHub.TOKEN).spoolDirectory(spool).withoutHeartbeat()
        .linger(Duration.ofMillis(10)).onTokenRotated(stored::add).start()) {
      TokenRotation t = p.rotateToken().get();
      assertEquals(List.of(t), stored);
      assertEquals(Instant.parse("2030-01-02T00:00:00Z"), t.previousValidUntil());
      hub.tokens.remove(FakeHub.TOKEN);
      p.emit(HubEvent.mapChange("world", Instant.now()));
      Await.until("sent with the new token", () -> hub.stored.size() == 1);
      assertEquals("Bearer " + t.token(), hub.authHeaders.get(hub.authHeaders.size() - 1));
    }
  }
}
