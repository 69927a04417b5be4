package io.pixquota.bacen.pix;

/**
 * The provider answered something this client cannot read: malformed JSON, a wrong content type, an oversized body,
 * or an unexpected status.
 */
public final class PixUnexpectedResponseException extends PixException {
  private static final long serialVersionUID = 1L;

  PixUnexpectedResponseException(String message, int status, String problemType, String correlationId,
      Throwable cause) {
    super(message, status, problemType, correlationId, cause);
  }
}
