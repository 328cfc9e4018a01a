package io.github.gaminghub.plugin;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URLEncoder;
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
 * The command thread (plugin-sdk/vectors/commands.json): long-polls the hub for queued commands, runs
 * each through the handler registered for its name (on the plugin's executor), and posts its result,
 * which acknowledges it by id. The hub delivers a command at least once; a command seen again is not run
 * again: its remembered result is posted instead. One command at a time, in order.
 */
final class CommandLoop implements Runnable {
  private static final System.Logger LOG = System.getLogger("io.github.gaminghub.plugin");
  /** The protocol's bound on a result's output. */
  static final int MAX_OUTPUT_BYTES = 64 * 1024;
  private static final int REMEMBERED = 1_000;

  /** What to do after an answer: poll or post again after {@code delayMs}, count, forget, or stop. */
  enum Next { POLL, REPOST, COUNT_RUN, COUNT_EXPIRED, FORGET, STOP }

  record Step(Next next, long delayMs) {}

  private final HubHttp http;
  private final Map<String, CommandHandler> handlers;
  private final CommandHandler fallback;
  private final Executor executor;
  private final Backoff backoff;
  private final Stats stats;
  private final Duration pollWait;
  private final Duration handlerTimeout;
  private final Consumer<HubException> unauthorized;
  private volatile boolean running = true;
  private int failures;

  /** Results already run, by command id, oldest evicted first. */
  private final Map<String, JsonObject> done = new LinkedHashMap<>(16, 0.75f, false) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, JsonObject> eldest) {
      return size() > REMEMBERED;
    }
  };

  CommandLoop(HubHttp http, Map<String, CommandHandler> handlers, CommandHandler fallback, Executor executor,
      Backoff backoff, Stats stats, Duration pollWait, Duration handlerTimeout,
      Consumer<HubException> unauthorized) {
    this.http = http;
    this.handlers = Map.copyOf(handlers);
    this.fallback = fallback;
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

  /** A result already posted for {@code id} (tests seed it as the vectors' {@code already_ran}). */
  void remember(String id, JsonObject result) {
    synchronized (done) {
      done.put(id, result);
    }
  }

  @Override
  public void run() {
    try {
      while (running) {
        for (Command c : poll()) {
          if (!running) {
            return;
          }
          Optional<JsonObject> result = resultFor(c, Instant.now());
          if (result.isPresent()) {
            post(c, result.get());
          }
        }
      }
    } catch (InterruptedException e) {
      // closing: a command being run is left to the hub, which delivers it again
    }
  }

  /** What an answer to the long-poll means (vectors: commands.json "poll"). */
  static Step onPoll(int status, Optional<String> retryAfter, int attempt, double random, Instant now) {
    if (status == 200) {
      return new Step(Next.POLL, 0);
    }
    if (status == 401 || status == 403) {
      return new Step(Next.STOP, 0);
    }
    return new Step(Next.POLL, Backoff.delayMs(attempt, random, retryAfter, now));
  }

  /** What an answer to a posted result means (vectors: commands.json "result"). */
  static Step onResult(int status, Optional<String> retryAfter, int attempt, double random, Instant now) {
    if (status == 200) {
      return new Step(Next.COUNT_RUN, 0);
    }
    if (status == 401 || status == 403) {
      return new Step(Next.STOP, 0);
    }
    if (status == 409) {
      return new Step(Next.COUNT_EXPIRED, 0);
    }
    if (status == 0 || status == 408 || status == 429 || status >= 500) {
      return new Step(Next.REPOST, Backoff.delayMs(attempt, random, retryAfter, now));
    }
    return new Step(Next.FORGET, 0); // 404 command_not_found: another server's, or unknown
  }

  private List<Command> poll() throws InterruptedException {
    HubHttp.Answer a;
    try {
      a = http.call("GET", "/commands?wait=" + pollWait.toSeconds(), null, pollWait.plusSeconds(10));
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "command poll failed: " + e);
      pause();
      return List.of();
    }
    Step step = onPoll(a.status(), a.retryAfter(), failures + 1, backoff.draw(), Instant.now());
    if (step.next() == Next.STOP) {
      unauthorized.accept(a.error());
      running = false;
      return List.of();
    }
    if (a.status() != 200) {
      LOG.log(Level.WARNING, "command poll refused: " + a.error().getMessage());
      pause(step.delayMs());
      return List.of();
    }
    failures = 0;
    try {
      return commands(a.json());
    } catch (HubException | RuntimeException e) {
      LOG.log(Level.WARNING, "could not read the commands the hub sent: " + e);
      pause();
      return List.of();
    }
  }

  /** The commands of a 200 answer to the long-poll. */
  static List<Command> commands(JsonObject answer) {
    List<Command> out = new ArrayList<>();
    for (JsonElement e : answer.getAsJsonArray("data")) {
      JsonObject o = e.getAsJsonObject();
      out.add(new Command(o.get("id").getAsString(), o.get("command").getAsString(), instant(o, "issued_at"),
          instant(o, "expires_at")));
    }
    return out;
  }

  private static Instant instant(JsonObject o, String field) {
    try {
      return o.has(field) && !o.get(field).isJsonNull() ? Instant.parse(o.get(field).getAsString()) : null;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * The result body to post for {@code c}: the remembered one for a command delivered again, none for a
   * command already expired by {@code now} (counted), else the handler's.
   */
  Optional<JsonObject> resultFor(Command c, Instant now) throws InterruptedException {
    synchronized (done) {
      JsonObject remembered = done.get(c.id());
      if (remembered != null) {
        return Optional.of(remembered);
      }
    }
    if (c.expiresAt() != null && now.isAfter(c.expiresAt())) {
      stats.commandsExpired.incrementAndGet();
      return Optional.empty();
    }
    long started = System.nanoTime();
    CommandResult r = execute(c);
    JsonObject body = new JsonObject();
    body.addProperty("status", r.ok() ? "ok" : "error");
    body.addProperty("output", truncate(r.output()));
    body.addProperty("duration_ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    if (!r.ok()) {
      stats.commandsFailed.incrementAndGet();
    }
    remember(c.id(), body);
    return Optional.of(body);
  }

  private CommandResult execute(Command c) throws InterruptedException {
    CommandHandler handler = handlers.getOrDefault(c.name(), fallback);
    if (handler == null) {
      return CommandResult.error("unknown command: " + c.name());
    }
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
      return r == null ? CommandResult.ok("") : r;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return CommandResult.error(cause.getMessage() == null ? cause.toString() : cause.getMessage());
    } catch (TimeoutException e) {
      return CommandResult.error("the handler did not finish within " + handlerTimeout.toMillis() + " ms");
    }
  }

  private void post(Command c, JsonObject body) throws InterruptedException {
    String path = "/commands/" + URLEncoder.encode(c.id(), StandardCharsets.UTF_8) + "/result";
    for (int attempt = 1; running; attempt++) {
      HubHttp.Answer a = null;
      try {
        a = http.call("POST", path, body.toString(), Duration.ofSeconds(15));
      } catch (IOException e) {
        LOG.log(Level.DEBUG, "posting a result failed: " + e);
      }
      Optional<String> retryAfter = a == null ? Optional.empty() : a.retryAfter();
      Step step = onResult(a == null ? 0 : a.status(), retryAfter, attempt, backoff.draw(), Instant.now());
      switch (step.next()) {
        case COUNT_RUN -> {
          stats.commandsRun.incrementAndGet();
          return;
        }
        case COUNT_EXPIRED -> {
          stats.commandsExpired.incrementAndGet();
          return;
        }
        case STOP -> {
          unauthorized.accept(a.error());
          running = false;
          return;
        }
        case REPOST -> {
          stats.retries.incrementAndGet();
          Thread.sleep(step.delayMs());
        }
        default -> {
          LOG.log(Level.INFO, "result of command " + c.id() + " refused: " + a.code());
          return;
        }
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

  /** After a poll with no usable answer (unreachable, unreadable): the backoff of one more failure in a row. */
  private void pause() throws InterruptedException {
    pause(backoff.delay(failures + 1, Optional.empty()).toMillis());
  }

  private void pause(long delayMs) throws InterruptedException {
    stats.retries.incrementAndGet();
    failures++;
    Thread.sleep(delayMs);
  }
}
