package io.github.gaminghub.plugin;

import java.util.Objects;

/**
 * What a heartbeat reports: players online, the slots, the map and the game's version.
 *
 * @param players players online, at least 0
 * @param maxPlayers the server's slots, at least 0
 * @param map the current map or world (0 to 64 characters)
 * @param version the game server's version (1 to 64 characters)
 */
public record ServerStatus(int players, int maxPlayers, String map, String version) {
  /** Checks the bounds the hub enforces, so a bad status fails where it is made. */
  public ServerStatus {
    Objects.requireNonNull(map, "map");
    Objects.requireNonNull(version, "version");
    if (players < 0 || maxPlayers < 0) {
      throw new IllegalArgumentException("players and maxPlayers are at least 0");
    }
    if (map.length() > 64 || version.isEmpty() || version.length() > 64) {
      throw new IllegalArgumentException("map has 0 to 64 characters, version 1 to 64");
    }
  }
}
