package io.github.gaminghub.plugin;

/**
 * Runs a command from the hub. It runs on the executor given to {@link HubPlugin.Builder#commands}
 * (the game's main thread, for a game whose state may only be touched there), one command at a time.
 * An exception becomes an {@code error} result with its message.
 */
@FunctionalInterface
public interface CommandHandler {
  /** Runs {@code command} and says what happened. */
  CommandResult handle(Command command) throws Exception;
}
