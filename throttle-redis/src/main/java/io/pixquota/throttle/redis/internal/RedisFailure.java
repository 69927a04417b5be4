package io.pixquota.throttle.redis.internal;

/**
 * A Redis client's failure in the store's own terms, whichever client met it (Redisson or Lettuce): the store's
 * classes judge failures by their {@link Kind} only, and never name a client's exception types.
 */
public final class RedisFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What went wrong, as far as the store's callers care. */
  public enum Kind {
    /** The node could not be reached, or went away: a restart, a failover, a network cut. */
    UNREACHABLE,
    /** The node answered the connection's set-up with an error: a refused password, AUTH, SELECT, HELLO. */
    REFUSED,
    /** The command was sent and no answer came in time. */
    TIMEOUT,
    /** Redis answered, with an error of its own: NOSCRIPT, READONLY, MOVED, a script's error. */
    ANSWERED
  }

  private final Kind kind;
  private final String origin;

  /**
   * @param origin the simple name of the client's exception, for messages
   * @param cause the client's exception
   */
  public RedisFailure(Kind kind, String message, String origin, Throwable cause) {
    super(message, cause);
    this.kind = kind;
    this.origin = origin;
  }

  public Kind kind() {
    return kind;
  }

  /** The simple name of the client's exception this stands for. */
  public String origin() {
    return origin;
  }
}
