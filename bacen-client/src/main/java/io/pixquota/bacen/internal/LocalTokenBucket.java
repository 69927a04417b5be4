package io.pixquota.bacen.internal;

import io.pixquota.bacen.Acquisition;
import io.pixquota.bacen.Limit;
import io.pixquota.bacen.TokenBucket;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The reservation bucket of {@code token_bucket.lua}, in memory and step for step the same arithmetic (whole
 * microseconds, the same rounding): the local share of the quota a process uses while Redis is unavailable
 * ({@code LOCAL_FALLBACK}), and the client bucket of the planner's simulations. The shared contract test runs against
 * both. This class is threadsafe.
 */
public final class LocalTokenBucket implements TokenBucket {
  /** The script's cap on a wait: 2^53 - 1 microseconds, the largest whole number a Lua number holds exactly. */
  static final double MAX_WAIT_MICROS = (1L << 53) - 1;

  private final String name;
  private final List<Limit> limits;
  private final double maxCost;
  private final LongSupplier nanoClock;
  /** Tokens per limit after the last write (negative: booked ahead), or null before the first, like a missing key. */
  private double[] state;
  private long lastMicros;

  /**
   * @param nanoClock the bucket's clock in nanoseconds; decisions are taken in its whole microseconds, and
   *                  {@link Acquisition#answeredAtNanos()} is read from it
   */
  public LocalTokenBucket(String name, List<Limit> limits, LongSupplier nanoClock) {
    this.name = Checks.notBlank("name", name);
    this.limits = List.copyOf(limits);
    if (this.limits.isEmpty()) {
      throw new IllegalArgumentException("bucket '" + name + "' needs at least one limit");
    }
    this.maxCost = this.limits.stream().mapToDouble(Limit::capacity).min().orElseThrow();
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock cannot be null");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<Limit> limits() {
    return limits;
  }

  @Override
  public synchronized Acquisition acquire(double cost, Duration maxWait) {
    Checks.cost(cost, maxCost);
    long maxWaitMicros = Checks.saturatedMicros(Checks.notNegative("maxWait", maxWait));
    long nanos = nanoClock.getAsLong();
    long now = decisionMicros(nanos);
    double[] tokens = refilled(now);
    double wait = 0;
    for (int i = 0; i < tokens.length; i++) {
      if (tokens[i] < cost) {
        wait = Math.max(wait, (cost - tokens[i]) / limits.get(i).refillPerSecond() * 1_000_000);
      }
    }
    long waitMicros = (long) Math.min(Math.ceil(wait), MAX_WAIT_MICROS);
    boolean granted = waitMicros <= maxWaitMicros;
    if (granted) { // a refusal records nothing, as in the script
      take(tokens, cost);
      write(tokens, now);
    }
    return new Acquisition(granted, Duration.of(waitMicros, ChronoUnit.MICROS), smallest(tokens), now + waitMicros,
        nanos);
  }

  @Override
  public synchronized double charge(double cost) {
    Checks.tokens("cost", cost);
    long now = decisionMicros(nanoClock.getAsLong());
    double[] tokens = refilled(now);
    take(tokens, cost);
    write(tokens, now);
    return smallest(tokens);
  }

  @Override
  public synchronized double refund(double cost) {
    Checks.tokens("cost", cost);
    long now = decisionMicros(nanoClock.getAsLong());
    double[] tokens = refilled(now);
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = Math.min(limits.get(i).capacity(), tokens[i] + cost);
    }
    write(tokens, now);
    return smallest(tokens);
  }

  /** The clock in whole microseconds, never before the last write: a clock that runs back mints nothing. */
  private long decisionMicros(long nanos) {
    long clock = Math.floorDiv(nanos, 1000);
    return state == null ? clock : Math.max(clock, lastMicros);
  }

  /** The tokens at {@code now}: full before the first write, else refilled since it and capped at capacity. */
  private double[] refilled(long now) {
    double[] tokens = new double[limits.size()];
    for (int i = 0; i < tokens.length; i++) {
      Limit l = limits.get(i);
      tokens[i] = state == null ? l.capacity()
          : Math.min(l.capacity(), state[i] + l.refillPerSecond() * (double) (now - lastMicros) / 1_000_000);
    }
    return tokens;
  }

  private void write(double[] tokens, long now) {
    state = tokens;
    lastMicros = now;
  }

  private static void take(double[] tokens, double cost) {
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] -= cost;
    }
  }

  private static double smallest(double[] tokens) {
    double m = tokens[0];
    for (double t : tokens) {
      m = Math.min(m, t);
    }
    return m;
  }

  @Override
  public String toString() {
    return "LocalTokenBucket{name=" + name + ", limits=" + limits + "}";
  }
}
