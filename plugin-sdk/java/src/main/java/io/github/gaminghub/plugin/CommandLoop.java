package io.github.gaminghub.plugin;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The command thread: long-polls the hub for queued commands, runs each through the handler (on the
 * plugin's executor), and posts its result, which acknowledges it by id. The hub delivers a command
 * at least once; a command seen again is not run again: its remembered result is posted instead.
 */
final class CommandLoop implements Runnable {
  private static final System.Logger LOG = System.getLogger("io.github.gaminghub.plugin");
  /** The protocol's bound on a result's output. */
  static final int MAX_OUTPUT_BYTES = 64 * 1024;
  private static final int REMEMBERED = 1_000;

  private final HubHttp http;
  private final CommandHandler handler;
  private final Executor executor;
  private final Backoff backoff;
  private final Stats stats;
  private final Duration pollWait;
  private final Duration handlerTimeout;
  private final Consumer<HubException> unauthorized;
  private volatile boolean running = true;
  private int failures;

  /** Results already run, by command id, oldest evicted first. */
  private final Map<String, CommandResult> done = new LinkedHashMap<>(16, 0.75f, false) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, CommandResult> eldest) {
      return size() > REMEMBERED;
    }
  };

  CommandLoop(HubHttp http, CommandHandler handler, Executor executor, Backoff backoff, Stats stats,
      Duration pollWait, Duration handlerTimeout, Consumer<HubException> unauthorized) {
    this.http = http;
    this.handler = handler;
    this.executor = executor;
    this.backoff = backoff;
    this.stats = stats;
    this.pollWait = pollWait;
    this.handlerTimeout = handlerTimeout;
    this.unauthorized = unauthorized;
  }

  void stop() {
    running = false;
  }

  @Override
  public void run() {
    try {
      while (running) {
        List<Command> commands = poll();
        for (Command c : commands) {
          if (!running) {
            return;
          }
          run(c);
        }
      }
    } catch (InterruptedException e) {
      // closing: a command being run is left to the hub, which delivers it again
    }
  }

  private List<Command> poll() throws InterruptedException {
    HubHttp.Answer a;
    try {
      a = http.call("GET", "/commands?wait=" + pollWait.toSeconds(), null, pollWait.plusSeconds(15));
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "command poll failed: " + e);
      pause(Optional.empty());
      return List.of();
    }
    if (a.status() == 401) {
      unauthorized.accept(a.error());
      running = false;
      return List.of();
    }
    if (!a.ok()) {
      LOG.log(Level.WARNING, "command poll refused: " + a.error().getMessage());
      pause(a.retryAfter());
      return List.of();
    }
    failures = 0;
    try {
      List<Command> out = new ArrayList<>();
      for (JsonElement e : a.json().getAsJsonArray("data")) {
        JsonObject o = e.getAsJsonObject();
        out.add(new Command(o.get("id").getAsString(), o.get("command").getAsString(), instant(o, "issued_at"),
            instant(o, "expires_at")));
      }
      return out;
    } catch (HubException | RuntimeException e) {
      LOG.log(Level.WARNING, "could not read the commands the hub sent: " + e);
      pause(Optional.empty());
      return List.of();
    }
  }

  private static Instant instant(JsonObject o, String field) {
    try {
      return o.has(field) && !o.get(field).isJsonNull() ? Instant.parse(o.get(field).getAsString()) : null;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private void run(Command c) throws InterruptedException {
    CommandResult result;
    long started = System.nanoTime();
    synchronized (done) {
      result = done.get(c.id());
    }
    if (result == null) {
      result = execute(c);
      stats.commandsRun.incrementAndGet();
      if (!result.ok()) {
        stats.commandsFailed.incrementAndGet();
      }
      synchronized (done) {
        done.put(c.id(), result);
      }
    }
    postResult(c, result, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  private CommandResult execute(Command c) throws InterruptedException {
    CompletableFuture<CommandResult> f = new CompletableFuture<>();
    try {
      executor.execute(() -> {
        try {
          f.complete(handler.handle(c));
        } catch (Exception | Error e) {
          f.completeExceptionally(e);
        }
      });
    } catch (RuntimeException rejected) {
      return CommandResult.error("the game did not take the command: " + rejected);
    }
    try {
      CommandResult r = f.get(handlerTimeout.toMillis(), TimeUnit.MILLISECONDS);
      return r == null ? CommandResult.error("the handler returned no result") : r;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return CommandResult.error(cause.getMessage() == null ? cause.toString() : cause.getMessage());
    } catch (TimeoutException e) {
      return CommandResult.error("the handler did not finish within " + handlerTimeout.toMillis() + " ms");
    }
  }

  private void postResult(Command c, CommandResult r, long durationMs) throws InterruptedException {
    JsonObject body = new JsonObject();
    body.addProperty("status", r.ok() ? "ok" : "error");
    body.addProperty("output", truncate(r.output()));
    body.addProperty("duration_ms", durationMs);
    String path = "/commands/" + java.net.URLEncoder.encode(c.id(), StandardCharsets.UTF_8) + "/result";
    for (int attempt = 1; running; attempt++) {
      try {
        HubHttp.Answer a = http.call("POST", path, body.toString(), Duration.ofSeconds(10));
        if (a.ok()) {
          return;
        }
        if (a.status() == 401) {
          unauthorized.accept(a.error());
          running = false;
          return;
        }
        if (a.status() == 404 || a.status() == 409) {
          // expired or not ours: the hub has told the caller already; nothing left to deliver
          LOG.log(Level.INFO, "result of command " + c.id() + " refused: " + a.code());
          return;
        }
        if (!a.retryable()) {
          LOG.log(Level.WARNING, "result of command " + c.id() + " refused: " + a.error().getMessage());
          return;
        }
        stats.retries.incrementAndGet();
        Thread.sleep(backoff.delay(attempt, a.retryAfter()).toMillis());
      } catch (IOException e) {
        stats.retries.incrementAndGet();
        Thread.sleep(backoff.delay(attempt, Optional.empty()).toMillis());
      }
      if (c.expiresAt() != null && Instant.now().isAfter(c.expiresAt())) {
        LOG.log(Level.INFO, "command " + c.id() + " expired before its result could be delivered");
        return;
      }
    }
  }

  /** At most 64 KiB of UTF-8, cut on a character boundary. */
  static String truncate(String output) {
    byte[] bytes = output.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= MAX_OUTPUT_BYTES) {
      return output;
    }
    int end = MAX_OUTPUT_BYTES;
    while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
      end--; // not inside a multi-byte sequence
    }
    return new String(bytes, 0, end, StandardCharsets.UTF_8);
  }

  private void pause(Optional<Duration> retryAfter) throws InterruptedException {
    stats.retries.incrementAndGet();
    failures++;
    Thread.sleep(backoff.delay(failures, retryAfter).toMillis());
  }
}
