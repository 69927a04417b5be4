package io.pixquota.throttle.support;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What the SDK's async paths share. */
public final class Async {
  private Async() {}

  /** The failure a stage completed with, without the {@link CompletionException} or ExecutionException around it. */
  public static Throwable cause(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** {@code failure} as a stage's exception: itself when it already is one, else wrapped. */
  public static CompletionException rethrown(Throwable failure) {
    return failure instanceof CompletionException c ? c : new CompletionException(failure);
  }
}
