package io.github.gaminghub.plugin;

/**
 * An event the SDK refuses when it is queued (it would never be accepted by the hub), naming the field.
 */
public final class InvalidEventException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;

  InvalidEventException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  /** The dotted path of the offending field ({@code killer.name}, {@code team1.0.participation}). */
  public String field() {
    return field;
  }
}
