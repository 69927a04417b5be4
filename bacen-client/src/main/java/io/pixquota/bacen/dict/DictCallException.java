package io.pixquota.bacen.dict;

/**
 * A lookup DICT refused for its form (400, 403) or answered with something unusable (5xx, a body that is not the
 * spec's), or that got no answer (I/O, the call timeout): {@link #status()} says which (0: no answer).
 */
public final class DictCallException extends DictException {
  private static final long serialVersionUID = 1L;
  private final int status;

  DictCallException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** The HTTP status, or 0 when no answer came. */
  public int status() {
    return status;
  }
}
