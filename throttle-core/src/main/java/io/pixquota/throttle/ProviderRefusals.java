package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.support.RetryAfter;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a throttle does with the provider's 429 on a call its bucket admitted: a 429 the bucket did not expect. It
 * counts it, decides whether it is the provider's (the quota signal, when one is configured: a gateway's or a WAF's
 * 429 lacks it), reads how long the provider asked to wait (Retry-After, else a RateLimit reset that says nothing is
 * left), tells the bucket (which may cut the fleet's rate and hold every slot, within its bounds), and logs a cut with
 * its cause, at most once a minute. A failure here never fails the response. Threadsafe.
 */
final class ProviderRefusals {
  private static final Logger LOG = LoggerFactory.getLogger(Throttle.class);

  private final String quotaSignal;
  private final TimeSource time;
  private final ThrottleMetrics metrics;
  private final AtomicLong lastCutWarnNanos;
  private final AtomicLong lastIgnoredWarnNanos;

  /** @param quotaSignal the header the provider's own 429s carry; null: every 429 counts */
  ProviderRefusals(String quotaSignal, TimeSource time, ThrottleMetrics metrics) {
    this.quotaSignal = quotaSignal;
    this.time = time;
    this.metrics = metrics;
    this.lastCutWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
    this.lastIgnoredWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
  }

  /**
   * @param route   the route that chose the bucket, as logs name it
   * @param granted the booking the refused call left on
   * @param headers the response's header of a name, or null
   */
  void refused(TokenBucket bucket, String route, Acquisition granted, UnaryOperator<String> headers) {
    metrics.providerRefused(bucket.name());
    if (quotaSignal != null && headers.apply(quotaSignal) == null) {
      metrics.refusalIgnored(bucket.name(), "no-signal");
      if (due(lastIgnoredWarnNanos)) {
        LOG.warn("Bucket '{}': a 429 without the provider's {} header (a gateway, a WAF, a proxy?) was not counted "
            + "against the fleet's rate (see bacen.throttle.provider.ignored)", bucket.name(), quotaSignal);
      }
      return;
    }
    String retryAfter = headers.apply("Retry-After");
    String rateLimit = headers.apply("RateLimit");
    Duration hold = RetryAfter.parse(retryAfter, time.now());
    if (hold == null) {
      hold = RetryAfter.fromRateLimit(rateLimit);
    }
    try {
      TokenBucket.Refusal outcome = bucket.providerRefused(granted, hold == null ? Duration.ZERO : hold);
      if (outcome == TokenBucket.Refusal.CUT) {
        metrics.rateCut(bucket.name());
        if (due(lastCutWarnNanos)) {
          LOG.warn("Bucket '{}': the provider answered 429 to a call of {} (Retry-After: {}, RateLimit: {}): the "
              + "fleet's rate is cut to {} of the configured one (see bacen.throttle.rate.cuts)", bucket.name(),
              route, retryAfter, rateLimit, String.format(Locale.ROOT, "%.3f", bucket.readings().rateFactor()));
        }
      } else if (outcome == TokenBucket.Refusal.NOT_COUNTED) {
        metrics.refusalIgnored(bucket.name(), "uncorroborated");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (StoreUnavailableException | RuntimeException e) {
      metrics.redisError(bucket.name());
      LOG.warn("Bucket '{}': could not tell it of the provider's 429: {}", bucket.name(), e.getMessage());
    }
  }

  /** Whether a WARN of this kind is due: at most one a minute. */
  private boolean due(AtomicLong last) {
    long now = time.nanoTime();
    long before = last.get();
    return now - before > TimeUnit.MINUTES.toNanos(1) && last.compareAndSet(before, now);
  }
}
