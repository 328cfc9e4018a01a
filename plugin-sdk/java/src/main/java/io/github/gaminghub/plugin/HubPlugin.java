package io.github.gaminghub.plugin;

import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * A game server's connection to a Gaming Hub: events, heartbeats and the command queue of the plugin
 * protocol, each on its own thread. Nothing here blocks the caller on the network: {@link #emit}
 * queues, {@link #updateStatus} stores, and links and token rotation answer with futures.
 *
 * <pre>{@code
 * HubPlugin hub = HubPlugin.builder(URI.create("https://hub.example.com"), token)
 *     .spoolDirectory(dataFolder.resolve("spool"))
 *     .commands(handler, mainThreadExecutor)
 *     .start();
 * hub.emit(HubEvent.playerConnect(Player.minecraft("Steve", uuid), Instant.now()));
 * ...
 * hub.close(); // flushes what is queued, spools the rest
 * }</pre>
 */
public final class HubPlugin implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.github.gaminghub.plugin");
  /** This SDK's name and version, sent in heartbeats and as the User-Agent. */
  public static final String SDK = "gaming-hub-plugin-sdk-java/0.1.0";

  private final Builder config;
  private final HubHttp http;
  private final Stats stats = new Stats();
  private final Spool spool;
  private final EventEncoder encoder;
  private final FileChannel lockChannel;
  private final FileLock spoolLock;
  private final EventSender sender;
  private final CommandLoop commandLoop;
  private final Heartbeat heartbeat;
  private final ExecutorService httpThreads;
  private final Thread senderThread;
  private final Thread commandThread;
  private final Thread heartbeatThread;
  private final AtomicReference<ServerStatus> status = new AtomicReference<>();
  private final AtomicReference<HubException> stopped = new AtomicReference<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private HubPlugin(Builder b) throws IOException {
    this.config = b;
    // the lock before the spool: opening a spool repairs it (unfinished writes are deleted), which must
    // never happen under the feet of the plugin that holds it
    Files.createDirectories(b.spoolDirectory);
    lockChannel = FileChannel.open(b.spoolDirectory.resolve(".lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = lockChannel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      lockChannel.close();
      throw new IllegalStateException("another HubPlugin uses the spool " + b.spoolDirectory);
    }
    spoolLock = lock;
    try {
      spool = new Spool(b.spoolDirectory, b.maxSpooledEvents);
    } catch (IOException | RuntimeException e) {
      lockChannel.close(); // releases the lock too
      throw e;
    }
    stats.spooled.set(spool.found());
    stats.dropped.set(spool.damaged());
    AtomicInteger n = new AtomicInteger();
    httpThreads = Executors.newCachedThreadPool(r -> daemon(r, "gaming-hub-http-" + n.incrementAndGet()));
    http = new HubHttp(b.hubUrl, b.token, SDK, b.connectTimeout, httpThreads);
    Backoff backoff = new Backoff(b.random::nextDouble);
    encoder = new EventEncoder(instanceId(b.random), Instant::now);
    sender = new EventSender(http, spool, backoff, stats, b.batchSize, b.maxBatchBytes, b.linger,
        b.maxQueuedEvents, b.requestTimeout, this::unauthorized);
    senderThread = daemon(sender, "gaming-hub-events");
    if (b.fallback != null || !b.handlers.isEmpty()) {
      commandLoop = new CommandLoop(http, b.handlers, b.fallback, b.commandExecutor, backoff, stats, b.pollWait,
          b.handlerTimeout, this::unauthorized);
      commandThread = daemon(commandLoop, "gaming-hub-commands");
    } else {
      commandLoop = null;
      commandThread = null;
    }
    if (b.heartbeat) {
      Supplier<ServerStatus> source = b.status != null ? b.status : status::get;
      heartbeat = new Heartbeat(http, source, b.pluginName, stats, b.heartbeatInterval, this::unauthorized);
      heartbeatThread = daemon(heartbeat, "gaming-hub-heartbeat");
    } else {
      heartbeat = null;
      heartbeatThread = null;
    }
  }

  /** 16 hex digits: client ids of two runs never collide. */
  private static String instanceId(RandomGenerator random) {
    return String.format("%016x", random.nextLong());
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** A builder for a hub at {@code hubUrl} (its origin, e.g. {@code https://hub.example.com}). */
  public static Builder builder(URI hubUrl, String token) {
    return new Builder(hubUrl, token);
  }

  private HubPlugin begin() {
    senderThread.start();
    if (commandThread != null) {
      commandThread.start();
    }
    if (heartbeatThread != null) {
      heartbeatThread.start();
    }
    return this;
  }

  /**
   * Queues an event for the hub. Never blocks on the network; safe from any thread, the game's main
   * thread included. After {@link #close} the event is dropped (and counted).
   */
  public void emit(HubEvent event) {
    Objects.requireNonNull(event, "event");
    emit(event.input());
  }

  /**
   * Queues an event given as JSON in the wire's field names (docs/plugin-protocol.md), checked as
   * {@link #emit(HubEvent)} checks it.
   *
   * @throws InvalidEventException when the hub would refuse it (it is not queued)
   */
  public void emit(JsonObject event) {
    String wire = encoder.encode(event).toString();
    if (closed.get()) {
      stats.dropped.incrementAndGet();
      return;
    }
    sender.offer(wire);
  }

  /**
   * Sends everything queued and spooled now and waits until the hub has it (true), or until an attempt
   * fails, the token is refused or {@code timeout} passes (false; the events stay queued or spooled and
   * are sent later). It blocks: call it from the plugin's own threads or at shutdown, never from the
   * game's main thread while it runs.
   */
  public boolean flush(Duration timeout) throws InterruptedException {
    return sender.flush(timeout);
  }

  /** The status the next heartbeat reports (when the builder was given no status supplier). */
  public void updateStatus(ServerStatus next) {
    status.set(Objects.requireNonNull(next, "status"));
  }

  /** What the SDK has done so far. */
  public Counters counters() {
    return new Counters(stats.sent.get(), stats.accepted.get(), stats.duplicates.get(), stats.rejected.get(),
        stats.spooled.get(), stats.dropped.get(), sender.queued(), spool.size(), stats.commandsRun.get(),
        stats.commandsFailed.get(), stats.commandsExpired.get(), stats.heartbeats.get(), stats.retries.get());
  }

  /**
   * Whether the hub refused the token (revoked, expired, unknown): then nothing is sent any more, and
   * events are kept in the spool for a plugin restarted with a valid token.
   */
  public boolean isStopped() {
    return stopped.get() != null;
  }

  /** Why the SDK stopped ({@link #isStopped}), or null. */
  public HubException stopReason() {
    return stopped.get();
  }

  /** The silence after which the hub shows this server offline, as its last heartbeat answer said. */
  public Duration offlineAfter() {
    return heartbeat == null ? Duration.ofSeconds(60) : heartbeat.offlineAfter();
  }

  /**
   * Links {@code player}'s identity to the hub account that created {@code code} (the player typed
   * {@code /link 7KQ-M3X}): a Minecraft or EOS player (a Steam id needs no link; the hub answers 400).
   * Completes with the outcome; fails with {@link HubException} (wrapped in a
   * {@link CompletionException}) when the hub is unreachable or answers otherwise.
   */
  public CompletableFuture<LinkResult> link(Player player, String code) {
    JsonObject body = new JsonObject();
    body.add("player", player.toJson());
    body.addProperty("code", code);
    return http.callAsync("POST", "/links", body.toString(), config.requestTimeout).thenApply(a -> {
      if (a.ok()) {
        JsonObject r = json(a);
        return new LinkResult(LinkResult.Outcome.LINKED, r.get("user_id").getAsString(),
            r.get("username").getAsString());
      }
      if (a.status() == 404) {
        return new LinkResult(LinkResult.Outcome.CODE_INVALID, null, null);
      }
      if (a.status() == 409) {
        return new LinkResult(LinkResult.Outcome.ALREADY_LINKED, null, null);
      }
      throw new CompletionException(a.error());
    });
  }

  /** A code for {@code player} to enter on the hub (the reverse of {@link #link}). */
  public CompletableFuture<LinkCode> requestLinkCode(Player player) {
    JsonObject body = new JsonObject();
    body.add("player", player.toJson());
    return http.callAsync("POST", "/link-codes", body.toString(), config.requestTimeout).thenApply(a -> {
      if (!a.ok()) {
        throw new CompletionException(a.error());
      }
      JsonObject r = json(a);
      return new LinkCode(r.get("code").getAsString(), Instant.parse(r.get("expires_at").getAsString()));
    });
  }

  /**
   * Asks the hub for a new token; the SDK switches to it at once and calls the builder's
   * {@code onTokenRotated}. The old token keeps working until {@code previousValidUntil}.
   */
  public CompletableFuture<TokenRotation> rotateToken() {
    return http.callAsync("POST", "/token/rotate", "{}", config.requestTimeout).thenApply(a -> {
      if (!a.ok()) {
        throw new CompletionException(a.error());
      }
      JsonObject r = json(a);
      TokenRotation t = new TokenRotation(r.get("token").getAsString(),
          Instant.parse(r.get("previous_valid_until").getAsString()));
      http.token(t.token());
      if (config.onTokenRotated != null) {
        config.onTokenRotated.accept(t);
      }
      return t;
    });
  }

  private static JsonObject json(HubHttp.Answer a) {
    try {
      return a.json();
    } catch (HubException e) {
      throw new CompletionException(e);
    }
  }

  private void unauthorized(HubException reason) {
    if (!stopped.compareAndSet(null, reason)) {
      return;
    }
    LOG.log(Level.ERROR, "the hub refused the server token; the hub connection is stopped: " + reason.getMessage());
    sender.halt();
    stopPolling();
    if (config.onStopped != null) {
      try {
        config.onStopped.accept(reason);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "onStopped failed: " + e);
      }
    }
  }

  /** Ends the command loop and the heartbeat (a long-poll in flight is cancelled by the interrupt). */
  private void stopPolling() {
    if (commandLoop != null) {
      commandLoop.stop();
      commandThread.interrupt();
    }
    if (heartbeat != null) {
      heartbeat.stop();
      heartbeatThread.interrupt();
    }
  }

  /**
   * Stops polling and heartbeats, sends what is queued (and spooled) for up to the builder's
   * {@code flushTimeout}, and writes what is left to the spool for the next start. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    stopPolling();
    long deadline = System.nanoTime() + config.flushTimeout.toNanos();
    sender.close(deadline);
    try {
      senderThread.join(config.flushTimeout.toMillis() + 1_000);
      if (senderThread.isAlive()) {
        senderThread.interrupt(); // the sender spools what it holds when interrupted
        senderThread.join(5_000);
      }
      if (commandThread != null) {
        commandThread.join(2_000);
      }
      if (heartbeatThread != null) {
        heartbeatThread.join(2_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      httpThreads.shutdownNow();
      try {
        spoolLock.release();
        lockChannel.close();
      } catch (IOException e) {
        LOG.log(Level.WARNING, "could not release the spool lock: " + e);
      }
    }
  }

  /** How to connect; {@link #start} opens the spool and starts the threads. */
  public static final class Builder {
    private final URI hubUrl;
    private final String token;
    private Path spoolDirectory = Path.of("gaming-hub-spool");
    private long maxSpooledEvents = 100_000;
    private int maxQueuedEvents = 100_000;
    private int batchSize = 1_000;
    private int maxBatchBytes = 1_000_000;
    private Duration linger = Duration.ofMillis(250);
    private Duration flushTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private RandomGenerator random = new SecureRandom();
    private final java.util.Map<String, CommandHandler> handlers = new java.util.HashMap<>();
    private CommandHandler fallback;
    private java.util.concurrent.Executor commandExecutor = Runnable::run;
    private Duration pollWait = Duration.ofSeconds(25);
    private Duration handlerTimeout = Duration.ofSeconds(30);
    private boolean heartbeat = true;
    private Supplier<ServerStatus> status;
    private Duration heartbeatInterval;
    private String pluginName = SDK;
    private Consumer<HubException> onStopped;
    private Consumer<TokenRotation> onTokenRotated;

    private Builder(URI hubUrl, String token) {
      this.hubUrl = Objects.requireNonNull(hubUrl, "hubUrl");
      this.token = Objects.requireNonNull(token, "token");
    }

    /**
     * Where events wait while the hub is unreachable (default {@code ./gaming-hub-spool}); one plugin
     * per directory (it is locked). Use the plugin's data folder.
     */
    public Builder spoolDirectory(Path dir) {
      this.spoolDirectory = Objects.requireNonNull(dir);
      return this;
    }

    /** The spool's bound in events (default 100,000); past it the oldest are dropped and counted. */
    public Builder maxSpooledEvents(long max) {
      this.maxSpooledEvents = positive(max, "maxSpooledEvents");
      return this;
    }

    /** The memory queue's bound (default 100,000); past it the oldest are dropped and counted. */
    public Builder maxQueuedEvents(int max) {
      this.maxQueuedEvents = (int) positive(max, "maxQueuedEvents");
      return this;
    }

    /** Events per request at most (default 1,000; the hub takes up to 10,000). */
    public Builder batchSize(int size) {
      if (size < 1 || size > 10_000) {
        throw new IllegalArgumentException("batchSize is 1 to 10,000");
      }
      this.batchSize = size;
      return this;
    }

    /** A request's body at most, in bytes (default 1,000,000); an event larger alone travels alone. */
    public Builder maxBatchBytes(int bytes) {
      this.maxBatchBytes = (int) positive(bytes, "maxBatchBytes");
      return this;
    }

    /** How long an event may wait for a fuller batch (default 250 ms). */
    public Builder linger(Duration linger) {
      this.linger = Objects.requireNonNull(linger);
      return this;
    }

    /** How long {@link #close} tries to deliver before spooling the rest (default 5 s). */
    public Builder flushTimeout(Duration timeout) {
      this.flushTimeout = Objects.requireNonNull(timeout);
      return this;
    }

    /** Per-request timeout (default 30 s; the long-poll's is its wait + 10 s). */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = Objects.requireNonNull(timeout);
      return this;
    }

    /** The source of the jitter and of the client ids' instance (tests pass a seeded one). */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random);
      return this;
    }

    /**
     * Registers the handler of the commands named {@code name} (the command line's first word, case
     * kept); a command with no handler gets the error result {@code unknown command: <name>}. Runs the
     * command loop.
     */
    public Builder command(String name, CommandHandler handler) {
      handlers.put(Objects.requireNonNull(name), Objects.requireNonNull(handler));
      return this;
    }

    /**
     * Where handlers run (default the SDK's command thread): e.g. a Paper plugin's
     * {@code r -> Bukkit.getScheduler().runTask(plugin, r)}, so they may touch the game's state; the
     * SDK's command thread waits for them, never the game.
     */
    public Builder commandExecutor(java.util.concurrent.Executor executor) {
      this.commandExecutor = Objects.requireNonNull(executor);
      return this;
    }

    /**
     * One handler for every command no {@link #command} names, run on {@code executor} (see
     * {@link #commandExecutor}). Runs the command loop.
     */
    public Builder commands(CommandHandler handler, java.util.concurrent.Executor executor) {
      this.fallback = Objects.requireNonNull(handler);
      this.commandExecutor = Objects.requireNonNull(executor);
      return this;
    }

    /** The long-poll's wait (default 25 s, 0 to 30). */
    public Builder pollWait(Duration wait) {
      if (wait.isNegative() || wait.toSeconds() > 30) {
        throw new IllegalArgumentException("pollWait is 0 to 30 s");
      }
      this.pollWait = wait;
      return this;
    }

    /** How long a handler may take before its result is an error (default 30 s). */
    public Builder handlerTimeout(Duration timeout) {
      this.handlerTimeout = Objects.requireNonNull(timeout);
      return this;
    }

    /**
     * Where heartbeats read the status, on the heartbeat thread (it must be thread-safe). Without it
     * they report what {@link HubPlugin#updateStatus} last stored, and none before the first call.
     */
    public Builder status(Supplier<ServerStatus> supplier) {
      this.status = Objects.requireNonNull(supplier);
      return this;
    }

    /** No heartbeat thread (a server the hub can query itself). */
    public Builder withoutHeartbeat() {
      this.heartbeat = false;
      return this;
    }

    /** A fixed heartbeat interval instead of the one the hub asks for. */
    public Builder heartbeatInterval(Duration interval) {
      this.heartbeatInterval = Objects.requireNonNull(interval);
      return this;
    }

    /** The {@code plugin} field of heartbeats (default this SDK's name and version). */
    public Builder pluginName(String name) {
      if (name.isEmpty() || name.length() > 64) {
        throw new IllegalArgumentException("pluginName has 1 to 64 characters");
      }
      this.pluginName = name;
      return this;
    }

    /** Called once when the hub refuses the token (then everything stops). */
    public Builder onStopped(Consumer<HubException> listener) {
      this.onStopped = Objects.requireNonNull(listener);
      return this;
    }

    /** Called with the new token after {@link HubPlugin#rotateToken}: store it. */
    public Builder onTokenRotated(Consumer<TokenRotation> listener) {
      this.onTokenRotated = Objects.requireNonNull(listener);
      return this;
    }

    /** Opens the spool (events left by the last run are sent first) and starts the threads. */
    public HubPlugin start() {
      try {
        return new HubPlugin(this).begin();
      } catch (IOException e) {
        throw new UncheckedIOException("could not open the spool " + spoolDirectory, e);
      }
    }

    private static long positive(long v, String name) {
      if (v < 1) {
        throw new IllegalArgumentException(name + " is at least 1");
      }
      return v;
    }
  }

}
