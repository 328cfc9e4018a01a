package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/** The shared vectors of plugin-sdk/vectors (read in place, never copied): one test per case. */
class VectorsTest {
  private static final Path VECTORS = Path.of(System.getProperty("vectors.dir", "../vectors"));

  @TempDir Path tmp;

  private static JsonObject read(String file) throws Exception {
    return JsonParser.parseString(Files.readString(VECTORS.resolve(file), StandardCharsets.UTF_8)).getAsJsonObject();
  }

  private static Stream<JsonObject> cases(JsonArray a) {
    List<JsonObject> out = new ArrayList<>();
    a.forEach(e -> out.add(e.getAsJsonObject()));
    return out.stream();
  }

  private static Optional<String> opt(JsonObject o, String field) {
    return o.has(field) && !o.get(field).isJsonNull() ? Optional.of(o.get(field).getAsString()) : Optional.empty();
  }

  @TestFactory
  Stream<DynamicTest> events() throws Exception {
    JsonObject v = read("events.json");
    Instant now = Instant.parse(v.get("now").getAsString());
    EventEncoder encoder = new EventEncoder(v.get("instance").getAsString(), () -> now);
    // the valid ones in order through one encoder: the sequence numbers depend on it
    List<DynamicTest> tests = new ArrayList<>();
    cases(v.getAsJsonArray("valid")).forEach(c -> {
      JsonObject wire = encoder.encode(c.get("input"));
      tests.add(DynamicTest.dynamicTest("valid: " + c.get("name").getAsString(),
          () -> assertEquals(c.get("wire"), wire)));
    });
    cases(v.getAsJsonArray("invalid")).forEach(c -> tests.add(
        DynamicTest.dynamicTest("invalid: " + c.get("name").getAsString(), () -> {
          InvalidEventException e = assertThrows(InvalidEventException.class,
              () -> new EventEncoder("0123456789abcdef", () -> now).encode(c.get("input")));
          assertEquals(c.get("field").getAsString(), e.field(), e.getMessage());
        })));
    return tests.stream();
  }

  @TestFactory
  Stream<DynamicTest> batching() throws Exception {
    JsonObject v = read("batching.json");
    List<DynamicTest> tests = new ArrayList<>();
    cases(v.getAsJsonObject("client_ids").getAsJsonArray("cases")).forEach(c -> tests.add(
        DynamicTest.dynamicTest("client id " + c.get("client_id").getAsString(), () -> {
          EventEncoder e = new EventEncoder(c.get("instance").getAsString(), Instant::now);
          JsonObject event = null;
          for (long i = 0; i < Math.min(c.get("seq").getAsLong(), 10); i++) {
            event = e.encode(JsonParser.parseString("{\"type\":\"map_change\",\"map\":\"m\"}"));
          }
          if (c.get("seq").getAsLong() <= 10) {
            assertEquals(c.get("client_id").getAsString(), event.get("client_id").getAsString());
          } else {
            assertEquals(c.get("client_id").getAsString(),
                c.get("instance").getAsString() + "-" + c.get("seq").getAsLong());
          }
        })));
    cases(v.getAsJsonObject("batches").getAsJsonArray("cases")).forEach(c -> tests.add(
        DynamicTest.dynamicTest("batches: " + c.get("name").getAsString(), () -> {
          List<Integer> sizes = new ArrayList<>();
          c.getAsJsonArray("event_bytes").forEach(e -> sizes.add(e.getAsInt()));
          List<Integer> got = new ArrayList<>();
          for (int from = 0; from < sizes.size(); ) {
            int n = Math.max(1, EventSender.cut(sizes.subList(from, sizes.size()), c.get("max_events").getAsInt(),
                c.get("max_bytes").getAsLong()));
            got.add(n);
            from += n;
          }
          List<Integer> want = new ArrayList<>();
          c.getAsJsonArray("batches").forEach(e -> want.add(e.getAsInt()));
          assertEquals(want, got);
        })));
    cases(v.getAsJsonObject("answers").getAsJsonArray("cases")).forEach(c -> tests.add(
        DynamicTest.dynamicTest("answer " + c.get("status").getAsString(), () -> {
          JsonElement s = c.get("status");
          int status = s.getAsJsonPrimitive().isNumber() ? s.getAsInt() : 0;
          assertEquals(c.get("action").getAsString(), EventSender.action(status).name().toLowerCase(java.util.Locale.ROOT));
        })));
    return tests.stream();
  }

  @TestFactory
  Stream<DynamicTest> backoff() throws Exception {
    JsonObject v = read("backoff.json");
    JsonObject p = v.getAsJsonObject("parameters");
    assertEquals(Backoff.BASE_MS, p.get("base_ms").getAsLong());
    assertEquals(Backoff.MAX_MS, p.get("max_ms").getAsLong());
    assertEquals(Backoff.MIN_MS, p.get("min_ms").getAsLong());
    assertEquals(Backoff.MAX_RETRY_AFTER_MS, p.get("max_retry_after_ms").getAsLong());
    return cases(v.getAsJsonArray("cases")).map(c -> DynamicTest.dynamicTest(c.toString(), () -> {
      Instant now = c.has("now") ? Instant.parse(c.get("now").getAsString()) : Instant.now();
      assertEquals(c.get("delay_ms").getAsLong(), Backoff.delayMs(c.get("attempt").getAsInt(),
          c.get("random").getAsDouble(), opt(c, "retry_after"), now));
    }));
  }

  @TestFactory
  Stream<DynamicTest> spool() throws Exception {
    JsonObject v = read("spool.json");
    return cases(v.getAsJsonArray("cases")).map(c -> DynamicTest.dynamicTest(c.get("name").getAsString(), () -> {
      Path dir = Files.createTempDirectory(tmp, "spool");
      if (c.has("files")) {
        for (Map.Entry<String, JsonElement> f : c.getAsJsonObject("files").entrySet()) {
          Files.writeString(dir.resolve(f.getKey()), f.getValue().getAsString(), StandardCharsets.UTF_8);
        }
      }
      long max = c.get("max_events").getAsLong();
      Spool spool = new Spool(dir, max);
      long dropped = spool.damaged();
      Spool.Segment last = null;
      for (JsonElement e : c.getAsJsonArray("steps")) {
        JsonObject step = e.getAsJsonObject();
        switch (step.get("op").getAsString()) {
          case "append" -> {
            List<String> events = new ArrayList<>();
            step.getAsJsonArray("client_ids").forEach(id -> events.add(
                "{\"type\":\"map_change\",\"client_id\":\"" + id.getAsString()
                    + "\",\"occurred_at\":\"2026-11-20T18:04:11.000Z\",\"map\":\"x\"}"));
            dropped += spool.append(events);
          }
          case "oldest" -> {
            last = spool.oldest().orElseThrow();
            assertEquals(ids(step.getAsJsonArray("events")), clientIds(last.events()));
          }
          case "settle" -> spool.remove(last);
          case "reopen" -> {
            spool = new Spool(dir, max);
            dropped = spool.damaged();
          }
          case "expect" -> {
            List<String> all = clientIds(spool.all());
            assertEquals(ids(step.getAsJsonArray("events")), all);
            assertEquals(all.size(), spool.size());
            if (step.has("segments")) {
              assertEquals(ids(step.getAsJsonArray("segments")), spool.names());
              try (var files = Files.list(dir)) {
                assertEquals(spool.names().size(), files.filter(f -> f.toString().endsWith(".jsonl")).count());
              }
            }
            if (step.has("dropped")) {
              assertEquals(step.get("dropped").getAsLong(), dropped);
            }
            if (step.has("spooled")) {
              assertEquals(step.get("spooled").getAsLong(), spool.found());
            }
          }
          default -> throw new AssertionError("unknown op " + step);
        }
      }
    }));
  }

  private static List<String> ids(JsonArray a) {
    List<String> out = new ArrayList<>();
    a.forEach(e -> out.add(e.getAsString()));
    return out;
  }

  private static List<String> clientIds(List<String> lines) {
    return lines.stream().filter(l -> !l.isEmpty())
        .map(l -> JsonParser.parseString(l).getAsJsonObject().get("client_id").getAsString()).toList();
  }

  @TestFactory
  Stream<DynamicTest> commandPolls() throws Exception {
    JsonObject v = read("commands.json");
    return cases(v.getAsJsonArray("poll")).map(c -> DynamicTest.dynamicTest(c.get("name").getAsString(), () -> {
      JsonObject answer = c.getAsJsonObject("answer");
      JsonElement s = answer.get("status");
      int status = s.getAsJsonPrimitive().isNumber() ? s.getAsInt() : 0;
      Optional<String> retryAfter = answer.has("headers")
          ? opt(answer.getAsJsonObject("headers"), "retry-after") : Optional.empty();
      List<JsonObject> actions = new ArrayList<>();
      Stats stats = new Stats();
      if (status == 200) {
        CommandLoop loop = loop(c, actions, stats);
        Instant now = Instant.parse(c.get("now") == null ? "2026-11-20T18:04:11.000Z" : c.get("now").getAsString());
        long expiredBefore = stats.commandsExpired.get();
        for (Command cmd : CommandLoop.commands(answer.getAsJsonObject("body"))) {
          Optional<JsonObject> result = loop.resultFor(cmd, now);
          if (result.isPresent()) {
            JsonObject r = new JsonObject();
            r.addProperty("do", "result");
            r.addProperty("id", cmd.id());
            r.add("body", result.get());
            actions.add(r);
          }
          if (stats.commandsExpired.get() > expiredBefore) {
            actions.add(JsonParser.parseString("{\"do\":\"count\",\"counter\":\"commands_expired\"}").getAsJsonObject());
            expiredBefore = stats.commandsExpired.get();
          }
        }
      }
      CommandLoop.Step step = CommandLoop.onPoll(status, retryAfter, c.has("attempt") ? c.get("attempt").getAsInt() : 1,
          c.has("random") ? c.get("random").getAsDouble() : 0, Instant.now());
      actions.add(step.next() == CommandLoop.Next.STOP
          ? JsonParser.parseString("{\"do\":\"stop\",\"reason\":\"revoked\"}").getAsJsonObject()
          : JsonParser.parseString("{\"do\":\"poll\",\"delay_ms\":" + step.delayMs() + "}").getAsJsonObject());
      JsonArray want = c.getAsJsonArray("then");
      assertEquals(want.size(), actions.size(), "actions: " + actions);
      for (int i = 0; i < want.size(); i++) {
        JsonObject w = want.get(i).getAsJsonObject().deepCopy();
        JsonObject got = actions.get(i).deepCopy();
        if (got.has("body") && !w.getAsJsonObject("body").has("duration_ms")) {
          got.getAsJsonObject("body").remove("duration_ms"); // compared only when the vector gives it
        }
        assertEquals(w, got, "action " + i);
      }
    }));
  }

  /** A loop whose handlers are the vector's, recording each run as the vector's "run" action. */
  private static CommandLoop loop(JsonObject c, List<JsonObject> actions, Stats stats) {
    Map<String, CommandHandler> handlers = new java.util.HashMap<>();
    if (c.has("handlers")) {
      for (Map.Entry<String, JsonElement> h : c.getAsJsonObject("handlers").entrySet()) {
        JsonObject spec = h.getValue().getAsJsonObject();
        handlers.put(h.getKey(), cmd -> {
          JsonObject run = new JsonObject();
          run.addProperty("do", "run");
          run.addProperty("id", cmd.id());
          run.addProperty("name", cmd.name());
          run.addProperty("args", cmd.arguments());
          actions.add(run);
          if (spec.has("throws")) {
            throw new IllegalStateException(spec.get("throws").getAsString());
          }
          return spec.get("output").isJsonNull() ? null : CommandResult.ok(spec.get("output").getAsString());
        });
      }
    }
    CommandLoop loop = new CommandLoop(null, handlers, null, Runnable::run, new Backoff(() -> 0.5), stats,
        java.time.Duration.ofSeconds(25), java.time.Duration.ofSeconds(5), e -> {});
    if (c.has("already_ran")) {
      for (Map.Entry<String, JsonElement> r : c.getAsJsonObject("already_ran").entrySet()) {
        loop.remember(r.getKey(), r.getValue().getAsJsonObject());
      }
    }
    return loop;
  }

  @TestFactory
  Stream<DynamicTest> commandResults() throws Exception {
    JsonObject v = read("commands.json");
    return cases(v.getAsJsonArray("result")).map(c -> DynamicTest.dynamicTest(c.get("name").getAsString(), () -> {
      JsonElement s = c.getAsJsonObject("answer").get("status");
      int status = s.getAsJsonPrimitive().isNumber() ? s.getAsInt() : 0;
      CommandLoop.Step step = CommandLoop.onResult(status, Optional.empty(),
          c.has("attempt") ? c.get("attempt").getAsInt() : 1, c.has("random") ? c.get("random").getAsDouble() : 0,
          Instant.now());
      JsonObject want = c.getAsJsonArray("then").get(0).getAsJsonObject();
      JsonObject got = switch (step.next()) {
        case COUNT_RUN -> JsonParser.parseString("{\"do\":\"count\",\"counter\":\"commands_run\"}").getAsJsonObject();
        case COUNT_EXPIRED -> JsonParser.parseString("{\"do\":\"count\",\"counter\":\"commands_expired\"}").getAsJsonObject();
        case FORGET -> JsonParser.parseString("{\"do\":\"forget\"}").getAsJsonObject();
        case STOP -> JsonParser.parseString("{\"do\":\"stop\",\"reason\":\"revoked\"}").getAsJsonObject();
        case REPOST -> JsonParser.parseString("{\"do\":\"repost\",\"delay_ms\":" + step.delayMs() + "}").getAsJsonObject();
        default -> new JsonObject();
      };
      assertEquals(want, got);
    }));
  }

  @Test
  void outputIsCutAsTheVectorsSay() throws Exception {
    for (JsonElement e : read("commands.json").getAsJsonArray("output")) {
      JsonObject c = e.getAsJsonObject();
      String out = c.getAsJsonObject("output").get("repeat").getAsString()
          .repeat(c.getAsJsonObject("output").get("times").getAsInt());
      String cut = CommandLoop.truncate(out);
      assertEquals(c.get("bytes").getAsInt(), cut.getBytes(StandardCharsets.UTF_8).length, c.get("name").getAsString());
      assertTrue(out.startsWith(cut));
    }
  }

  @TestFactory
  Stream<DynamicTest> heartbeat() throws Exception {
    JsonObject v = read("commands.json").getAsJsonObject("heartbeat");
    return cases(v.getAsJsonArray("cases")).map(c -> DynamicTest.dynamicTest(c.get("name").getAsString(), () -> {
      JsonObject answer = c.getAsJsonObject("answer");
      int status = answer.get("status").getAsInt();
      long interval = c.has("interval_s") ? c.get("interval_s").getAsLong() : 10;
      if (status == 200) {
        interval = answer.getAsJsonObject("body").get("heartbeat_interval_s").getAsLong();
      }
      Optional<String> retryAfter = answer.has("headers")
          ? opt(answer.getAsJsonObject("headers"), "retry-after") : Optional.empty();
      long next = Heartbeat.nextDelayMs(status, interval * 1_000, retryAfter);
      JsonObject want = c.getAsJsonArray("then").get(0).getAsJsonObject();
      if (want.get("do").getAsString().equals("stop")) {
        assertEquals(-1, next);
      } else {
        assertEquals(want.get("delay_ms").getAsLong(), next);
      }
    }));
  }
}
