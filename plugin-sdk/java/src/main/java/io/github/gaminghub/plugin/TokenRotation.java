package io.github.gaminghub.plugin;

import java.time.Instant;

/**
 * A new ingest token ({@link HubPlugin#rotateToken}). The SDK uses it at once; store it where the plugin
 * keeps its configuration before {@code previousValidUntil}, when the old one stops working.
 *
 * @param token the new token
 * @param previousValidUntil until when the previous token is still accepted
 */
public record TokenRotation(String token, Instant previousValidUntil) {}
