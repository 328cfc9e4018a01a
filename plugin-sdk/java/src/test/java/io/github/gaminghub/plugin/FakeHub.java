package io.github.gaminghub.plugin;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hub side of the plugin protocol, in memory, for the SDK's unit tests: it dedupes events by client
 * id, queues commands, records results exactly once, answers heartbeats and links, and can fail on
 * purpose (a status with Retry-After, a hang, going away and coming back on the same port).
 */
final class FakeHub implements AutoCloseable {
  static final String TOKEN = "12345678901234567890123456789012";

  private HttpServer server;
  private final int port;
  final Set<String> tokens = Collections.synchronizedSet(new HashSet<>(Set.of(TOKEN)));
  final List<JsonObject> batches = new CopyOnWriteArrayList<>();
  final Map<String, JsonObject> stored = Collections.synchronizedMap(new LinkedHashMap<>());
  final List<JsonObject> heartbeats = new CopyOnWriteArrayList<>();
  final List<String> authHeaders = new CopyOnWriteArrayList<>();
  final List<String> paths = new CopyOnWriteArrayList<>();
  final Map<String, JsonObject> results = Collections.synchronizedMap(new LinkedHashMap<>());
  final AtomicInteger resultPosts = new AtomicInteger();
  private final ArrayDeque<JsonObject> pending = new ArrayDeque<>();
  private final Map<String, JsonObject> issued = new LinkedHashMap<>();
  private final ArrayDeque<int[]> failures = new ArrayDeque<>();
  volatile long hangMillis;
  volatile int heartbeatInterval = 10;

  FakeHub() throws IOException {
    server = bind(0);
    port = server.getAddress().getPort();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The next {@code n} calls to {@code /events} answer {@code status}, with Retry-After when > 0. */
  synchronized void failEvents(int n, int status, int retryAfter) {
    for (int i = 0; i < n; i++) {
      failures.add(new int[] {status, retryAfter});
    }
  }

  /** Stops listening: connections are refused, as for a hub that is down. */
  synchronized void down() {
    server.stop(0);
  }

  /** Listens again on the same port. */
  synchronized void up() throws IOException {
    for (int attempt = 0; ; attempt++) {
      try {
        server = bind(port);
        return;
      } catch (java.net.BindException e) {
        if (attempt > 50) {
          throw e;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** Queues a command for the plugin, as {@code POST /v1/servers/:id/command} would. */
  synchronized String issue(String command) {
    String id = "cmd_" + (issued.size() + 1);
    JsonObject c = new JsonObject();
    c.addProperty("id", id);
    c.addProperty("command", command);
    c.addProperty("issued_at", Instant.now().toString());
    c.addProperty("expires_at", Instant.now().plusSeconds(60).toString());
    issued.put(id, c);
    pending.add(c);
    notifyAll();
    return id;
  }

  /** Delivers an issued command again (the hub's at-least-once redelivery). */
  synchronized void redeliver(String id) {
    pending.add(issued.get(id));
    notifyAll();
  }

  List<String> storedTypes() {
    synchronized (stored) {
      List<String> out = new ArrayList<>();
      for (JsonObject e : stored.values()) {
        out.add(e.get("type").getAsString());
      }
      return out;
    }
  }

  private HttpServer bind(int p) throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), p), 50);
    s.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fake-hub");
      t.setDaemon(true);
      return t;
    }));
    s.createContext("/", this::handle);
    s.start();
    return s;
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      String path = x.getRequestURI().getPath();
      paths.add(x.getRequestMethod() + " " + path);
      String auth = x.getRequestHeaders().getFirst("authorization");
      authHeaders.add(String.valueOf(auth));
      if (auth == null || !tokens.contains(auth.replace("Bearer ", ""))) {
        problem(x, 401, "invalid_server_token");
        return;
      }
      String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      String p = path.replace("/api-platform/ingest", "");
      if (p.equals("/events")) {
        events(x, body);
      } else if (p.equals("/heartbeat")) {
        heartbeats.add(JsonParser.parseString(body).getAsJsonObject());
        JsonObject r = new JsonObject();
        r.addProperty("server_id", 7);
        r.addProperty("status", "online");
        r.addProperty("heartbeat_interval_s", heartbeatInterval);
        r.addProperty("offline_after_s", 60);
        send(x, 200, r);
      } else if (p.equals("/commands")) {
        commands(x);
      } else if (p.startsWith("/commands/") && p.endsWith("/result")) {
        result(x, p.substring("/commands/".length(), p.length() - "/result".length()), body);
      } else if (p.equals("/links")) {
        String code = JsonParser.parseString(body).getAsJsonObject().get("code").getAsString();
        if (code.equals("7KQ-M3X")) {
          JsonObject r = new JsonObject();
          r.addProperty("user_id", 41);
          r.addProperty("username", "alice");
          send(x, 200, r);
        } else {
          problem(x, code.equals("TAKEN1") ? 409 : 404, code.equals("TAKEN1") ? "identity_linked" : "link_code_invalid");
        }
      } else if (p.equals("/link-codes")) {
        JsonObject r = new JsonObject();
        r.addProperty("code", "ABC-DEF");
        r.addProperty("expires_at", "2030-01-01T00:10:00Z");
        send(x, 200, r);
      } else if (p.equals("/token/rotate")) {
        String next = "98765432109876543210987654321098";
        tokens.add(next);
        JsonObject r = new JsonObject();
        r.addProperty("token", next);
        r.addProperty("previous_valid_until", "2030-01-02T00:00:00Z");
        send(x, 200, r);
      } else {
        problem(x, 404, "not_found");
      }
    } catch (RuntimeException e) {
      e.printStackTrace();
      throw e;
    }
  }

  private void events(HttpExchange x, String body) throws IOException {
    int[] failure;
    synchronized (this) {
      failure = failures.poll();
    }
    if (hangMillis > 0) {
      try {
        Thread.sleep(hangMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (failure != null) {
      if (failure[1] > 0) {
        x.getResponseHeaders().add("retry-after", String.valueOf(failure[1]));
      }
      problem(x, failure[0], failure[0] == 429 ? "rate_limited" : "unavailable");
      return;
    }
    JsonObject batch = JsonParser.parseString(body).getAsJsonObject();
    batches.add(batch);
    int accepted = 0;
    int duplicates = 0;
    for (JsonElement e : batch.getAsJsonArray("events")) {
      JsonObject ev = e.getAsJsonObject();
      String id = ev.get("client_id").getAsString();
      synchronized (stored) {
        if (stored.containsKey(id)) {
          duplicates++;
        } else {
          stored.put(id, ev);
          accepted++;
        }
      }
    }
    JsonObject r = new JsonObject();
    r.addProperty("accepted", accepted);
    r.addProperty("duplicates", duplicates);
    r.addProperty("rejected", 0);
    r.addProperty("kills", 0);
    r.addProperty("matches", 0);
    r.addProperty("achievements_unlocked", 0);
    r.add("errors", new JsonArray());
    send(x, 200, r);
  }

  private void commands(HttpExchange x) throws IOException {
    JsonArray data = new JsonArray();
    long waitMs = 1_000;
    String q = x.getRequestURI().getQuery();
    if (q != null && q.startsWith("wait=")) {
      waitMs = Math.min(waitMs, Long.parseLong(q.substring(5)) * 1_000);
    }
    synchronized (this) {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
      while (pending.isEmpty() && System.nanoTime() < until) {
        try {
          wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      while (!pending.isEmpty()) {
        data.add(pending.poll());
      }
    }
    JsonObject r = new JsonObject();
    r.add("data", data);
    send(x, 200, r);
  }

  private void result(HttpExchange x, String id, String body) throws IOException {
    resultPosts.incrementAndGet();
    synchronized (this) {
      if (!issued.containsKey(id)) {
        problem(x, 404, "command_not_found");
        return;
      }
    }
    boolean first;
    synchronized (results) {
      first = !results.containsKey(id);
      if (first) {
        results.put(id, JsonParser.parseString(body).getAsJsonObject());
      }
    }
    JsonObject r = new JsonObject();
    r.addProperty("recorded", first);
    send(x, 200, r);
  }

  private static void problem(HttpExchange x, int status, String code) throws IOException {
    JsonObject p = new JsonObject();
    p.addProperty("type", "about:blank");
    p.addProperty("title", code);
    p.addProperty("status", status);
    p.addProperty("code", code);
    x.getResponseHeaders().set("content-type", "application/problem+json");
    byte[] b = p.toString().getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(status, b.length);
    try (OutputStream o = x.getResponseBody()) {
      o.write(b);
    }
  }

  private static void send(HttpExchange x, int status, JsonObject body) throws IOException {
    x.getResponseHeaders().set("content-type", "application/json");
    byte[] b = body.toString().getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(status, b.length);
    try (OutputStream o = x.getResponseBody()) {
      o.write(b);
    }
  }

  @Override
  public synchronized void close() {
    server.stop(0);
  }
}
