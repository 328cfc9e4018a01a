package io.github.gaminghub.plugin;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Turns an event as a plugin hands it over (the wire's field names, time optional) into the exact
 * object sent to the hub (plugin-sdk/vectors/events.json): checked field by field, identities
 * normalized, the time in UTC with milliseconds, and a client id {@code <instance>-<seq>} unless the
 * event carries its own. An event the hub would refuse is refused here, on the caller's thread.
 */
final class EventEncoder {
  private static final DateTimeFormatter WIRE_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final Pattern STEAM = Pattern.compile("\\d{17}|STEAM_[0-5]:[01]:\\d{1,10}|\\[U:1:\\d{1,10}\\]");
  private static final Pattern UUID = Pattern.compile(
      "[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern HEX32 = Pattern.compile("[0-9a-fA-F]{32}");
  private static final Set<String> ID_FIELDS = Set.of("steam_id", "minecraft_uuid", "eos_id");

  /** The fields each kind may carry besides type and client_id. */
  private static final Map<String, Set<String>> FIELDS = Map.of(
      "player_session", Set.of("occurred_at", "action", "player"),
      "chat", Set.of("occurred_at", "player", "message", "team_only"),
      "kill", Set.of("occurred_at", "killer", "victim", "weapon", "headshot", "distance", "round_number"),
      "round", Set.of("occurred_at", "action", "round_number", "team1_score", "team2_score", "winner"),
      "match_result", Set.of("ended_at", "map", "team1", "team2", "team1_score", "team2_score", "tournament_id"),
      "map_change", Set.of("occurred_at", "map"));

  private final String instance;
  private final AtomicLong seq = new AtomicLong();
  private final Supplier<Instant> clock;

  EventEncoder(String instance, Supplier<Instant> clock) {
    this.instance = instance;
    this.clock = clock;
  }

  /** The wire object for {@code input}; throws {@link InvalidEventException} naming the bad field. */
  JsonObject encode(JsonElement input) {
    if (input == null || !input.isJsonObject()) {
      throw new InvalidEventException("event", "an event is a JSON object");
    }
    JsonObject in = input.getAsJsonObject();
    String type = in.has("type") && isString(in.get("type")) ? in.get("type").getAsString() : null;
    Set<String> allowed = type == null ? null : FIELDS.get(type);
    if (allowed == null) {
      throw new InvalidEventException("type", "one of " + String.join(", ", FIELDS.keySet().stream().sorted().toList()));
    }
    for (String key : in.keySet()) {
      if (!key.equals("type") && !key.equals("client_id") && !allowed.contains(key)) {
        throw new InvalidEventException(key, "not a field of " + type);
      }
    }
    String clientId = null;
    if (in.has("client_id")) {
      clientId = string(in, "client_id", 1, 128);
    }
    JsonObject out = new JsonObject();
    out.addProperty("type", type);
    out.addProperty("client_id", "");
    String timeField = type.equals("match_result") ? "ended_at" : "occurred_at";
    out.addProperty(timeField, time(in.get(timeField), timeField));
    switch (type) {
      case "player_session" -> {
        out.addProperty("action", oneOf(in, "action", true, "connect", "disconnect"));
        out.add("player", player(in.get("player"), "player", false));
      }
      case "chat" -> {
        out.add("player", player(in.get("player"), "player", false));
        out.addProperty("message", string(in, "message", 1, 512));
        bool(in, out, "team_only");
      }
      case "kill" -> {
        JsonObject killer = player(in.get("killer"), "killer", false);
        JsonObject victim = player(in.get("victim"), "victim", false);
        if (identity(killer).equals(identity(victim))) {
          throw new InvalidEventException("victim", "the killer and the victim are the same player (not a frag)");
        }
        out.add("killer", killer);
        out.add("victim", victim);
        out.addProperty("weapon", string(in, "weapon", 1, 32));
        bool(in, out, "headshot");
        number(in, out, "distance", false, 0, 100_000, false);
        number(in, out, "round_number", true, 0, 10_000, false);
      }
      case "round" -> {
        out.addProperty("action", oneOf(in, "action", true, "start", "end"));
        number(in, out, "round_number", true, 0, 10_000, true);
        number(in, out, "team1_score", true, 0, 1_000, false);
        number(in, out, "team2_score", true, 0, 1_000, false);
        String winner = oneOf(in, "winner", false, "team1", "team2", "draw");
        if (winner != null) {
          out.addProperty("winner", winner);
        }
      }
      case "match_result" -> {
        out.addProperty("map", string(in, "map", 1, 64));
        out.add("team1", team(in.get("team1"), "team1"));
        out.add("team2", team(in.get("team2"), "team2"));
        number(in, out, "team1_score", true, 0, 1_000, true);
        number(in, out, "team2_score", true, 0, 1_000, true);
        number(in, out, "tournament_id", true, 1, 2_147_483_647, false);
      }
      default -> out.addProperty("map", string(in, "map", 1, 64)); // map_change
    }
    out.addProperty("client_id", clientId != null ? clientId : instance + "-" + seq.incrementAndGet());
    return out;
  }

  private String time(JsonElement value, String field) {
    if (value == null || value.isJsonNull()) {
      return WIRE_TIME.format(clock.get());
    }
    if (isString(value)) {
      try {
        return WIRE_TIME.format(OffsetDateTime.parse(value.getAsString()).toInstant());
      } catch (DateTimeParseException e) {
        throw new InvalidEventException(field, "an ISO 8601 date-time with a time zone, or epoch milliseconds");
      }
    }
    BigDecimal ms = decimal(value);
    if (ms == null || !integral(ms)) {
      throw new InvalidEventException(field, "an ISO 8601 date-time with a time zone, or epoch milliseconds");
    }
    return WIRE_TIME.format(Instant.ofEpochMilli(ms.longValueExact()));
  }

  private static JsonArray team(JsonElement value, String field) {
    if (value == null || !value.isJsonArray() || value.getAsJsonArray().isEmpty()
        || value.getAsJsonArray().size() > 64) {
      throw new InvalidEventException(field, "1 to 64 players");
    }
    JsonArray out = new JsonArray();
    int i = 0;
    for (JsonElement p : value.getAsJsonArray()) {
      out.add(player(p, field + "." + i++, true));
    }
    return out;
  }

  static JsonObject player(JsonElement value, String field, boolean participant) {
    if (value == null || !value.isJsonObject()) {
      throw new InvalidEventException(field, "a player object {name, steam_id | minecraft_uuid | eos_id}");
    }
    JsonObject p = value.getAsJsonObject();
    for (String key : p.keySet()) {
      if (!key.equals("name") && !ID_FIELDS.contains(key) && !(participant && key.equals("participation"))) {
        throw new InvalidEventException(field + "." + key, "not a field of a player");
      }
    }
    String idField = null;
    for (String key : p.keySet()) {
      if (ID_FIELDS.contains(key)) {
        if (idField != null) {
          throw new InvalidEventException(field, "exactly one of steam_id, minecraft_uuid, eos_id");
        }
        idField = key;
      }
    }
    if (idField == null) {
      throw new InvalidEventException(field, "exactly one of steam_id, minecraft_uuid, eos_id");
    }
    JsonObject out = new JsonObject();
    out.addProperty("name", string(p, "name", 1, 64, field + ".name"));
    String where = field + "." + idField;
    String id = isString(p.get(idField)) ? p.get(idField).getAsString() : "";
    switch (idField) {
      case "steam_id" -> {
        if (!STEAM.matcher(id).matches()) {
          throw new InvalidEventException(where, "a SteamID64 (17 digits), STEAM_X:Y:Z or [U:1:N]");
        }
      }
      case "minecraft_uuid" -> {
        if (!UUID.matcher(id).matches()) {
          throw new InvalidEventException(where, "a UUID: 32 hex digits, dashes optional (8-4-4-4-12)");
        }
        String hex = id.replace("-", "").toLowerCase(Locale.ROOT);
        id = hex.substring(0, 8) + '-' + hex.substring(8, 12) + '-' + hex.substring(12, 16) + '-'
            + hex.substring(16, 20) + '-' + hex.substring(20);
      }
      default -> {
        if (!HEX32.matcher(id).matches()) {
          throw new InvalidEventException(where, "an EOS product user id: 32 hex digits");
        }
        id = id.toLowerCase(Locale.ROOT);
      }
    }
    out.addProperty(idField, id);
    if (participant && p.has("participation")) {
      BigDecimal v = decimal(p.get("participation"));
      if (v == null || v.signum() < 0 || v.compareTo(BigDecimal.ONE) > 0) {
        throw new InvalidEventException(field + ".participation", "a number from 0 to 1");
      }
      out.add("participation", p.get("participation"));
    }
    return out;
  }

  private static String identity(JsonObject player) {
    for (String f : ID_FIELDS) {
      if (player.has(f)) {
        return f + ":" + player.get(f).getAsString();
      }
    }
    return "";
  }

  private static String string(JsonObject in, String field, int min, int max) {
    return string(in, field, min, max, field);
  }

  private static String string(JsonObject in, String key, int min, int max, String field) {
    JsonElement v = in.get(key);
    if (!isString(v)) {
      throw new InvalidEventException(field, "a string of " + min + " to " + max + " characters");
    }
    String s = v.getAsString();
    int length = s.codePointCount(0, s.length());
    if (length < min || length > max) {
      throw new InvalidEventException(field, "a string of " + min + " to " + max + " characters");
    }
    return s;
  }

  private static String oneOf(JsonObject in, String field, boolean required, String... values) {
    JsonElement v = in.get(field);
    if (v == null && !required) {
      return null;
    }
    if (isString(v)) {
      for (String allowed : values) {
        if (allowed.equals(v.getAsString())) {
          return allowed;
        }
      }
    }
    throw new InvalidEventException(field, "one of " + String.join(", ", values));
  }

  private static void bool(JsonObject in, JsonObject out, String field) {
    JsonElement v = in.get(field);
    if (v == null) {
      return;
    }
    if (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isBoolean()) {
      throw new InvalidEventException(field, "true or false");
    }
    out.add(field, v);
  }

  private static void number(JsonObject in, JsonObject out, String field, boolean integer, long min, long max,
      boolean required) {
    JsonElement v = in.get(field);
    if (v == null) {
      if (required) {
        throw new InvalidEventException(field, "required");
      }
      return;
    }
    BigDecimal d = decimal(v);
    if (d == null || (integer && !integral(d)) || d.compareTo(BigDecimal.valueOf(min)) < 0
        || d.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw new InvalidEventException(field, (integer ? "an integer" : "a number") + " from " + min + " to " + max);
    }
    out.add(field, v);
  }

  private static BigDecimal decimal(JsonElement v) {
    if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isNumber()) {
      return null;
    }
    try {
      return new BigDecimal(v.getAsString());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static boolean integral(BigDecimal d) {
    return d.signum() == 0 || d.stripTrailingZeros().scale() <= 0;
  }

  private static boolean isString(JsonElement v) {
    return v != null && v.isJsonPrimitive() && ((JsonPrimitive) v).isString();
  }
}
