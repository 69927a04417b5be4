package io.pixquota.bacen.pix;

/** The provider refused the request as invalid (400). */
public final class PixInvalidRequestException extends PixException {
  private static final long serialVersionUID = 1L;

  PixInvalidRequestException(String message, int status, String problemType, String correlationId, Throwable cause) {
    super(message, status, problemType, correlationId, cause);
  }
}
