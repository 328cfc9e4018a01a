package io.github.gaminghub.plugin.example;

import io.github.gaminghub.plugin.Command;
import io.github.gaminghub.plugin.CommandResult;
import io.github.gaminghub.plugin.Counters;
import io.github.gaminghub.plugin.HubEvent;
import io.github.gaminghub.plugin.HubPlugin;
import io.github.gaminghub.plugin.Player;
import io.github.gaminghub.plugin.ServerStatus;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;

/**
 * The reference plugin: a simulated game server with no logs and no remote console, connected to a
 * hub through the SDK alone. Its state lives on one "main thread", as a Minecraft server's does: the
 * game's actions run there, emit events and update the heartbeat's status; the hub's commands
 * ({@code say}, {@code kick}, {@code list}) are handed to that thread by the executor given to the SDK.
 *
 * <p>Run it against a hub: {@code HUB_URL=http://127.0.0.1:3000 HUB_TOKEN=<ingest token> sh
 * scripts/reference-plugin.sh} (README, "The reference plugin").
 */
public final class SimulatedGameServer implements AutoCloseable {
  private static final int MAX_PLAYERS = 20;
  private static final String VERSION = "simulated-1.0";

  private final ExecutorService mainThread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "server-main");
    t.setDaemon(true);
    return t;
  });
  private final Map<String, Player> online = new LinkedHashMap<>();
  private final List<String> broadcasts = new ArrayList<>();
  private final HubPlugin hub;
  private String map = "arena";

  /**
   * Starts the server and its hub connection; {@code tune} may change the SDK's settings (tests
   * shorten the waits).
   */
  public SimulatedGameServer(URI hubUrl, String token, Path dataFolder, UnaryOperator<HubPlugin.Builder> tune) {
    hub = tune.apply(HubPlugin.builder(hubUrl, token)
            .spoolDirectory(dataFolder.resolve("spool"))
            .pluginName("simulated-game-server/1.0")
            .command("say", this::say)
            .command("kick", this::kick)
            .command("list", c -> CommandResult.ok(online.size() + "/" + MAX_PLAYERS + " online: "
                + String.join(", ", online.keySet())))
            .commandExecutor(mainThread))
        .start();
    onMain(() -> {
      hub.updateStatus(status());
      return null;
    });
  }

  /** The SDK's counters, for the tests and the operator. */
  public Counters counters() {
    return hub.counters();
  }

  /** The SDK itself (links, token rotation). */
  public HubPlugin hub() {
    return hub;
  }

  /** A player joins. */
  public void join(Player p) {
    onMain(() -> {
      online.put(p.name(), p);
      hub.emit(HubEvent.playerConnect(p, Instant.now()));
      hub.updateStatus(status());
      return null;
    });
  }

  /** A player leaves. */
  public void leave(String name) {
    onMain(() -> {
      leaveOnMain(name);
      return null;
    });
  }

  /** A player says something. */
  public void chat(String name, String message) {
    onMain(() -> {
      hub.emit(HubEvent.chat(player(name), message, false, Instant.now()));
      return null;
    });
  }

  /** One player kills another. */
  public void kill(String killer, String victim, String weapon, boolean headshot, double metres) {
    onMain(() -> {
      hub.emit(HubEvent.kill(player(killer), player(victim), weapon, Instant.now(),
          new HubEvent.KillDetails(headshot, metres, null)));
      return null;
    });
  }

  /** The match ends with these teams and scores. */
  public void endMatch(List<String> team1, List<String> team2, int score1, int score2) {
    onMain(() -> {
      hub.emit(HubEvent.matchResult(map, team1.stream().map(this::player).toList(),
          team2.stream().map(this::player).toList(), score1, score2, Instant.now()));
      return null;
    });
  }

  /** The server moves to another map. */
  public void changeMap(String next) {
    onMain(() -> {
      map = next;
      hub.emit(HubEvent.mapChange(next, Instant.now()));
      hub.updateStatus(status());
      return null;
    });
  }

  /** Who is online, in joining order. */
  public List<String> onlinePlayers() {
    return onMain(() -> List.copyOf(online.keySet()));
  }

  /** What {@code say} broadcast so far. */
  public List<String> broadcasts() {
    return onMain(() -> List.copyOf(broadcasts));
  }

  /** {@code say <text>}: a broadcast; runs on the main thread (the SDK hands it over). */
  private CommandResult say(Command c) {
    if (c.arguments().isEmpty()) {
      return CommandResult.error("usage: say <message>");
    }
    broadcasts.add("[Server] " + c.arguments());
    return CommandResult.ok("[Server] " + c.arguments());
  }

  /** {@code kick <name>}: the player leaves (and the hub hears it); on the main thread. */
  private CommandResult kick(Command c) {
    if (!online.containsKey(c.arguments())) {
      throw new IllegalArgumentException("no player named " + c.arguments() + " is online");
    }
    leaveOnMain(c.arguments());
    return CommandResult.ok("kicked " + c.arguments());
  }

  private void leaveOnMain(String name) {
    Player p = online.remove(name);
    if (p != null) {
      hub.emit(HubEvent.playerDisconnect(p, Instant.now()));
      hub.updateStatus(status());
    }
  }

  private Player player(String name) {
    Player p = online.get(name);
    if (p == null) {
      throw new IllegalArgumentException(name + " is not online");
    }
    return p;
  }

  private ServerStatus status() {
    return new ServerStatus(online.size(), MAX_PLAYERS, map, VERSION);
  }

  private <T> T onMain(Callable<T> action) {
    Future<T> f = mainThread.submit(action);
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Flushes to the hub and stops the main thread. */
  @Override
  public void close() {
    hub.close();
    mainThread.shutdown();
  }

  /**
   * A short scripted session against the hub in HUB_URL with the token in HUB_TOKEN: four players
   * join, chat and fight, a match ends; then it takes commands for SIM_SECONDS (default 30) and stops.
   */
  public static void main(String[] args) throws Exception {
    String url = System.getenv("HUB_URL");
    String token = System.getenv("HUB_TOKEN");
    if (url == null || token == null) {
      System.err.println("set HUB_URL and HUB_TOKEN (the server's ingest token)");
      System.exit(2);
    }
    long seconds = Long.parseLong(System.getenv().getOrDefault("SIM_SECONDS", "30"));
    Path data = Path.of(System.getenv().getOrDefault("SIM_DATA", "simulated-server-data"));
    try (SimulatedGameServer server = new SimulatedGameServer(URI.create(url), token, data, b -> b)) {
      server.join(Player.minecraft("Steve", "069a79f4-44e9-4726-a5be-fca90e38aaf5"));
      server.join(Player.minecraft("Alex", "853c80ef-3c37-49fd-aa49-938b674adae6"));
      server.join(Player.steam("Gordon", "76561198000000001"));
      server.join(Player.steam("Alyx", "76561198000000002"));
      server.chat("Steve", "glhf");
      server.kill("Steve", "Gordon", "diamond_sword", false, 2.5);
      server.kill("Alex", "Alyx", "bow", true, 31.0);
      server.kill("Gordon", "Alex", "crowbar", false, 1.0);
      server.endMatch(List.of("Steve", "Alex"), List.of("Gordon", "Alyx"), 2, 1);
      server.changeMap("arena_2");
      System.err.println("simulated server up: 4 players online; send it `say`, `kick` or `list` through the hub");
      Thread.sleep(Duration.ofSeconds(seconds).toMillis());
      System.err.println("counters: " + server.counters());
    }
  }
}
