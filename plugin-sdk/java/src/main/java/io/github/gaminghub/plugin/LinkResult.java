package io.github.gaminghub.plugin;

/**
 * What the hub answered to a link code typed in game ({@link HubPlugin#link}).
 *
 * @param outcome linked, or why not
 * @param userId the hub user now linked (only when linked)
 * @param username their hub username (only when linked)
 */
public record LinkResult(Outcome outcome, String userId, String username) {
  /** The three answers of {@code POST /api-platform/ingest/links}. */
  public enum Outcome {
    /** The identity is now linked to {@code username}. */
    LINKED,
    /** The code is unknown, used or expired (the hub does not say which). */
    CODE_INVALID,
    /** This identity is already linked to another hub account. */
    ALREADY_LINKED
  }

  /** Whether the identity is now linked. */
  public boolean linked() {
    return outcome == Outcome.LINKED;
  }
}
