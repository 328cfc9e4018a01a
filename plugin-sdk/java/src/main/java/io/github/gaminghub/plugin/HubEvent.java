package io.github.gaminghub.plugin;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One event for the hub, built by the static factories below (one per kind of the plugin protocol). A
 * time of {@code null} means "when it is queued". The SDK gives each event a client id when it is
 * queued ({@code <instance>-<seq>}, the instance drawn at random when the SDK starts); the hub counts an
 * event whose client id it already has as a duplicate, so a batch resent after a timeout or from the
 * spool counts once. {@link #withClientId} sets your own instead.
 */
public final class HubEvent {
  private final JsonObject input;

  private HubEvent(JsonObject input) {
    this.input = input;
  }

  private static HubEvent of(String type, JsonObject fields) {
    JsonObject o = new JsonObject();
    o.addProperty("type", type);
    for (var e : fields.entrySet()) {
      o.add(e.getKey(), e.getValue());
    }
    return new HubEvent(o);
  }

  /** The event's kind ({@code kill}, {@code chat}, ...). */
  public String type() {
    return input.get("type").getAsString();
  }

  /** The client id given with {@link #withClientId}; otherwise the SDK assigns one when it is queued. */
  public Optional<String> clientId() {
    return input.has("client_id") ? Optional.of(input.get("client_id").getAsString()) : Optional.empty();
  }

  /**
   * The same event with a client id of your own (1 to 128 characters, unique per server), for a plugin
   * that already has a stable id for what happened (a match id, a database row).
   */
  public HubEvent withClientId(String clientId) {
    Objects.requireNonNull(clientId, "clientId");
    int length = clientId.codePointCount(0, clientId.length());
    if (length < 1 || length > 128) {
      throw new InvalidEventException("client_id", "1 to 128 characters");
    }
    JsonObject copy = input.deepCopy();
    copy.addProperty("client_id", clientId);
    return new HubEvent(copy);
  }

  /** The event as handed to the SDK (the wire's field names; no client id unless one was given). */
  public JsonObject toJson() {
    return input.deepCopy();
  }

  JsonObject input() {
    return input;
  }

  @Override
  public String toString() {
    return input.toString();
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
    JsonObject f = timed(at);
    f.addProperty("action", action);
    f.add("player", player.toJson());
    return of("player_session", f);
  }

  /** A chat line (1 to 512 characters, sent as typed); {@code teamOnly} for team chat. */
  public static HubEvent chat(Player player, String message, boolean teamOnly, Instant at) {
    Objects.requireNonNull(message, "message");
    JsonObject f = timed(at);
    f.add("player", player.toJson());
    f.addProperty("message", message);
    if (teamOnly) {
      f.addProperty("team_only", true);
    }
    return of("chat", f);
  }

  /** A kill, without the optional fields; see {@link #kill(Player, Player, String, Instant, KillDetails)}. */
  public static HubEvent kill(Player killer, Player victim, String weapon, Instant at) {
    return kill(killer, victim, weapon, at, KillDetails.NONE);
  }

  /**
   * What else is known about a kill.
   *
   * @param headshot whether it was a headshot
   * @param distance metres between killer and victim (0 to 100,000), or {@code null}
   * @param roundNumber the round it happened in (0 to 10,000), or {@code null}
   */
  public record KillDetails(boolean headshot, Double distance, Integer roundNumber) {
    /** No headshot, no distance, no round. */
    public static final KillDetails NONE = new KillDetails(false, null, null);
  }

  /** A kill with its details (headshot, distance in metres, round); weapon 1 to 32 characters. */
  public static HubEvent kill(Player killer, Player victim, String weapon, Instant at, KillDetails details) {
    Objects.requireNonNull(weapon, "weapon");
    JsonObject f = timed(at);
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
    return of("kill", f);
  }

  /** A round started. */
  public static HubEvent roundStart(int roundNumber, Instant at) {
    JsonObject f = timed(at);
    f.addProperty("action", "start");
    f.addProperty("round_number", roundNumber);
    return of("round", f);
  }

  /** Who won a round. */
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
    JsonObject f = timed(at);
    f.addProperty("action", "end");
    f.addProperty("round_number", roundNumber);
    f.addProperty("team1_score", team1Score);
    f.addProperty("team2_score", team2Score);
    f.addProperty("winner", winner.name().toLowerCase(Locale.ROOT));
    return of("round", f);
  }

  /** A match ended: the map, both teams (1 to 64 players each) and the final scores (0 to 1,000). */
  public static HubEvent matchResult(
      String map, List<Player> team1, List<Player> team2, int team1Score, int team2Score, Instant endedAt) {
    JsonObject f = new JsonObject();
    if (endedAt != null) {
      f.addProperty("ended_at", millis(endedAt));
    }
    f.addProperty("map", map);
    f.add("team1", team(team1));
    f.add("team2", team(team2));
    f.addProperty("team1_score", team1Score);
    f.addProperty("team2_score", team2Score);
    return of("match_result", f);
  }

  /** The server changed map (1 to 64 characters); the hub shows it as the server's map. */
  public static HubEvent mapChange(String map, Instant at) {
    Objects.requireNonNull(map, "map");
    JsonObject f = timed(at);
    f.addProperty("map", map);
    return of("map_change", f);
  }

  /**
   * An event given as JSON in the wire's field names (plugin-sdk/vectors/events.json "input"), e.g.
   * read from a config or built by a scripting bridge; it is checked when queued.
   */
  public static HubEvent fromJson(JsonObject input) {
    return new HubEvent(input.deepCopy());
  }

  private static JsonArray team(List<Player> players) {
    JsonArray a = new JsonArray();
    for (Player p : players) {
      a.add(p.toJson());
    }
    return a;
  }

  private static JsonObject timed(Instant at) {
    JsonObject f = new JsonObject();
    if (at != null) {
      f.addProperty("occurred_at", millis(at));
    }
    return f;
  }

  private static String millis(Instant at) {
    return at.truncatedTo(ChronoUnit.MILLIS).toString();
  }
}
