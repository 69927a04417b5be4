package io.pixquota.throttle;

import java.util.ArrayList;
import java.util.List;

/** Notes what a {@link FallbackTokenBucket} reports: "failed NAME", "fallback NAME true|false". */
public final class RecordingListener implements FallbackTokenBucket.Listener {
  private final List<String> events = new ArrayList<>();

  @Override
  public synchronized void storeFailed(String bucket) {
    events.add("failed " + bucket);
  }

  @Override
  public synchronized void fallbackActive(String bucket, boolean active) {
    events.add("fallback " + bucket + " " + active);
  }

  public synchronized List<String> events() {
    return List.copyOf(events);
  }
}
