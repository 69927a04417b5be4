package io.pixquota.bacen.dict;

/**
 * A DICT lookup that did not return an entry. Unchecked; each subclass says why, and none holds an end user's id or
 * a key beyond its last characters.
 */
public class DictException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  DictException(String message, Throwable cause) {
    super(message, cause);
  }
}
