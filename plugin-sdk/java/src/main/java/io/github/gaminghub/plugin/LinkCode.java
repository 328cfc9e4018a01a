package io.github.gaminghub.plugin;

import java.time.Instant;

/**
 * A code for the player to enter on the hub (portal or {@code POST /v1/me/links}) to link the identity
 * it was made for.
 *
 * @param code the code to show, e.g. {@code 7KQ-M3X}
 * @param expiresAt when it stops working
 */
public record LinkCode(String code, Instant expiresAt) {}
