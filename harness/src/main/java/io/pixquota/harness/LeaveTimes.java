package io.pixquota.harness;

import okhttp3.Call;
import okhttp3.EventListener;

/**
 * Notes, per thread, when a request leaves (OkHttp starts writing its headers: after any wait for its slot in a
 * network interceptor). Synchronous calls run on the caller's thread, so the caller takes its own time back.
 */
public final class LeaveTimes extends EventListener {
  private final ThreadLocal<Long> leftAt = new ThreadLocal<>();

  @Override
  public void requestHeadersStart(Call call) {
    leftAt.set(System.nanoTime());
  }

  /** System.nanoTime() when this thread's last request left, or null if none did; clears it. */
  public Long take() {
    Long v = leftAt.get();
    leftAt.remove();
    return v;
  }
}
