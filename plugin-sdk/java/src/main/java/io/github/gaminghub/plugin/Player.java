package io.github.gaminghub.plugin;

import com.google.gson.JsonObject;
import java.util.Objects;
import java.util.UUID;

/**
 * A player as the hub knows them: a display name and exactly one platform identity. A Steam id gets a
 * hub profile; a Minecraft UUID or an EOS id reaches a hub profile only once its owner links it (see
 * {@link HubPlugin#link}); until then the hub credits nobody for it.
 *
 * @param name the name shown in the game, 1 to 64 characters
 * @param platform which kind of id {@code id} is
 * @param id the id: Steam ids as given (SteamID64, STEAM_X:Y:Z or [U:1:N]), a Minecraft UUID lower case with
 *     dashes, an EOS id lower case
 */
public record Player(String name, Platform platform, String id) {

  /** The identity platforms of the plugin protocol, with their field name on the wire. */
  public enum Platform {
    /** SteamID64, {@code STEAM_X:Y:Z} or {@code [U:1:N]}; the hub converts. */
    STEAM("steam_id"),
    /** A Minecraft (Java edition) profile UUID. */
    MINECRAFT("minecraft_uuid"),
    /** An Epic Online Services product user id. */
    EOS("eos_id");

    private final String field;

    Platform(String field) {
      this.field = field;
    }

    /** The JSON field that carries this kind of id. */
    public String field() {
      return field;
    }
  }

  /** Checks the name and normalizes the id; an id the hub would refuse fails here, on the caller's thread. */
  public Player {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(platform, "platform");
    Objects.requireNonNull(id, "id");
    if (name.isEmpty() || name.length() > 64) {
      throw new IllegalArgumentException("a player name has 1 to 64 characters: " + name);
    }
    id = normalize(platform, id);
  }

  /** A Steam player (SteamID64, {@code STEAM_X:Y:Z} or {@code [U:1:N]}). */
  public static Player steam(String name, String steamId) {
    return new Player(name, Platform.STEAM, steamId);
  }

  /** A Minecraft player by profile UUID. */
  public static Player minecraft(String name, UUID uuid) {
    return new Player(name, Platform.MINECRAFT, uuid.toString());
  }

  /** A Minecraft player by profile UUID as text (dashes optional). */
  public static Player minecraft(String name, String uuid) {
    return new Player(name, Platform.MINECRAFT, uuid);
  }

  /** An Epic Online Services player by product user id (32 hex characters). */
  public static Player eos(String name, String productUserId) {
    return new Player(name, Platform.EOS, productUserId);
  }

  /** The player object of the wire protocol: {@code {"name": ..., "<platform field>": id}}. */
  public JsonObject toJson() {
    JsonObject o = new JsonObject();
    o.addProperty("name", name);
    o.addProperty(platform.field(), id);
    return o;
  }

  private static String normalize(Platform platform, String id) {
    JsonObject raw = new JsonObject();
    raw.addProperty("name", "x");
    raw.addProperty(platform.field(), id);
    try {
      return EventEncoder.player(raw, "player", false).get(platform.field()).getAsString();
    } catch (InvalidEventException e) {
      throw new IllegalArgumentException("not a valid " + platform.field() + ": " + id, e);
    }
  }
}
