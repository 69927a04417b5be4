package io.pixquota.bacen.pix;

import java.time.Duration;
import java.util.Optional;

/**
 * Base of the PIX client's unchecked exceptions. Messages carry the HTTP status, the problem type and the
 * correlationId the provider sent, never a bearer token, a client secret or a whole id.
 */
public abstract class PixException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int status;
  private final String problemType;
  private final String correlationId;
  private final Duration retryAfter;

  PixException(String message, int status, String problemType, String correlationId, Throwable cause) {
    this(message, status, problemType, correlationId, null, cause);
  }

  PixException(String message, int status, String problemType, String correlationId, Duration retryAfter,
      Throwable cause) {
    super(message + describe(status, problemType, correlationId), cause);
    this.status = status;
    this.problemType = problemType;
    this.correlationId = correlationId;
    this.retryAfter = retryAfter;
  }

  private static String describe(int status, String type, String correlationId) {
    StringBuilder sb = new StringBuilder();
    if (status > 0) {
      sb.append(" (status ").append(status);
      if (type != null) {
        sb.append(", type ").append(type);
      }
      if (correlationId != null) {
        sb.append(", correlationId ").append(correlationId);
      }
      sb.append(')');
    }
    return sb.toString();
  }

  /** The HTTP status, or 0 when no response was received. */
  public int status() {
    return status;
  }

  /** The problem's {@code type} URI, or null. */
  public String problemType() {
    return problemType;
  }

  /** The provider's correlationId, or null: quote it to the provider's support. */
  public String correlationId() {
    return correlationId;
  }

  /** The provider's Retry-After, rounded up to whole seconds, when it sent a valid one (DICT sends none). */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
