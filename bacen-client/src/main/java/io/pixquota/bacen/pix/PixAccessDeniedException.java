package io.pixquota.bacen.pix;

/** The provider refused the credentials or the token (401, 403). */
public final class PixAccessDeniedException extends PixException {
  private static final long serialVersionUID = 1L;

  PixAccessDeniedException(String message, int status, String problemType, String correlationId, Throwable cause) {
    super(message, status, problemType, correlationId, cause);
  }
}
