package io.github.gaminghub.plugin.live;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * What `npm run test:plugins` hands a language (plugin-sdk/README.md): the fixture file named by
 * HUB_PLUGIN_FIXTURE, and the control server that does what a plugin cannot (stop and start the hub,
 * remove a server, count stored kills).
 */
final class Fixture {
  /** A registered server: its id and ingest token. */
  record Server(long id, String token) {}

  /** A scenario of plugin-sdk/scenarios.json. */
  record Scenario(String name, String server, String skip) {}

  final URI hubUrl;
  final URI controlUrl;
  final Path workDir;
  final List<Scenario> scenarios = new ArrayList<>();
  private final JsonObject servers;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  Fixture() throws IOException {
    String file = System.getenv("HUB_PLUGIN_FIXTURE");
    if (file == null) {
      throw new IllegalStateException("HUB_PLUGIN_FIXTURE is not set: run `npm run test:plugins` at the repository root");
    }
    JsonObject f = JsonParser.parseString(Files.readString(Path.of(file))).getAsJsonObject();
    hubUrl = URI.create(f.get("hub_url").getAsString());
    controlUrl = URI.create(f.get("control_url").getAsString());
    workDir = Path.of(f.get("work_dir").getAsString(), "java");
    Files.createDirectories(workDir);
    servers = f.getAsJsonObject("servers");
    JsonObject s = JsonParser.parseString(Files.readString(Path.of(f.get("scenarios_file").getAsString())))
        .getAsJsonObject();
    for (JsonElement e : s.getAsJsonArray("scenarios")) {
      JsonObject o = e.getAsJsonObject();
      scenarios.add(new Scenario(o.get("name").getAsString(), o.get("server").getAsString(),
          o.has("skip") ? o.get("skip").getAsString() : null));
    }
  }

  Server server(String name) {
    JsonObject s = servers.getAsJsonObject(name);
    if (s == null) {
      throw new IllegalStateException("the fixture has no server named " + name);
    }
    return new Server(s.get("id").getAsLong(), s.get("token").getAsString());
  }

  Path spoolDir(String name) throws IOException {
    return Files.createTempDirectory(workDir, name + "-");
  }

  void stopHub() throws Exception {
    control("POST", "/hub/stop");
  }

  void startHub() throws Exception {
    control("POST", "/hub/start");
  }

  void removeServer(long id) throws Exception {
    control("POST", "/servers/" + id + "/remove");
  }

  /** {@code POST /v1/servers/N/command} through the control server: {@code {"status", "body"}} of the hub's answer. */
  JsonObject command(long serverId, String command, int waitMs) throws Exception {
    JsonObject body = new JsonObject();
    body.addProperty("server_id", serverId);
    body.addProperty("command", command);
    body.addProperty("wait_ms", waitMs);
    return control("POST", "/command", body);
  }

  /** {@code GET /v1/servers/N/commands/ID} through the control server: {@code {"status", "body"}}. */
  JsonObject commandStatus(long serverId, String id) throws Exception {
    return control("GET", "/command/" + serverId + "/" + id, null);
  }

  /** {@code POST /v1/me/link-codes} as the servers' owner: {@code {"status", "body"}}. */
  JsonObject linkCode() throws Exception {
    return control("POST", "/link-code", null);
  }

  /** Any {@code /v1} GET through the control server: {@code {"status", "body"}}. */
  JsonObject v1(String path) throws Exception {
    return control("GET", path, null);
  }

  long kills(long serverId) throws Exception {
    return control("GET", "/count/kills?server_id=" + serverId).get("count").getAsLong();
  }

  private JsonObject control(String method, String path) throws Exception {
    return control(method, path, null);
  }

  private JsonObject control(String method, String path, JsonObject body) throws Exception {
    HttpRequest r = HttpRequest.newBuilder(controlUrl.resolve(path)).timeout(Duration.ofSeconds(60))
        .header("content-type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body.toString())).build();
    HttpResponse<String> res = http.send(r, HttpResponse.BodyHandlers.ofString());
    if (res.statusCode() >= 300) {
      throw new IllegalStateException("control " + method + " " + path + ": " + res.statusCode() + " " + res.body());
    }
    return JsonParser.parseString(res.body()).getAsJsonObject();
  }

  /** Polls {@code done} every 100 ms for up to 60 s. */
  static void until(String what, BooleanSupplier done) throws InterruptedException {
    until(what, done, Duration.ofMillis(100));
  }

  /** Polls {@code done} every {@code every} for up to 60 s (a /v1 read spends the owner's quota). */
  static void until(String what, BooleanSupplier done, Duration every) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after 60 s waiting for " + what);
      }
      Thread.sleep(every.toMillis());
    }
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  static void same(long expected, long actual, String what) {
    if (expected != actual) {
      throw new AssertionError(what + ": expected " + expected + ", got " + actual);
    }
  }
}
