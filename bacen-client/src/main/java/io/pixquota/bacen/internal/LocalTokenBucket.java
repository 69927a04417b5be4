package io.pixquota.bacen.internal;

import io.pixquota.bacen.Acquisition;
import io.pixquota.bacen.Limit;
import io.pixquota.bacen.TokenBucket;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The same reservation bucket as {@code token_bucket.lua}, in memory: the local share of the quota a process uses
 * while Redis is unavailable ({@code LOCAL_FALLBACK}). This class is threadsafe.
 */
public final class LocalTokenBucket implements TokenBucket {
  private final String name;
  private final double[] capacity;
  private final double[] rate;
  private final double[] tokens;
  private final LongSupplier nanoClock;
  private long lastNanos;

  public LocalTokenBucket(String name, List<Limit> limits, LongSupplier nanoClock) {
    this.name = name;
    this.capacity = limits.stream().mapToDouble(Limit::capacity).toArray();
    this.rate = limits.stream().mapToDouble(Limit::refillPerSecond).toArray();
    this.tokens = capacity.clone();
    this.nanoClock = nanoClock;
    this.lastNanos = nanoClock.getAsLong();
  }

  @Override
  public String name() {
    return name;
  }

  private void refill(long now) {
    if (now > lastNanos) {
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = Math.min(capacity[i], tokens[i] + rate[i] * (now - lastNanos) / 1e9);
      }
      lastNanos = now;
    }
  }

  private double smallest() {
    double m = tokens[0];
    for (double t : tokens) {
      m = Math.min(m, t);
    }
    return m;
  }

  @Override
  public synchronized Acquisition acquire(double cost, Duration maxWait) {
    long now = nanoClock.getAsLong();
    refill(now);
    double waitNanos = 0;
    for (int i = 0; i < tokens.length; i++) {
      if (tokens[i] < cost) {
        waitNanos = Math.max(waitNanos, (cost - tokens[i]) / rate[i] * 1e9);
      }
    }
    long wait = (long) Math.ceil(waitNanos);
    long micros = now / 1000;
    if (wait > maxWait.toNanos()) {
      return new Acquisition(false, Duration.ofNanos(wait), smallest(), micros + wait / 1000, now);
    }
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] -= cost;
    }
    return new Acquisition(true, Duration.ofNanos(wait), smallest(), micros + wait / 1000, now);
  }

  @Override
  public synchronized double charge(double cost) {
    refill(nanoClock.getAsLong());
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] -= cost;
    }
    return smallest();
  }

  @Override
  public synchronized double refund(double cost) {
    refill(nanoClock.getAsLong());
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = Math.min(capacity[i], tokens[i] + cost);
    }
    return smallest();
  }
}
