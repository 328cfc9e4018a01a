package io.github.gaminghub.plugin;

import com.google.gson.JsonObject;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The heartbeat thread: reports the server's status at once, then every {@code heartbeat_interval_s}
 * the hub asks for (or the interval the plugin set). A failed heartbeat is not retried sooner: the
 * next one carries fresher numbers anyway, unless the hub asks for a longer pause (Retry-After).
 */
final class Heartbeat implements Runnable {
  private static final System.Logger LOG = System.getLogger("io.github.gaminghub.plugin");

  private final HubHttp http;
  private final Supplier<ServerStatus> status;
  private final String plugin;
  private final Stats stats;
  private final Duration fixedInterval;
  private final Consumer<HubException> unauthorized;
  private static final Duration NO_STATUS_YET = Duration.ofMillis(250);
  private volatile boolean running = true;
  private boolean started;
  private volatile Duration interval = Duration.ofSeconds(10);
  private volatile Duration offlineAfter = Duration.ofSeconds(60);

  Heartbeat(HubHttp http, Supplier<ServerStatus> status, String plugin, Stats stats, Duration fixedInterval,
      Consumer<HubException> unauthorized) {
    this.http = http;
    this.status = status;
    this.plugin = plugin;
    this.stats = stats;
    this.fixedInterval = fixedInterval;
    this.unauthorized = unauthorized;
  }

  void stop() {
    running = false;
  }

  /** The silence after which the hub shows the server offline, as it last said. */
  Duration offlineAfter() {
    return offlineAfter;
  }

  /**
   * When the next heartbeat goes after an answer (plugin-sdk/vectors/commands.json "heartbeat"): the
   * interval (the hub's latest {@code heartbeat_interval_s}), or a longer Retry-After; -1 to stop.
   */
  static long nextDelayMs(int status, long intervalMs, Optional<String> retryAfter) {
    if (status == 401 || status == 403) {
      return -1;
    }
    long interval = intervalMs;
    Optional<Long> hub = retryAfter.flatMap(v -> Backoff.retryAfterMs(v, java.time.Instant.now()));
    return hub.isPresent() && hub.get() > interval ? hub.get() : interval;
  }

  @Override
  public void run() {
    try {
      while (running) {
        Optional<String> retryAfter = beat();
        long interval = (fixedInterval != null ? fixedInterval : this.interval).toMillis();
        long wait = nextDelayMs(0, interval, retryAfter);
        if (!started) {
          // no status yet (updateStatus not called): look again soon, the server is starting
          wait = Math.min(wait, NO_STATUS_YET.toMillis());
        }
        Thread.sleep(wait);
      }
    } catch (InterruptedException e) {
      // closing
    }
  }

  /** Sends one heartbeat; the Retry-After of a refusal, if any. */
  private Optional<String> beat() throws InterruptedException {
    ServerStatus s;
    try {
      s = status.get();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "the status supplier failed, no heartbeat this time: " + e);
      return Optional.empty();
    }
    if (s == null) {
      return Optional.empty();
    }
    started = true;
    JsonObject body = new JsonObject();
    body.addProperty("players", s.players());
    body.addProperty("max_players", s.maxPlayers());
    body.addProperty("map", s.map());
    body.addProperty("version", s.version());
    body.addProperty("plugin", plugin);
    try {
      HubHttp.Answer a = http.call("POST", "/heartbeat", body.toString(), Duration.ofSeconds(10));
      if (a.ok()) {
        stats.heartbeats.incrementAndGet();
        JsonObject r = a.json();
        if (r.has("heartbeat_interval_s") && r.get("heartbeat_interval_s").getAsLong() > 0) {
          interval = Duration.ofSeconds(r.get("heartbeat_interval_s").getAsLong());
        }
        if (r.has("offline_after_s")) {
          offlineAfter = Duration.ofSeconds(r.get("offline_after_s").getAsLong());
        }
        return Optional.empty();
      }
      if (a.refused()) {
        unauthorized.accept(a.error());
        running = false;
        return Optional.empty();
      }
      LOG.log(Level.WARNING, "heartbeat refused: " + a.error().getMessage());
      return a.retryAfter();
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "heartbeat failed: " + e);
      return Optional.empty();
    } catch (HubException | RuntimeException e) {
      LOG.log(Level.WARNING, "could not read the heartbeat answer: " + e);
      return Optional.empty();
    }
  }
}
