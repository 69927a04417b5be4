package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.support.TimeSource;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which bucket a {@link FallbackTokenBucket} uses now, shared by the buckets of its flows: the shared one, or the
 * local share while the shared one failed less than the retry interval ago. One WARN per transition; the listener is
 * told of every store error and every transition. Threadsafe.
 */
final class FallbackState {
  private static final Logger LOG = LoggerFactory.getLogger(FallbackTokenBucket.class);

  private final String name;
  private final double share;
  private final long retryNanos;
  private final TimeSource time;
  private final FallbackTokenBucket.Listener listener;
  private final AtomicBoolean active = new AtomicBoolean();
  private volatile long retrySharedAtNanos;

  FallbackState(String name, double share, long retryNanos, TimeSource time, FallbackTokenBucket.Listener listener) {
    this.name = name;
    this.share = share;
    this.retryNanos = retryNanos;
    this.time = time;
    this.listener = listener;
  }

  /** Whether the fallback is in use now. */
  boolean active() {
    return active.get();
  }

  /** False while the shared bucket failed less than the retry interval ago. */
  boolean useShared() {
    return !active.get() || time.nanoTime() - retrySharedAtNanos >= 0;
  }

  void sharedAnswered() {
    if (active.compareAndSet(true, false)) {
      listener.fallbackActive(name, false);
      LOG.warn("Bucket '{}': Redis answers again; back to the shared bucket", name);
    }
  }

  void sharedFailed(StoreUnavailableException e) {
    listener.storeFailed(name);
    retrySharedAtNanos = time.nanoTime() + retryNanos;
    if (active.compareAndSet(false, true)) {
      listener.fallbackActive(name, true);
      LOG.warn("Bucket '{}': Redis unavailable ({}); using this process's local share ({} of the quota)", name,
          e.getMessage(), share);
    }
  }
}
