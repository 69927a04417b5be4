package io.pixquota.bacen;

import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.bacen.internal.Checks;
import io.pixquota.bacen.internal.LocalTokenBucket;
import io.pixquota.bacen.internal.ThrottleMetrics;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OkHttp application interceptor that books a slot in a shared {@link TokenBucket} before each call, sleeps until
 * that slot, and only then proceeds: no request reaches the network before its slot, and {@code chain.proceed} is
 * called exactly once.
 *
 * <p><b>Where to add it.</b> As a <em>network</em> interceptor
 * ({@code OkHttpClient.Builder.addNetworkInterceptor}, what {@code PixClient} does), the slot is booked after OkHttp
 * has a connection, so connection set-up on a cold start cannot make calls leave late and bunch with the next slots;
 * every request that reaches the network, retries and redirects included, takes its own slot. As an application
 * interceptor it works too, but connection set-up then happens after the wait.
 *
 * <p>Which bucket and what cost: the first matching {@link Builder#rule rule} (method and path pattern), else the
 * default bucket with cost 1. After the response, optional {@link Builder#responseCost response costs} charge or
 * refund the difference on the same bucket (a provider that charges 20 tokens for a 404).
 *
 * <p>Failures are {@link IOException}s, as OkHttp expects of interceptors: {@link ThrottleRefusedException} when the
 * slot is further than the max wait (the smaller of the configured one and the time left on the call's timeout);
 * {@link ThrottleUnavailableException} when the bucket cannot be reached and the policy is
 * {@link RedisUnavailablePolicy#FAIL_CLOSED}; {@link InterruptedIOException} when the thread is interrupted or the call
 * cancelled while waiting (the interrupt flag stays set, the request is never sent, and the booked tokens are given
 * back).
 *
 * <p><b>Async calls.</b> With {@code enqueue()}, the wait happens on an OkHttp dispatcher thread, which holds one of
 * the dispatcher's slots ({@code maxRequests}, default 64; {@code maxRequestsPerHost}, default 5) while it sleeps.
 * Size them for the calls that may be waiting at once: at least {@code rate x maxWait + capacity} per host, or calls
 * queue inside the dispatcher before they even reach the bucket.
 *
 * <p>This class is threadsafe.
 */
public final class ThrottlingInterceptor implements Interceptor {
  private static final Logger LOG = LoggerFactory.getLogger(ThrottlingInterceptor.class);
  /** How often a sleeping call checks whether it was cancelled: well under the 50 ms in which it must let go. */
  private static final long CANCEL_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /**
   * How many times a call that woke too late books a fresh slot before it leaves anyway: each rebooking costs a
   * token and a round trip, and a machine that oversleeps three times in a row will not do better on the fourth.
   */
  static final int MAX_REBOOKS = 3;

  /** Default of {@link Builder#lateLimit}: 50 ms. */
  public static final Duration DEFAULT_LATE_LIMIT = Duration.ofMillis(50);

  private final TokenBucket defaultBucket;
  private final List<Rule> rules;
  private final Map<Integer, Double> responseCosts;
  private final Duration maxWait;
  private final Duration lateLimit;
  private final Duration assumedJitter;
  private final java.util.concurrent.atomic.AtomicLong lastMarginWarnNanos =
      new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - TimeUnit.MINUTES.toNanos(2));
  private final RedisUnavailablePolicy unavailablePolicy;
  private final double localShare;
  private final Duration localRetryInterval;
  private final ThrottleMetrics metrics;
  private final Map<String, Fallback> fallbacks = new ConcurrentHashMap<>();

  private record Rule(String method, Pattern path, TokenBucket bucket, double cost) {
    boolean matches(Request request) {
      return (method == null || method.equalsIgnoreCase(request.method()))
          && path.matcher(request.url().encodedPath()).matches();
    }
  }

  /** The local share of one bucket while Redis is away, and when to try Redis again. */
  private static final class Fallback {
    final LocalTokenBucket local;
    volatile long retryRedisAtNanos;
    volatile boolean active;

    Fallback(LocalTokenBucket local) {
      this.local = local;
    }
  }

  private ThrottlingInterceptor(Builder b) {
    this.defaultBucket = b.defaultBucket;
    this.rules = List.copyOf(b.rules);
    this.responseCosts = Map.copyOf(b.responseCosts);
    this.maxWait = b.maxWait;
    this.lateLimit = b.lateLimit;
    this.assumedJitter = b.assumedJitter;
    this.unavailablePolicy = b.unavailablePolicy;
    this.localShare = b.localShare;
    this.localRetryInterval = b.localRetryInterval;
    this.metrics = new ThrottleMetrics(b.registry);
    // Meters are made now, not on a call's path: registering a histogram for the first time took hundreds of
    // milliseconds on a cold, loaded JVM, between the lateness check and the send.
    metrics.register(defaultBucket.name());
    rules.forEach(r -> metrics.register(r.bucket().name()));
  }

  /** A builder whose default bucket takes every request that no rule matches. */
  public static Builder builder(TokenBucket defaultBucket) {
    return new Builder(defaultBucket);
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    Rule rule = match(request);
    TokenBucket bucket = rule == null ? defaultBucket : rule.bucket();
    double cost = rule == null ? 1 : rule.cost();
    Duration effectiveMaxWait = effectiveMaxWait(chain.call());

    long askedAt = System.nanoTime();
    Booked booked = bookAndSleep(bucket, cost, effectiveMaxWait, effectiveMaxWait, chain.call());
    long late = System.nanoTime() - booked.slotNanos();
    for (int rebooks = 0; late > lateLimit.toNanos() && rebooks < MAX_REBOOKS; rebooks++) {
      // Woke too late: leaving now could bunch with the calls booked right after us and breach the provider's
      // bucket. Book a fresh slot after them instead. The missed slot is not given back (conservative).
      metrics.rebooked(bucket.name());
      Duration left = effectiveMaxWait.minusNanos(System.nanoTime() - askedAt);
      booked = bookAndSleep(booked.bucket(), cost, left.isNegative() ? Duration.ZERO : left, effectiveMaxWait,
          chain.call());
      late = System.nanoTime() - booked.slotNanos();
    }
    TokenBucket used = booked.bucket();
    if (assumedJitter != null && late > assumedJitter.toNanos()) {
      marginExceeded(bucket.name(), late);
    }
    long waitedNanos = System.nanoTime() - askedAt;
    Response response;
    try {
      response = chain.proceed(request); // nothing between the lateness check and the send
    } finally {
      metrics.granted(bucket.name(), Duration.ofNanos(waitedNanos));
      metrics.lateness(bucket.name(), late);
    }
    Double total = responseCosts.get(response.code());
    if (total != null && total != cost) {
      settle(used, total - cost);
    }
    return response;
  }

  /** A call left later than the plan's J allows: the plan is no longer provably safe. WARN at most once a minute. */
  private void marginExceeded(String bucket, long lateNanos) {
    metrics.marginExceeded(bucket);
    long last = lastMarginWarnNanos.get();
    long now = System.nanoTime();
    if (now - last > TimeUnit.MINUTES.toNanos(1) && lastMarginWarnNanos.compareAndSet(last, now)) {
      LOG.warn("Bucket '{}': a call left {} ms after its slot, more than the {} ms of jitter its plan assumes; the "
          + "settings are no longer provably under the provider's quota (see bacen.throttle.margin.exceeded)",
          bucket, TimeUnit.NANOSECONDS.toMillis(lateNanos), assumedJitter.toMillis());
    }
  }

  /** A booked slot, in the bucket that booked it (the shared one, or the local share while Redis is away). */
  private record Booked(TokenBucket bucket, long slotNanos) {}

  /**
   * Books a slot and sleeps until it. The slot in our clock: Redis decided before its answer reached this process,
   * so answeredAt + wait is never early. answeredAt is taken on the I/O thread, not when this thread got round to
   * reading the answer: a thread starved of CPU after Redis answered (up to 400 ms on a loaded 2-core machine)
   * counts as late and rebooks, instead of leaving "on time" by its own reckoning together with the burst.
   *
   * @param maxWait         the wait this booking may accept
   * @param reportedMaxWait the call's max wait, quoted in a refusal
   */
  private Booked bookAndSleep(TokenBucket bucket, double cost, Duration maxWait, Duration reportedMaxWait, Call call)
      throws IOException {
    Outcome outcome = acquire(bucket, cost, maxWait);
    Acquisition a = outcome.result();
    if (!a.granted()) {
      metrics.refused(bucket.name());
      throw new ThrottleRefusedException(bucket.name(), a.waitTime(), reportedMaxWait);
    }
    long slotNanos = a.answeredAtNanos() + a.waitTime().toNanos();
    try {
      sleepUntil(slotNanos, call);
    } catch (InterruptedIOException e) {
      giveBack(outcome.bucket(), cost);
      throw e;
    }
    return new Booked(outcome.bucket(), slotNanos);
  }

  private Rule match(Request request) {
    for (Rule rule : rules) {
      if (rule.matches(request)) {
        return rule;
      }
    }
    return null;
  }

  /** The smaller of the configured max wait and what is left of the call's timeout, when it has one. */
  private Duration effectiveMaxWait(Call call) {
    long left = Long.MAX_VALUE;
    if (call.timeout().hasDeadline()) {
      left = call.timeout().deadlineNanoTime() - System.nanoTime();
    }
    if (call.timeout().timeoutNanos() > 0) {
      left = Math.min(left, call.timeout().timeoutNanos());
    }
    return left < maxWait.toNanos() ? Duration.ofNanos(Math.max(0, left)) : maxWait;
  }

  private record Outcome(TokenBucket bucket, Acquisition result) {}

  private Outcome acquire(TokenBucket bucket, double cost, Duration wait) throws IOException {
    Fallback fallback = fallbacks.get(bucket.name());
    if (fallback != null && fallback.active && System.nanoTime() - fallback.retryRedisAtNanos < 0) {
      return new Outcome(fallback.local, fallback.local.acquire(cost, wait)); // Redis failed moments ago
    }
    try {
      Acquisition a = bucket.acquire(cost, wait);
      if (fallback != null && fallback.active) {
        fallback.active = false;
        metrics.fallback(bucket.name(), false);
        LOG.warn("Bucket '{}': Redis answers again; back to the shared bucket", bucket.name());
      }
      return new Outcome(bucket, a);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while asking bucket '" + bucket.name() + "' for a slot");
    } catch (BucketUnavailableException e) {
      metrics.redisError(bucket.name());
      if (unavailablePolicy == RedisUnavailablePolicy.FAIL_CLOSED) {
        throw new ThrottleUnavailableException(bucket.name(), e);
      }
      Fallback f = fallbacks.computeIfAbsent(bucket.name(), n -> new Fallback(localShareOf(bucket)));
      f.retryRedisAtNanos = System.nanoTime() + localRetryInterval.toNanos();
      if (!f.active) {
        f.active = true;
        metrics.fallback(bucket.name(), true);
        LOG.warn("Bucket '{}': Redis unavailable ({}); using this process's local share ({} of the quota)",
            bucket.name(), e.getMessage(), localShare);
      }
      return new Outcome(f.local, f.local.acquire(cost, wait));
    }
  }

  private LocalTokenBucket localShareOf(TokenBucket bucket) {
    List<Limit> shared = ((RedisTokenBucket) bucket).config().limits();
    List<Limit> share = new ArrayList<>();
    for (Limit l : shared) {
      share.add(Limit.of(Math.max(l.capacity() * localShare, 1), l.refillPerSecond() * localShare));
    }
    return new LocalTokenBucket(bucket.name(), share, System::nanoTime);
  }

  private static void sleepUntil(long deadlineNanos, Call call) throws InterruptedIOException {
    long left;
    while ((left = deadlineNanos - System.nanoTime()) > 0) {
      if (call.isCanceled()) {
        throw new InterruptedIOException("call canceled while waiting for its slot; not sent");
      }
      LockSupport.parkNanos(Math.min(left, CANCEL_POLL_NANOS));
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedIOException("interrupted while waiting for its slot; not sent");
      }
    }
    if (call.isCanceled()) {
      throw new InterruptedIOException("call canceled while waiting for its slot; not sent");
    }
  }

  /** Gives back the tokens of a call that was never sent; best effort. */
  private void giveBack(TokenBucket bucket, double cost) {
    boolean interrupted = Thread.interrupted();
    try {
      bucket.refund(cost);
    } catch (RuntimeException | InterruptedException e) {
      LOG.debug("Bucket '{}': could not give back {} tokens of an unsent call: {}", bucket.name(), cost, e.toString());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Charges (delta > 0) or refunds (delta < 0) after the response; a failure here never fails the response. */
  private void settle(TokenBucket bucket, double delta) {
    try {
      if (delta > 0) {
        bucket.charge(delta);
      } else {
        bucket.refund(-delta);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      metrics.redisError(bucket.name());
      LOG.warn("Bucket '{}': could not settle the response cost ({} tokens): {}", bucket.name(), delta,
          e.getMessage());
    }
  }

  /** Builds a {@link ThrottlingInterceptor}; every setter validates at once. */
  public static final class Builder {
    private final TokenBucket defaultBucket;
    private final List<Rule> rules = new ArrayList<>();
    private final Map<Integer, Double> responseCosts = new java.util.LinkedHashMap<>();
    private Duration maxWait = Duration.ofSeconds(10);
    private Duration lateLimit = DEFAULT_LATE_LIMIT;
    private Duration assumedJitter;
    private RedisUnavailablePolicy unavailablePolicy = RedisUnavailablePolicy.FAIL_CLOSED;
    private double localShare = 0.5;
    private Duration localRetryInterval = Duration.ofSeconds(1);
    private MeterRegistry registry;

    private Builder(TokenBucket defaultBucket) {
      this.defaultBucket = Objects.requireNonNull(defaultBucket, "defaultBucket cannot be null");
    }

    /**
     * Requests whose method (null: any) and encoded path match go to {@code bucket} at {@code cost}. Rules are
     * tried in the order added; the first match wins.
     */
    public Builder rule(String method, String pathRegex, TokenBucket bucket, double cost) {
      Objects.requireNonNull(pathRegex, "pathRegex cannot be null");
      Objects.requireNonNull(bucket, "bucket cannot be null");
      rules.add(new Rule(method, Pattern.compile(pathRegex), bucket, Checks.positive("cost", cost)));
      return this;
    }

    /**
     * A response with this status costs {@code totalCost} in all: the difference from the request's cost is
     * charged (or refunded) on the same bucket after the response, atomically.
     */
    public Builder responseCost(int status, double totalCost) {
      if (status < 100 || status > 599) {
        throw new IllegalArgumentException("status must be within 100..599, but was " + status);
      }
      responseCosts.put(status, Checks.positive("totalCost", totalCost));
      return this;
    }

    /** The longest a call may wait for its slot; default 10 s. A call's own timeout may shorten it. */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = Checks.notNegative("maxWait", maxWait);
      return this;
    }

    /**
     * A call that leaves more than this after its slot (a thread that overslept, a GC pause, a cold start) books a
     * fresh slot instead of leaving together with the calls booked after it; default 50 ms. Keep it within the
     * delay spread J that the bucket's margin below the provider's quota allows (see QuotaPlanner, docs).
     */
    public Builder lateLimit(Duration lateLimit) {
      this.lateLimit = Checks.notNegative("lateLimit", lateLimit);
      return this;
    }

    /**
     * Takes a {@link QuotaPlan}'s settings for watching the margin live: its late limit, and its J. A call that still
     * leaves later than J after its slot (after rebooking) counts in {@code bacen.throttle.margin.exceeded} and logs
     * a WARN (at most once a minute), because the plan is then no longer provably safe.
     */
    public Builder plan(QuotaPlan plan) {
      Objects.requireNonNull(plan, "plan cannot be null");
      this.lateLimit = plan.lateLimit();
      this.assumedJitter = plan.jitter();
      return this;
    }

    /**
     * What to do while the bucket cannot be reached; default {@link RedisUnavailablePolicy#FAIL_CLOSED}. With
     * {@link RedisUnavailablePolicy#LOCAL_FALLBACK}, {@code localShare} ({@code 0 < share <= 1}) of each limit is used in
     * memory, and Redis is tried again every {@code retryInterval}. Fallback needs {@link RedisTokenBucket}s.
     */
    public Builder redisUnavailable(RedisUnavailablePolicy policy, double localShare, Duration retryInterval) {
      this.unavailablePolicy = Objects.requireNonNull(policy, "policy cannot be null");
      if (!(localShare > 0) || localShare > 1) {
        throw new IllegalArgumentException("localShare must be > 0 and <= 1, but was " + localShare);
      }
      this.localShare = localShare;
      this.localRetryInterval = Checks.positive("retryInterval", retryInterval);
      return this;
    }

    /** Where the meters go; default none (no-op meters). */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry cannot be null");
      return this;
    }

    /**
     * @throws IllegalStateException when LOCAL_FALLBACK is asked for a bucket that is not a RedisTokenBucket
     */
    public ThrottlingInterceptor build() {
      if (unavailablePolicy == RedisUnavailablePolicy.LOCAL_FALLBACK) {
        List<TokenBucket> all = new ArrayList<>();
        all.add(defaultBucket);
        rules.forEach(r -> all.add(r.bucket()));
        for (TokenBucket b : all) {
          if (!(b instanceof RedisTokenBucket)) {
            throw new IllegalStateException("LOCAL_FALLBACK needs RedisTokenBucket buckets, but '" + b.name()
                + "' is a " + b.getClass().getSimpleName());
          }
        }
      }
      return new ThrottlingInterceptor(this);
    }
  }
}
