package io.pixquota.throttle.internal;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A bucket's settings in the form its step takes them, fixed for one process's use of one bucket: the configuration
 * lease, the rate adaptation, the process's id, and its limits as its configuration ("capacity:refill" per limit,
 * sorted, joined by ","). The Redis script gets them as its ARGV[6] ({@link #text()}); {@link BucketStep} takes them
 * as they are. Immutable.
 */
public final class StepSettings {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final long leaseMicros;
  private final long maxLeaseMicros;
  private final Adaptation adaptation;
  private final String replica;
  private final String configuration;
  private final String shares;
  private final String text;

  /**
   * @param maxLeaseMicros the longest lease this process believes of any configuration (at least its own)
   * @param replica        this process's id for the bucket: 1 to 32 letters and digits ({@link #newReplicaId()})
   */
  public StepSettings(long leaseMicros, long maxLeaseMicros, Adaptation adaptation, String replica,
      List<LimitArgs> limits) {
    this(leaseMicros, maxLeaseMicros, adaptation, replica, limits, null);
  }

  /**
   * The same with shares within the bucket: each flow's weight, "*" among them (the flows not named).
   *
   * @param shares null for none; else flow names of 1 to 64 letters, digits, '.', '_' and '-' (and "*"), each with
   *               a finite weight above 0, for a configuration of one limit whose capacity gives each flow one call
   * @throws IllegalArgumentException naming the shares and what is wrong with them
   */
  public StepSettings(long leaseMicros, long maxLeaseMicros, Adaptation adaptation, String replica,
      List<LimitArgs> limits, Map<String, Double> shares) {
    this.leaseMicros = leaseMicros;
    this.maxLeaseMicros = maxLeaseMicros;
    this.adaptation = adaptation;
    if (!replica.matches("[A-Za-z0-9]{1,32}")) {
      throw new IllegalArgumentException("replica must be 1 to 32 letters and digits, but was '" + replica + "'");
    }
    this.replica = replica;
    List<String> mine = new ArrayList<>();
    for (LimitArgs l : limits) {
      mine.add(l.capacity() + ":" + l.refill());
    }
    mine.sort(null);
    this.configuration = String.join(",", mine);
    this.shares = shares == null ? null : plan(shares, limits);
    this.text = replica + " " + configuration + " " + leaseMicros + " " + maxLeaseMicros + " " + adaptation.decrease()
        + " " + adaptation.increasePerSecond() + " " + adaptation.floor() + " " + adaptation.maxHoldMicros() + " "
        + adaptation.loneRecoveryMicros() + (this.shares == null ? "" : " " + this.shares);
  }

  private static String plan(Map<String, Double> shares, List<LimitArgs> limits) {
    if (!shares.containsKey("*") || limits.size() != 1) {
      throw new IllegalArgumentException("shares must name the flow '*' (the flows not named) and apply to one limit,"
          + " but were " + shares + " for " + limits.size() + " limits");
    }
    if (Double.parseDouble(limits.get(0).capacity()) < shares.size()) {
      throw new IllegalArgumentException("shares " + shares.keySet() + " need a capacity of at least one call per"
          + " flow (" + shares.size() + "), but the capacity is " + limits.get(0).capacity());
    }
    StringBuilder plan = new StringBuilder();
    for (Map.Entry<String, Double> e : new TreeMap<>(shares).entrySet()) {
      if (!e.getKey().matches("[A-Za-z0-9._-]{1,64}|\\*")) {
        throw new IllegalArgumentException("a flow's name must be 1 to 64 letters, digits, '.', '_' or '-', but was '"
            + e.getKey() + "'");
      }
      if (e.getValue() == null || !(e.getValue() >= 0) || e.getValue().isInfinite()) {
        throw new IllegalArgumentException("the share of flow '" + e.getKey() + "' must be a number of 0 or more, but"
            + " was " + e.getValue());
      }
      plan.append(plan.length() == 0 ? "" : ",").append(e.getKey()).append('=').append(e.getValue().doubleValue());
    }
    if (!(shares.values().stream().mapToDouble(Double::doubleValue).sum() > 0)) {
      throw new IllegalArgumentException("shares must give at least one flow a share above 0, but were " + shares);
    }
    return plan.toString();
  }

  public long leaseMicros() {
    return leaseMicros;
  }

  /** The longest lease this process believes of any configuration: a dead replica's stops counting within it. */
  public long maxLeaseMicros() {
    return maxLeaseMicros;
  }

  public Adaptation adaptation() {
    return adaptation;
  }

  public String replica() {
    return replica;
  }

  /** The configuration's id: its limits, "capacity:refill", sorted as strings, joined by ",". */
  public String configuration() {
    return configuration;
  }

  /** The shares within the bucket, "flow=weight" sorted by flow and joined by ","; null when none. */
  public String shares() {
    return shares;
  }

  /**
   * The script's ARGV[2]: "replica configuration lease maxLease decrease increase floor maxHold loneRecovery" (its
   * common path reads the first four).
   */
  public String text() {
    return text;
  }

  /**
   * How the shared rate follows the provider's refusals: cut to {@code decrease} of itself, then back up by
   * {@code increasePerSecond} of the configured rate per second, never below {@code floor} of it; a refusal holds
   * the bucket for at most {@code maxHoldMicros}; after a lone cut, the rate is back where it was within
   * {@code loneRecoveryMicros} (0: no fast way back).
   */
  public record Adaptation(double decrease, double increasePerSecond, double floor, long maxHoldMicros,
      long loneRecoveryMicros) {}

  /** One limit as the caller formats it. */
  public record LimitArgs(String capacity, String refill) {}

  /** A new id for one process's use of one bucket: 12 random base-36 characters. */
  public static String newReplicaId() {
    StringBuilder id = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      id.append(Character.forDigit(RANDOM.nextInt(36), 36));
    }
    return id.toString();
  }
}
