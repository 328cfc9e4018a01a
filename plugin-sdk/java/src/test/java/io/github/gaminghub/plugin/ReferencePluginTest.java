package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.gaminghub.plugin.example.SimulatedGameServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReferencePluginTest {
  @TempDir Path data;
  private FakeHub hub;

  @BeforeEach
  void start() throws Exception {
    hub = new FakeHub();
    hub.heartbeatInterval = 1;
  }

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void theSimulatedServerReportsItsGameAndObeysCommands() {
    try (SimulatedGameServer server = new SimulatedGameServer(hub.url(), FakeHub.TOKEN, data,
        b -> b.linger(Duration.ofMillis(50)).pollWait(Duration.ofSeconds(1)))) {
      server.join(Player.minecraft("Steve", "069a79f4-44e9-4726-a5be-fca90e38aaf5"));
      server.join(Player.steam("Gordon", "76561198000000001"));
      server.chat("Steve", "glhf");
      server.kill("Steve", "Gordon", "diamond_sword", true, 2.5);
      server.endMatch(List.of("Steve"), List.of("Gordon"), 1, 0);
      server.changeMap("arena_2");
      Await.until("six events", () -> hub.stored.size() == 6);
      assertEquals(List.of("player_session", "player_session", "chat", "kill", "match_result", "map_change"),
          hub.storedTypes());

      String say = hub.issue("say welcome to the hub");
      String kick = hub.issue("kick Steve");
      String nobody = hub.issue("kick Nobody");
      String fly = hub.issue("fly");
      Await.until("four results", () -> hub.results.size() == 4);
      assertEquals("[Server] welcome to the hub", hub.results.get(say).get("output").getAsString());
      assertEquals(List.of("[Server] welcome to the hub"), server.broadcasts());
      assertEquals("kicked Steve", hub.results.get(kick).get("output").getAsString());
      assertEquals(List.of("Gordon"), server.onlinePlayers());
      assertEquals("error", hub.results.get(nobody).get("status").getAsString());
      assertEquals("unknown command: fly", hub.results.get(fly).get("output").getAsString());
      Await.until("the kick's disconnect", () -> hub.stored.size() == 7);
      Await.until("a heartbeat with one player on arena_2", () -> hub.heartbeats.stream().anyMatch(
          h -> h.get("players").getAsInt() == 1 && h.get("map").getAsString().equals("arena_2")));
      assertEquals("simulated-game-server/1.0", hub.heartbeats.get(0).get("plugin").getAsString());
      Await.until("four results recorded", () -> server.counters().commandsRun() == 4);
      assertEquals(2, server.counters().commandsFailed());
      Await.until("heartbeats counted", () -> server.counters().heartbeats() >= 1);
    }
  }
}
