package io.pixquota.bacen.dict;

/**
 * The mirror did not let the lookup go: a participant bucket's slot was further than the max wait, or the mirror's
 * store (Redis) did not answer. Not sent.
 */
public final class DictThrottledException extends DictException {
  private static final long serialVersionUID = 1L;

  DictThrottledException(String message, Throwable cause) {
    super(message, cause);
  }
}
