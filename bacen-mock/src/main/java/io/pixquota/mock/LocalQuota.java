package io.pixquota.mock;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** In-memory quotas: token bucket, sliding window (exact log of arrivals) and fixed window. */
final class LocalQuota implements Quota {
  private final QuotaPolicy policy;
  private final Map<String, Object> states = new ConcurrentHashMap<>();
  private final long periodNanos;

  LocalQuota(QuotaPolicy policy) {
    this.policy = policy;
    this.periodNanos = policy.periodMillis() * 1_000_000L;
  }

  private static final class Bucket {
    double tokens;
    long lastNanos;

    Bucket(double tokens, long lastNanos) {
      this.tokens = tokens;
      this.lastNanos = lastNanos;
    }
  }

  private static final class Window {
    final ArrayDeque<Long> arrivals = new ArrayDeque<>();
    long index = Long.MIN_VALUE;
    long count;
  }

  @Override
  public QuotaPolicy policy() {
    return policy;
  }

  @Override
  public void reset() {
    states.clear();
  }

  private double ratePerNano() {
    return policy.refillTokens() / periodNanos;
  }

  private Bucket bucket(String integrator, long now) {
    Bucket b = (Bucket) states.computeIfAbsent(integrator, k -> new Bucket(policy.limit(), now));
    if (now > b.lastNanos) {
      b.tokens = Math.min(policy.limit(), b.tokens + (now - b.lastNanos) * ratePerNano());
      b.lastNanos = now;
    }
    return b;
  }

  private Window window(String integrator, long now) {
    Window w = (Window) states.computeIfAbsent(integrator, k -> new Window());
    if (policy.kind() == QuotaPolicy.Kind.SLIDING) {
      while (!w.arrivals.isEmpty() && w.arrivals.peekFirst() <= now - periodNanos) {
        w.arrivals.pollFirst();
      }
    } else {
      long index = Math.floorDiv(now, periodNanos);
      if (index != w.index) {
        w.index = index;
        w.count = 0;
      }
    }
    return w;
  }

  @Override
  public Decision acquire(String integrator, long now) {
    Object lock = states.computeIfAbsent(integrator, k -> policy.kind() == QuotaPolicy.Kind.BUCKET
        ? new Bucket(policy.limit(), now) : new Window());
    synchronized (lock) {
      switch (policy.kind()) {
        case BUCKET: {
          Bucket b = bucket(integrator, now);
          boolean allowed = b.tokens >= 1;
          if (allowed) {
            b.tokens -= 1;
          }
          long reset = Quota.ceilSeconds((policy.limit() - b.tokens) / ratePerNano());
          return allowed ? new Decision(true, (long) Math.floor(b.tokens), reset, 0)
              : new Decision(false, 0, reset, Quota.ceilSeconds((1 - b.tokens) / ratePerNano()));
        }
        case SLIDING: {
          Window w = window(integrator, now);
          if (w.arrivals.size() < policy.limit()) {
            w.arrivals.addLast(now);
            return new Decision(true, policy.limit() - w.arrivals.size(),
                Quota.ceilSeconds(w.arrivals.peekFirst() + periodNanos - now), 0);
          }
          long retry = Quota.ceilSeconds(w.arrivals.peekFirst() + periodNanos - now);
          return new Decision(false, 0, retry, retry);
        }
        default: {
          Window w = window(integrator, now);
          long reset = Quota.ceilSeconds((w.index + 1) * periodNanos - now);
          if (w.count < policy.limit()) {
            w.count++;
            return new Decision(true, policy.limit() - w.count, reset, 0);
          }
          return new Decision(false, 0, reset, reset);
        }
      }
    }
  }

  @Override
  public void charge(String integrator, double extra, long now) {
    Object lock = states.get(integrator);
    if (lock == null || extra <= 0) {
      return;
    }
    synchronized (lock) {
      switch (policy.kind()) {
        case BUCKET -> bucket(integrator, now).tokens -= extra;
        case SLIDING -> {
          Window w = window(integrator, now);
          for (int i = 0; i < Math.ceil(extra); i++) {
            w.arrivals.addLast(now);
          }
        }
        default -> window(integrator, now).count += (long) Math.ceil(extra);
      }
    }
  }

  @Override
  public State state(String integrator, long now) {
    Object lock = states.computeIfAbsent(integrator, k -> policy.kind() == QuotaPolicy.Kind.BUCKET
        ? new Bucket(policy.limit(), now) : new Window());
    synchronized (lock) {
      return switch (policy.kind()) {
        case BUCKET -> new State(Math.max(0, bucket(integrator, now).tokens));
        case SLIDING -> new State(Math.max(0, policy.limit() - window(integrator, now).arrivals.size()));
        default -> new State(Math.max(0, policy.limit() - window(integrator, now).count));
      };
    }
  }
}
