package io.pixquota.bacen.pix;

/** The Pix or charge does not exist (404). */
public final class PixNotFoundException extends PixException {
  private static final long serialVersionUID = 1L;

  PixNotFoundException(String message, int status, String problemType, String correlationId, Throwable cause) {
    super(message, status, problemType, correlationId, cause);
  }
}
