package io.github.gaminghub.plugin;

import com.google.gson.JsonObject;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A player as the hub knows them: a display name and exactly one platform identity. A Steam id gets a
 * hub profile; a Minecraft UUID or an EOS id reaches a hub profile only once its owner links it (see
 * {@link HubPlugin#link}); until then the hub credits nobody for it.
 *
 * @param name the name shown in the game, 1 to 64 characters
 * @param platform which kind of id {@code id} is
 * @param id the id, normalized the way the hub stores it
 */
public record Player(String name, Platform platform, String id) {
  private static final Pattern UUID_HEX = Pattern.compile("[0-9a-fA-F]{32}");
  private static final Pattern EOS = Pattern.compile("[0-9a-fA-F]{32}");

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
    String trimmed = id.trim();
    switch (platform) {
      case MINECRAFT:
        String hex = trimmed.replace("-", "");
        if (!UUID_HEX.matcher(hex).matches()) {
          throw new IllegalArgumentException("not a Minecraft UUID: " + id);
        }
        hex = hex.toLowerCase(Locale.ROOT);
        return hex.substring(0, 8) + '-' + hex.substring(8, 12) + '-' + hex.substring(12, 16) + '-'
            + hex.substring(16, 20) + '-' + hex.substring(20);
      case EOS:
        if (!EOS.matcher(trimmed).matches()) {
          throw new IllegalArgumentException("not an EOS product user id (32 hex characters): " + id);
        }
        return trimmed.toLowerCase(Locale.ROOT);
      default:
        if (trimmed.isEmpty() || trimmed.length() > 32) {
          throw new IllegalArgumentException("not a Steam id: " + id);
        }
        return trimmed;
    }
  }
}
