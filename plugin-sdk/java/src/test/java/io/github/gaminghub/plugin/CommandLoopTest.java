package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLoopTest {
  @TempDir Path spool;
  private FakeHub hub;
  private ExecutorService gameThread;
  private final List<String> ranOn = new CopyOnWriteArrayList<>();
  private final List<String> ran = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    hub = new FakeHub();
    gameThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "game-main"));
  }

  @AfterEach
  void stop() {
    hub.close();
    gameThread.shutdownNow();
  }

  private HubPlugin plugin(CommandHandler handler) {
    return HubPlugin.builder(hub.url(), FakeHub.TOKEN)
        .spoolDirectory(spool)
        .withoutHeartbeat()
        .pollWait(Duration.ofSeconds(1))
        .handlerTimeout(Duration.ofSeconds(2))
        .random(new Random(1))
        .commands(c -> {
          ranOn.add(Thread.currentThread().getName());
          ran.add(c.command());
          return handler.handle(c);
        }, gameThread)
        .start();
  }

  @Test
  void runsCommandsOnTheGamesThreadAndPostsTheirResults() {
    try (HubPlugin p = plugin(c -> CommandResult.ok("said " + c.arguments()))) {
      String id = hub.issue("say hello world");
      Await.until("result", () -> hub.results.containsKey(id));
      assertEquals("ok", hub.results.get(id).get("status").getAsString());
      assertEquals("said hello world", hub.results.get(id).get("output").getAsString());
      assertTrue(hub.results.get(id).get("duration_ms").getAsLong() >= 0);
      assertEquals(List.of("game-main"), ranOn);
      Await.until("counted once the hub recorded it", () -> p.counters().commandsRun() == 1);
      assertTrue(hub.paths.contains("POST /api-platform/ingest/commands/" + id + "/result"));
    }
  }

  @Test
  void aRedeliveredCommandIsNotRunTwice() {
    try (HubPlugin p = plugin(c -> CommandResult.ok("kicked"))) {
      String id = hub.issue("kick Steve");
      Await.until("result", () -> hub.results.containsKey(id));
      hub.redeliver(id);
      Await.until("second result post", () -> hub.resultPosts.get() == 2);
      assertEquals(List.of("kick Steve"), ran, "run once, acknowledged twice");
      Await.until("results the hub recorded, the resent one included", () -> p.counters().commandsRun() == 2);
    }
  }

  @Test
  void failuresBecomeErrorResults() {
    try (HubPlugin p = plugin(c -> {
      switch (c.name()) {
        case "boom" -> throw new IllegalStateException("no such player");
        case "slow" -> {
          Thread.sleep(5_000);
          return CommandResult.ok("late");
        }
        default -> {
          return CommandResult.error("no such command " + c.name());
        }
      }
    })) {
      String boom = hub.issue("boom");
      String other = hub.issue("fly");
      String slow = hub.issue("slow");
      Await.until("three results", () -> hub.results.size() == 3);
      assertEquals("error", hub.results.get(boom).get("status").getAsString());
      assertEquals("no such player", hub.results.get(boom).get("output").getAsString());
      assertEquals("no such command fly", hub.results.get(other).get("output").getAsString());
      assertTrue(hub.results.get(slow).get("output").getAsString().contains("did not finish"));
      assertEquals(3, p.counters().commandsFailed());
    }
  }

  @Test
  void outputIsCutAt64KiBOnACharacterBoundary() {
    String big = "é".repeat(40_000); // 80,000 bytes of UTF-8
    String cut = CommandLoop.truncate(big);
    assertEquals(32_768, cut.length());
    assertTrue(cut.getBytes(StandardCharsets.UTF_8).length <= 65_536);
    assertEquals("short", CommandLoop.truncate("short"));
  }

  @Test
  void handlersAreChosenByName() throws Exception {
    try (HubPlugin p = HubPlugin.builder(hub.url(), FakeHub.TOKEN).spoolDirectory(spool).withoutHeartbeat()
        .pollWait(Duration.ofSeconds(1))
        .command("say", c -> CommandResult.ok("said " + c.arguments()))
        .commandExecutor(gameThread)
        .start()) {
      String say = hub.issue("say  hi there ");
      String other = hub.issue("Say hi");
      Await.until("two results", () -> hub.results.size() == 2);
      assertEquals("said hi there", hub.results.get(say).get("output").getAsString());
      assertEquals("unknown command: Say", hub.results.get(other).get("output").getAsString());
      assertEquals(1, p.counters().commandsFailed());
    }
  }
}
