package io.github.gaminghub.plugin;

/**
 * The hub refused a call with a problem document (RFC 9457), or could not be reached ({@code status} 0).
 */
public final class HubException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;

  HubException(int status, String code, String message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  HubException(String message, Throwable cause) {
    super(message, cause);
    this.status = 0;
    this.code = "unreachable";
  }

  /** The HTTP status, or 0 when the hub could not be reached. */
  public int status() {
    return status;
  }

  /** The problem's {@code code} ({@code invalid_server_token}, ...), or {@code unreachable}. */
  public String code() {
    return code;
  }
}
