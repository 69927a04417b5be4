package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.support.Checks;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * What a {@link Throttle} needs to know of a request before it is sent: its host, method and encoded path (which
 * quota it takes, if any), its priority class, how long it may wait at most, and whether it was cancelled.
 *
 * @param method      the HTTP method
 * @param encodedPath the request's encoded path (never logged: it may hold ids)
 * @param priority    its class; null for the throttle's {@link ThrottleBuilder#defaultPriority default}
 * @param maxWait     the longest this request may wait (what its timeout leaves it, say); null for the throttle's
 *                    {@link ThrottleBuilder#maxWait max wait}, and never longer than it
 * @param canceled    whether its caller gave up; checked while it waits (a cancelled request is never sent)
 * @param bucket      the bucket it books on instead of its quota's ({@link #withBucket}); null: its quota's
 * @param host        the host it goes to, lower case (a quota may match it); null: unknown, matches only quotas that
 *                    name no host
 * @param flow        the service it is for, when its quota has shares; null: the throttle's
 *                    {@link ThrottleBuilder#flow flow}
 */
public record ThrottleRequest(String method, String encodedPath, Priority priority, Duration maxWait,
    BooleanSupplier canceled, TokenBucket bucket, String host, String flow) {
  static final BooleanSupplier NEVER = () -> false;

  /** @throws IllegalArgumentException for a blank method; NullPointerException for a null path */
  public ThrottleRequest {
    Checks.notBlank("method", method);
    Objects.requireNonNull(encodedPath, "encodedPath cannot be null");
    if (maxWait != null) {
      Checks.notNegative("maxWait", maxWait);
    }
    canceled = canceled != null ? canceled : NEVER;
    host = host == null ? null : host.toLowerCase(Locale.ROOT);
  }

  /** A request of the throttle's flow. */
  public ThrottleRequest(String method, String encodedPath, Priority priority, Duration maxWait,
      BooleanSupplier canceled, TokenBucket bucket, String host) {
    this(method, encodedPath, priority, maxWait, canceled, bucket, host, null);
  }

  /** A request that books on its route's bucket. */
  public ThrottleRequest(String method, String encodedPath, Priority priority, Duration maxWait,
      BooleanSupplier canceled) {
    this(method, encodedPath, priority, maxWait, canceled, null, null, null);
  }

  /** A request of the default class, with the throttle's max wait, that only an interrupt cancels. */
  public static ThrottleRequest of(String method, String encodedPath) {
    return new ThrottleRequest(method, encodedPath, null, null, NEVER, null, null, null);
  }

  /** This request in another class (null: the default). */
  public ThrottleRequest withPriority(Priority p) {
    return new ThrottleRequest(method, encodedPath, p, maxWait, canceled, bucket, host, flow);
  }

  /** This request with a max wait of its own (null: the throttle's). */
  public ThrottleRequest withMaxWait(Duration wait) {
    return new ThrottleRequest(method, encodedPath, priority, wait, canceled, bucket, host, flow);
  }

  /** This request, cancelled when {@code whether} says so. */
  public ThrottleRequest withCanceled(BooleanSupplier whether) {
    return new ThrottleRequest(method, encodedPath, priority, maxWait, Objects.requireNonNull(whether,
        "canceled cannot be null"), bucket, host, flow);
  }

  /**
   * This request books one token of {@code bucket} instead of its route's charge (its route still gives its pool):
   * a decision made for this request alone, such as a DICT lookup's buckets (its end user's and the participant's,
   * one {@code BucketGroup} step). Its route's response costs do not apply. Null: the route's bucket.
   */
  public ThrottleRequest withBucket(TokenBucket own) {
    return new ThrottleRequest(method, encodedPath, priority, maxWait, canceled, own, host, flow);
  }

  /** This request, going to {@code to} (a quota may match its host; null: unknown). */
  public ThrottleRequest withHost(String to) {
    return new ThrottleRequest(method, encodedPath, priority, maxWait, canceled, bucket, to, flow);
  }

  /**
   * This request, for the service {@code service} (its quota's shares name the flows; one they do not name takes the
   * share of "*"). Null: the throttle's flow.
   */
  public ThrottleRequest withFlow(String service) {
    return new ThrottleRequest(method, encodedPath, priority, maxWait, canceled, bucket, host, service);
  }
}
