package io.github.gaminghub.plugin;

import java.util.Objects;

/**
 * What running a command gave: {@code ok} or {@code error}, and its output (sent up to 64 KiB).
 *
 * @param ok whether it succeeded
 * @param output what the game printed, or why it failed
 */
public record CommandResult(boolean ok, String output) {
  /** Never a null output. */
  public CommandResult {
    Objects.requireNonNull(output, "output");
  }

  /** A success with its output. */
  public static CommandResult ok(String output) {
    return new CommandResult(true, output);
  }

  /** A failure with what went wrong. */
  public static CommandResult error(String output) {
    return new CommandResult(false, output);
  }
}
