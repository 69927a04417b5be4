package io.pixquota.throttle.plan;

import io.pixquota.throttle.support.Checks;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Client bucket settings that provably stay under a provider's quota while using nearly all of it.
 *
 * <h2>The arithmetic</h2>
 * A client bucket {@code (Bc, rc)} admits at most {@code Bc + rc * T} calls in any interval of length {@code T}.
 * Admission is not arrival: let {@code J} bound how much later than its slot one call can reach the provider
 * compared to another (lateness after the slot plus network jitter). Calls that arrive within an interval of length
 * {@code T} were admitted within an interval of length {@code T + J}, so at most {@code Bc + rc * (T + J)} arrive.
 * <ul>
 *   <li>Provider token bucket {@code (Bp, rp)}: it accepts {@code Bp + rp * T} in any {@code T}. With
 *       {@code rc <= rp}, {@code Bc + rc * (T + J) <= Bp + rp * T} for every {@code T} iff
 *       {@code Bc + rc * J <= Bp}. The plan takes {@code rc = rp * (1 - RATE_MARGIN)} and
 *       {@code Bc = Bp - rc * J}.</li>
 *   <li>Provider window of {@code N} per {@code W} (sliding or fixed): {@code Bc + rc * (W + J) <= N}. The plan
 *       takes {@code Bc = 1} (a smaller burst buys a higher sustained rate) and {@code rc = (N - 1) / (W + J)}.</li>
 * </ul>
 * Example: BACEN's 10 + 10/s with J = 100 ms: rc = 9.95/s, Bc = 10 - 9.95 x 0.1 = 9.005; utilization 99.5%.
 *
 * <p>This class is threadsafe (it has no state).
 */
public final class QuotaPlanner {
  /**
   * The client's rate stays this far below the provider's: 0.5%, for two clocks (Redis's and the provider's) that
   * never tick at exactly the same rate; real clock drift is parts per million, so this is ample and costs 0.5%.
   */
  public static final double RATE_MARGIN = 0.005;

  private QuotaPlanner() {}

  /** A plan for one bucket shared by every replica. */
  public static QuotaPlan plan(ProviderPolicy provider, Duration jitter) {
    return plan(provider, jitter, 1);
  }

  /**
   * A plan for one bucket shared by {@code replicas} processes; the replica count only sets the local share for
   * LOCAL_FALLBACK (1 / replicas), since the shared bucket already counts every replica's calls.
   *
   * @throws IllegalArgumentException when J is so large that no capacity of at least 1 is safe, or for bad input
   */
  public static QuotaPlan plan(ProviderPolicy provider, Duration jitter, int replicas) {
    Objects.requireNonNull(provider, "provider cannot be null");
    Checks.notNegativeAtMostADay("jitter", jitter);
    if (replicas < 1) {
      throw new IllegalArgumentException("replicas must be >= 1, but was " + replicas);
    }
    double j = jitter.toNanos() / 1e9;
    double rp = provider.ratePerSecond();
    double share = 1.0 / replicas;
    Duration lateLimit = jitter.dividedBy(2);
    if (provider.kind() == ProviderPolicy.Kind.TOKEN_BUCKET) {
      double rc = rp * (1 - RATE_MARGIN);
      double bc = provider.limit() - rc * j;
      if (bc < 1) {
        throw new IllegalArgumentException(String.format(Locale.ROOT, "jitter %s is too large for a provider "
            + "bucket of %s + %s/s: the client capacity would be %.3f, and at least 1 is needed; J must be at most "
            + "%.3f s", jitter, fmt(provider.limit()), fmt(rp), bc, (provider.limit() - 1) / rc));
      }
      String why = String.format(Locale.ROOT, "provider token bucket Bp = %s, rp = %s/s; J = %.3f s. "
          + "rc = rp x (1 - %.3f) = %.4f/s <= rp. Bc = Bp - rc x J = %s - %.4f x %.3f = %.4f >= 1. "
          + "Check: Bc + rc x J = %.4f <= Bp = %s, so at most Bp + rp x T arrive in any T. "
          + "Sustained utilization rc / rp = %.1f%%.", fmt(provider.limit()), fmt(rp), j, RATE_MARGIN, rc,
          fmt(provider.limit()), rc, j, bc, bc + rc * j, fmt(provider.limit()), 100 * rc / rp);
      return new QuotaPlan(bc, rc, jitter, lateLimit, rc / rp, share, why);
    }
    double n = provider.limit();
    double w = provider.period().toNanos() / 1e9;
    if (n < 2) {
      throw new IllegalArgumentException("a window of " + fmt(n) + " call(s) leaves no room for a bucket of "
          + "capacity 1 that also refills; the provider's limit must be at least 2");
    }
    double bc = 1;
    double rc = (n - bc) / (w + j);
    String why = String.format(Locale.ROOT, "provider %s window N = %s per W = %.3f s; J = %.3f s. "
        + "Bc = 1; rc = (N - Bc) / (W + J) = %.4f/s. Check: Bc + rc x (W + J) = %.4f <= N = %s. "
        + "Sustained utilization rc / (N / W) = %.1f%%.",
        provider.kind() == ProviderPolicy.Kind.SLIDING_WINDOW ? "sliding" : "fixed", fmt(n), w, j, rc,
        bc + rc * (w + j), fmt(n), 100 * rc / rp);
    return new QuotaPlan(bc, rc, jitter, lateLimit, rc / rp, share, why);
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.3f", v);
  }
}
