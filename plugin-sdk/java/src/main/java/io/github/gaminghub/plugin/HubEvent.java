package io.github.gaminghub.plugin;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * One event for the hub, built by the static factories below (one per kind of the plugin protocol).
 * Each event gets a client id when it is built: the hub counts an event whose client id it has already
 * accepted as a duplicate, so a batch resent after a timeout or from the spool counts once.
 */
public final class HubEvent {
  private final JsonObject body;

  private HubEvent(String type, JsonObject fields) {
    body = new JsonObject();
    body.addProperty("type", type);
    body.addProperty("client_id", UUID.randomUUID().toString());
    for (var e : fields.entrySet()) {
      body.add(e.getKey(), e.getValue());
    }
  }

  /** The event's kind ({@code kill}, {@code chat}, ...). */
  public String type() {
    return body.get("type").getAsString();
  }

  /** The id the hub deduplicates on. */
  public String clientId() {
    return body.get("client_id").getAsString();
  }

  /**
   * The same event with a client id of your own (1 to 128 characters, unique per server), for a plugin
   * that already has a stable id for what happened (a match id, a database row).
   */
  public HubEvent withClientId(String clientId) {
    Objects.requireNonNull(clientId, "clientId");
    if (clientId.isEmpty() || clientId.length() > 128) {
      throw new IllegalArgumentException("a client id has 1 to 128 characters");
    }
    HubEvent copy = new HubEvent(type(), body.deepCopy());
    copy.body.addProperty("client_id", clientId);
    return copy;
  }

  /** The event as the hub receives it. */
  public JsonObject toJson() {
    return body.deepCopy();
  }

  String json() {
    return body.toString();
  }

  @Override
  public String toString() {
    return json();
  }

  /** A player joined the server. */
  public static HubEvent playerConnect(Player player, Instant at) {
    return session("connect", player, at);
  }

  /** A player left the server. */
  public static HubEvent playerDisconnect(Player player, Instant at) {
    return session("disconnect", player, at);
  }

  private static HubEvent session(String action, Player player, Instant at) {
    JsonObject f = new JsonObject();
    f.addProperty("occurred_at", time(at));
    f.addProperty("action", action);
    f.add("player", player.toJson());
    return new HubEvent("player_session", f);
  }

  /** A chat line (1 to 512 characters); {@code teamOnly} for team chat. */
  public static HubEvent chat(Player player, String message, boolean teamOnly, Instant at) {
    Objects.requireNonNull(message, "message");
    if (message.isEmpty() || message.length() > 512) {
      throw new IllegalArgumentException("a chat message has 1 to 512 characters");
    }
    JsonObject f = new JsonObject();
    f.addProperty("occurred_at", time(at));
    f.add("player", player.toJson());
    f.addProperty("message", message);
    if (teamOnly) {
      f.addProperty("team_only", true);
    }
    return new HubEvent("chat", f);
  }

  /** A kill, without the optional fields; see {@link #kill(Player, Player, String, Instant, KillDetails)}. */
  public static HubEvent kill(Player killer, Player victim, String weapon, Instant at) {
    return kill(killer, victim, weapon, at, KillDetails.NONE);
  }

  /**
   * A kill. {@code distance} is in metres.
   *
   * @param headshot whether it was a headshot
   * @param distance metres between killer and victim, or {@code null}
   * @param roundNumber the round it happened in, or {@code null}
   */
  public record KillDetails(boolean headshot, Double distance, Integer roundNumber) {
    /** No headshot, no distance, no round. */
    public static final KillDetails NONE = new KillDetails(false, null, null);
  }

  /** A kill with its details (headshot, distance in metres, round). */
  public static HubEvent kill(Player killer, Player victim, String weapon, Instant at, KillDetails details) {
    Objects.requireNonNull(weapon, "weapon");
    JsonObject f = new JsonObject();
    f.addProperty("occurred_at", time(at));
    f.add("killer", killer.toJson());
    f.add("victim", victim.toJson());
    f.addProperty("weapon", weapon);
    if (details.headshot()) {
      f.addProperty("headshot", true);
    }
    if (details.distance() != null) {
      f.addProperty("distance", details.distance());
    }
    if (details.roundNumber() != null) {
      f.addProperty("round_number", details.roundNumber());
    }
    return new HubEvent("kill", f);
  }

  /** A round started. */
  public static HubEvent roundStart(int roundNumber, Instant at) {
    JsonObject f = new JsonObject();
    f.addProperty("occurred_at", time(at));
    f.addProperty("action", "start");
    f.addProperty("round_number", roundNumber);
    return new HubEvent("round", f);
  }

  /** Who won a round or a match. */
  public enum Winner {
    /** The first team. */
    TEAM1,
    /** The second team. */
    TEAM2,
    /** Nobody. */
    DRAW
  }

  /** A round ended with these scores and winner. */
  public static HubEvent roundEnd(int roundNumber, int team1Score, int team2Score, Winner winner, Instant at) {
    JsonObject f = new JsonObject();
    f.addProperty("occurred_at", time(at));
    f.addProperty("action", "end");
    f.addProperty("round_number", roundNumber);
    f.addProperty("team1_score", team1Score);
    f.addProperty("team2_score", team2Score);
    f.addProperty("winner", winner.name().toLowerCase(java.util.Locale.ROOT));
    return new HubEvent("round", f);
  }

  /** A match ended: the map, both teams (1 to 64 players each) and the final scores. */
  public static HubEvent matchResult(
      String map, List<Player> team1, List<Player> team2, int team1Score, int team2Score, Instant endedAt) {
    JsonObject f = new JsonObject();
    f.addProperty("ended_at", time(endedAt));
    f.addProperty("map", map);
    f.add("team1", team(team1));
    f.add("team2", team(team2));
    f.addProperty("team1_score", team1Score);
    f.addProperty("team2_score", team2Score);
    return new HubEvent("match_result", f);
  }

  /** The server changed map (1 to 64 characters); the hub shows it as the server's map. */
  public static HubEvent mapChange(String map, Instant at) {
    Objects.requireNonNull(map, "map");
    if (map.isEmpty() || map.length() > 64) {
      throw new IllegalArgumentException("a map name has 1 to 64 characters");
    }
    JsonObject f = new JsonObject();
    f.addProperty("occurred_at", time(at));
    f.addProperty("map", map);
    return new HubEvent("map_change", f);
  }

  /**
   * An event of a kind this SDK version does not name yet: {@code fields} are sent as they are, with
   * {@code type} and a client id added.
   */
  public static HubEvent of(String type, JsonObject fields) {
    Objects.requireNonNull(type, "type");
    return new HubEvent(type, fields.deepCopy());
  }

  private static JsonArray team(List<Player> players) {
    JsonArray a = new JsonArray();
    for (Player p : players) {
      a.add(p.toJson());
    }
    return a;
  }

  /** Milliseconds are enough for the hub and keep the text short. */
  private static String time(Instant at) {
    return at.truncatedTo(ChronoUnit.MILLIS).toString();
  }
}
