package io.github.gaminghub.plugin.live;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.github.gaminghub.plugin.HubEvent;
import io.github.gaminghub.plugin.HubPlugin;
import io.github.gaminghub.plugin.LinkResult;
import io.github.gaminghub.plugin.Player;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Java SDK's implementation of plugin-sdk/scenarios.json against the hub of `npm run test:plugins`:
 * one JSON line per scenario on stdout (logs on stderr). Run by scripts/scenarios.sh.
 */
public final class LiveScenarios {
  private static final Duration FLUSH = Duration.ofSeconds(30);

  private final Fixture fixture;

  private LiveScenarios(Fixture fixture) {
    this.fixture = fixture;
  }

  interface Scenario {
    void run() throws Exception;
  }

  public static void main(String[] args) throws Exception {
    Fixture fixture = new Fixture();
    LiveScenarios s = new LiveScenarios(fixture);
    Map<String, Scenario> implemented = Map.of(
        "events_once_across_outage", s::eventsOnceAcrossOutage,
        "events_once_across_plugin_restart", s::eventsOnceAcrossPluginRestart,
        "revoked_token_stops", s::revokedTokenStops,
        "command_round_trip", s::commandRoundTrip,
        "offline_command_expires", s::offlineCommandExpires,
        "heartbeat_online_offline", s::heartbeatOnlineOffline,
        "linked_identity_progress", s::linkedIdentityProgress);
    List<String> only = List.of(args);
    for (Fixture.Scenario scenario : fixture.scenarios) {
      if (!only.isEmpty() && !only.contains(scenario.name())) {
        continue;
      }
      long started = System.nanoTime();
      JsonObject line = new JsonObject();
      line.addProperty("scenario", scenario.name());
      Scenario impl = implemented.get(scenario.name());
      if (scenario.skip() != null || impl == null) {
        line.addProperty("status", "skip");
        line.addProperty("reason", scenario.skip() != null ? scenario.skip() : "not implemented in Java");
      } else {
        try {
          impl.run();
          line.addProperty("status", "pass");
        } catch (Exception | AssertionError e) {
          StringWriter trace = new StringWriter();
          e.printStackTrace(new PrintWriter(trace));
          line.addProperty("status", "fail");
          line.addProperty("error", trace.toString());
        }
      }
      line.addProperty("ms", (System.nanoTime() - started) / 1_000_000);
      System.out.println(line);
      System.out.flush();
    }
    System.exit(0); // the SDK's threads are daemons; the HTTP client's selector may linger
  }

  private HubPlugin.Builder plugin(String server, Path spool) {
    return HubPlugin.builder(fixture.hubUrl, fixture.server(server).token())
        .spoolDirectory(spool)
        .pluginName("scenarios-java/1")
        .withoutHeartbeat()
        .requestTimeout(Duration.ofSeconds(10));
  }

  /** Kills between two Steam players of the scenario's own, dated just now (inside the ingest window). */
  private static void kills(HubPlugin p, int n, long base) {
    Player killer = Player.steam("scenario killer", String.valueOf(76561198000000000L + base));
    Player victim = Player.steam("scenario victim", String.valueOf(76561198000000000L + base + 1));
    for (int i = 0; i < n; i++) {
      p.emit(HubEvent.kill(killer, victim, "rifle.ak", Instant.now().minusSeconds(1)));
    }
  }

  private void eventsOnceAcrossOutage() throws Exception {
    long id = fixture.server("outage").id();
    HubPlugin p = plugin("outage", fixture.spoolDir("outage")).start();
    try {
      kills(p, 40, 1000);
      Fixture.check(p.flush(FLUSH), "the first 40 reach the hub");
      Fixture.same(40, p.counters().sent(), "sent");
      Fixture.same(40, fixture.kills(id), "kills stored");
      fixture.stopHub();
      kills(p, 60, 1000);
      Fixture.check(!p.flush(FLUSH), "the hub is down: the flush does not complete");
      Fixture.until("the 60 in the spool", () -> p.counters().spooled() >= 60);
      Fixture.same(40, p.counters().sent(), "sent while the hub is down");
      fixture.startHub();
      Fixture.until("the spool to drain", () -> p.counters().spoolSize() == 0 && p.counters().sent() == 100);
      Fixture.same(100, fixture.kills(id), "stored exactly once");
      Fixture.same(0, p.counters().dropped(), "dropped");
    } finally {
      fixture.startHub();
      p.close();
    }
  }

  private void eventsOnceAcrossPluginRestart() throws Exception {
    long id = fixture.server("restart").id();
    Path dir = fixture.spoolDir("restart");
    fixture.stopHub();
    try {
      HubPlugin first = plugin("restart", dir).flushTimeout(Duration.ofSeconds(2)).start();
      kills(first, 30, 2000);
      first.close();
      Fixture.same(30, first.counters().spooled(), "closed with the hub down: all 30 spooled");
      fixture.startHub();
      Path aside = fixture.spoolDir("restart-copy");
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
          Files.copy(f, aside.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      HubPlugin second = plugin("restart", dir).start();
      Fixture.same(30, second.counters().spooled(), "the spool survived the restart");
      kills(second, 10, 2000);
      Fixture.check(second.flush(FLUSH), "the 40 reach the hub");
      second.close();
      Fixture.same(40, second.counters().sent(), "sent");
      Fixture.same(40, fixture.kills(id), "kills stored");
      Fixture.same(0, segments(dir), "segments left in the spool");
      // a crash after sending and before deleting: the same 30 are sent again
      HubPlugin third = plugin("restart", aside).start();
      Fixture.check(third.flush(FLUSH), "the copy reaches the hub");
      third.close();
      Fixture.same(30, third.counters().duplicates(), "the hub counted them as duplicates");
      Fixture.same(40, fixture.kills(id), "still stored once");
    } finally {
      fixture.startHub();
    }
  }

  private static long segments(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".jsonl")).count();
    }
  }

  private void revokedTokenStops() throws Exception {
    long id = fixture.server("revoked").id();
    boolean[] told = new boolean[1];
    HubPlugin p = plugin("revoked", fixture.spoolDir("revoked")).onStopped(e -> told[0] = true).start();
    try {
      kills(p, 5, 3000);
      Fixture.check(p.flush(FLUSH), "the first 5 reach the hub");
      Fixture.same(5, p.counters().sent(), "sent");
      fixture.removeServer(id);
      kills(p, 5, 3000);
      Fixture.check(!p.flush(FLUSH), "a refused token: the flush does not complete");
      Fixture.check(p.isStopped(), "the SDK reports it stopped");
      Fixture.check(told[0], "onStopped was called");
      Fixture.check(p.stopReason().status() == 401 || p.stopReason().status() == 403, "stopped by 401/403");
      Fixture.same(5, p.counters().sent(), "nothing more was sent");
      Fixture.until("the 5 in the spool", () -> p.counters().spoolSize() == 5);
      Fixture.same(5, fixture.kills(id), "kills stored");
    } finally {
      p.close();
    }
  }

  /** The answer's resource: {@code body.data} when the hub wraps it, else the body. */
  private static JsonObject data(JsonObject answer) {
    JsonObject body = answer.getAsJsonObject("body");
    return body.has("data") && body.get("data").isJsonObject() ? body.getAsJsonObject("data") : body;
  }

  private void commandRoundTrip() throws Exception {
    long id = fixture.server("commands").id();
    HubPlugin p = plugin("commands", fixture.spoolDir("commands"))
        .pollWait(Duration.ofSeconds(5))
        .command("say", c -> io.github.gaminghub.plugin.CommandResult.ok("said: " + c.arguments()))
        .command("fail", c -> {
          throw new IllegalStateException("it failed: " + c.arguments());
        })
        .start();
    try {
      JsonObject said = fixture.command(id, "say hello", 10_000);
      Fixture.same(200, said.get("status").getAsLong(), "the caller got the answer in time: " + said);
      Fixture.check("ok".equals(data(said).get("status").getAsString()), "status ok: " + said);
      Fixture.check("said: hello".equals(data(said).get("output").getAsString()), "the output came back: " + said);
      Fixture.until("commands_run = 1", () -> p.counters().commandsRun() == 1);
      JsonObject failed = fixture.command(id, "fail now", 10_000);
      Fixture.same(200, failed.get("status").getAsLong(), "answered: " + failed);
      Fixture.check("error".equals(data(failed).get("status").getAsString()), "status error: " + failed);
      Fixture.check("it failed: now".equals(data(failed).get("output").getAsString()), "its message: " + failed);
    } finally {
      p.close();
    }
  }

  private void offlineCommandExpires() throws Exception {
    long id = fixture.server("expiry").id();
    JsonObject queued = fixture.command(id, "say nobody", 0);
    Fixture.same(202, queued.get("status").getAsLong(), "no plugin: 202: " + queued);
    String commandId = data(queued).get("id").getAsString();
    Fixture.check("pending".equals(data(queued).get("status").getAsString()), "pending: " + queued);
    Fixture.until("the command expired", () -> {
      try {
        return "expired".equals(data(fixture.commandStatus(id, commandId)).get("status").getAsString());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    java.util.List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
    HubPlugin p = plugin("expiry", fixture.spoolDir("expiry"))
        .pollWait(Duration.ofSeconds(1))
        .command("say", c -> {
          ran.add(c.id());
          return io.github.gaminghub.plugin.CommandResult.ok("late");
        })
        .start();
    try {
      Thread.sleep(3_000); // two long-polls at least
      Fixture.check(ran.isEmpty(), "an expired command is never run: " + ran);
    } finally {
      p.close();
    }
  }

  private void linkedIdentityProgress() throws Exception {
    HubPlugin p = plugin("links", fixture.spoolDir("links")).start();
    try {
      JsonObject issued = fixture.linkCode();
      JsonElement code = data(issued).get("code");
      Fixture.check(code != null && code.isJsonPrimitive(), "a link code: " + issued);
      // not the TypeScript scenario's player: each language links an identity of its own
      Player notch = Player.minecraft("Notch", "d2a1c3e4-5b6f-4a7b-8c9d-0e1f2a3b4c5d");
      LinkResult linked = p.link(notch, code.getAsString()).get(30, TimeUnit.SECONDS);
      Fixture.check(linked.linked(), "linked with " + code + ": " + linked);
      String statsPath = "/v1/users/" + linked.userId() + "/stats";
      JsonObject before = data(fixture.v1(statsPath));
      Player unlinked = Player.minecraft("Jeb", "4f7e8d9c-0b1a-4c2d-9e3f-5a6b7c8d9e0f");
      for (int i = 0; i < 3; i++) {
        p.emit(HubEvent.kill(notch, unlinked, "diamond_sword", Instant.now().minusSeconds(1)));
      }
      Fixture.check(p.flush(FLUSH), "the kills reach the hub");
      // the stats route is cached for a moment: poll until the kills show
      Fixture.until("the linked user to be credited 3 kills", () -> {
        try {
          return combatKills(data(fixture.v1(statsPath))) == combatKills(before) + 3;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, Duration.ofMillis(500));
      long xp = data(fixture.v1(statsPath)).get("total_xp").getAsLong();
      Fixture.check(xp > before.get("total_xp").getAsLong(), "the linked user gained XP: " + xp + " after "
          + before.get("total_xp"));
    } finally {
      p.close();
    }
  }

  /** The kills of a user's stats, summed over its games. */
  private static long combatKills(JsonObject stats) {
    long kills = 0;
    for (JsonElement game : stats.getAsJsonArray("combat")) {
      kills += game.getAsJsonObject().get("kills").getAsLong();
    }
    return kills;
  }

  private void heartbeatOnlineOffline() throws Exception {
    long id = fixture.server("heartbeat").id();
    Fixture.check(!online(row(id)), "offline before any heartbeat");
    HubPlugin p = HubPlugin.builder(fixture.hubUrl, fixture.server("heartbeat").token())
        .spoolDirectory(fixture.spoolDir("heartbeat"))
        .pluginName("scenarios-java/1")
        .status(() -> new io.github.gaminghub.plugin.ServerStatus(3, 20, "arena", "1.0"))
        .start();
    try {
      Fixture.until("online with 3/20 on arena", () -> {
        try {
          JsonObject s = row(id);
          return online(s) && s.get("players").getAsInt() == 3 && s.get("max_players").getAsInt() == 20
              && "arena".equals(s.get("map").getAsString());
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
    } finally {
      p.close();
    }
    long deadline = System.nanoTime() + p.offlineAfter().plusSeconds(60).toNanos();
    while (online(row(id))) {
      Fixture.check(System.nanoTime() < deadline, "offline after " + p.offlineAfter() + " of silence");
      Thread.sleep(2_000); // each read spends the owner's hourly quota, which later scenarios need too
    }
  }

  /** The server's live status ({@code /v1/servers/N/status}), as the poller and the heartbeats keep it. */
  private JsonObject row(long id) throws Exception {
    return data(fixture.v1("/v1/servers/" + id + "/status"));
  }

  private static boolean online(JsonObject server) {
    String status = server.get("status").getAsString();
    return status.equals("running") || status.equals("online");
  }
}
