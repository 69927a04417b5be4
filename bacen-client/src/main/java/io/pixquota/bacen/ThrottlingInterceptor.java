package io.pixquota.bacen;

import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.bacen.internal.Checks;
import io.pixquota.bacen.internal.FallbackTokenBucket;
import io.pixquota.bacen.internal.ThrottleMetrics;
import io.pixquota.bacen.internal.TimeSource;
import io.pixquota.bacen.plan.QuotaPlan;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OkHttp interceptor that books a slot in a shared {@link TokenBucket} before each call, sleeps until that slot,
 * and only then proceeds: no request reaches the network before its slot, and {@code chain.proceed} is called exactly
 * once. It books, sleeps, sends and settles; what happens while Redis is away is the bucket's business
 * ({@link RedisUnavailablePolicy#LOCAL_FALLBACK} wraps every bucket in a local-share decorator when built).
 *
 * <p><b>Where to add it.</b> As a <em>network</em> interceptor ({@code OkHttpClient.Builder.addNetworkInterceptor},
 * what {@code PixClient} does), the slot is booked after OkHttp has a connection, so connection set-up on a cold start
 * cannot make calls leave late and bunch with the next slots; every request that reaches the network, retries and
 * redirects included, takes its own slot. As an application interceptor it works too, but connection set-up then
 * happens after the wait.
 *
 * <p>Which bucket and what cost: the first matching {@link Builder#rule rule} (method and path pattern), else the
 * default bucket with cost 1. After the response, optional {@link Builder#responseCost response costs} charge or
 * refund the difference on the same bucket (a provider that charges 20 tokens for a 404).
 *
 * <p>Failures are {@link IOException}s, as OkHttp expects of interceptors: {@link ThrottleRefusedException} when the
 * slot is further than the max wait (the smaller of the configured one and the time left on the call's timeout);
 * {@link BucketUnavailableException} when the bucket cannot be reached and no local fallback takes the call;
 * {@link java.io.InterruptedIOException} when the thread is interrupted or the call cancelled while waiting (the
 * interrupt flag stays set, the request is never sent, and the booked tokens are given back).
 *
 * <p><b>Priority classes.</b> A request's {@link Priority} tag (else {@link Builder#defaultPriority}) sets how far
 * ahead its slot may be booked ({@link Builder#horizon}): {@link Priority#BATCH} books only a slot free now by
 * default and, when there is none, sleeps holding nothing until the bucket said one would be free, then asks again,
 * so it never stands in the queue in front of an {@link Priority#INTERACTIVE} call. Same bucket, same step: the
 * quota holds whatever the mix.
 *
 * <p><b>Async calls.</b> With {@code client.newCall(request).enqueue()}, the wait happens on an OkHttp dispatcher
 * thread, which holds one of the dispatcher's slots ({@code maxRequests}, default 64; {@code maxRequestsPerHost},
 * default 5) while it sleeps. To wait without a thread, make the calls with {@link ThrottledCallFactory}
 * ({@code ThrottledCallFactory.of(client).newCall(request).enqueue(callback)}): it books and waits on a timer and
 * enqueues the call only once its slot has come.
 *
 * <p>This class is threadsafe.
 */
public final class ThrottlingInterceptor implements Interceptor {
  private static final Logger LOG = LoggerFactory.getLogger(ThrottlingInterceptor.class);

  /** Default of {@link Builder#maxWait}: 10 s. */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(10);
  /** Default of {@link Builder#lateLimit}: 50 ms. */
  public static final Duration DEFAULT_LATE_LIMIT = Duration.ofMillis(50);
  /** Default local share of {@link Builder#redisUnavailable}: {@value}. */
  public static final double DEFAULT_LOCAL_SHARE = 0.5;
  /** Default of how often {@link RedisUnavailablePolicy#LOCAL_FALLBACK} asks Redis again: 1 s. */
  public static final Duration DEFAULT_LOCAL_RETRY_INTERVAL = Duration.ofSeconds(1);

  private final Rule defaultRoute;
  private final List<Rule> rules;
  private final List<TokenBucket> buckets;
  private final Map<Integer, Double> responseCosts;
  private final Duration maxWait;
  private final Priority defaultPriority;
  private final Map<Priority, Duration> horizons;
  private final Duration assumedJitter;
  private final TimeSource time;
  private final ThrottleMetrics metrics;
  private final SlotBooking slots;
  private final ProviderRefusals refusals;
  private final AtomicLong lastMarginWarnNanos;

  /** Requests whose method (null: any) and path (null: any) match go to {@code bucket} at {@code cost}. */
  private record Rule(String method, Pattern path, TokenBucket bucket, double cost) {
    boolean matches(String requestMethod, String encodedPath) {
      return (method == null || method.equalsIgnoreCase(requestMethod))
          && (path == null || path.matcher(encodedPath).matches());
    }

    Rule with(TokenBucket other) {
      return new Rule(method, path, other, cost);
    }

    /** As logs name the route: its rule, never a request's path (which holds ids). */
    String describe() {
      return path == null ? "the default route" : "rule " + (method == null ? "" : method + " ") + path;
    }
  }

  private ThrottlingInterceptor(Builder b, Rule defaultRoute, List<Rule> rules, ThrottleMetrics metrics) {
    this.defaultRoute = defaultRoute;
    this.rules = List.copyOf(rules);
    Set<TokenBucket> given = Collections.newSetFromMap(new IdentityHashMap<>());
    List<TokenBucket> distinct = new ArrayList<>();
    for (TokenBucket bucket : b.bucketsGiven()) {
      if (given.add(bucket)) {
        distinct.add(bucket);
      }
    }
    this.buckets = List.copyOf(distinct);
    this.responseCosts = Map.copyOf(b.responseCosts);
    this.maxWait = b.maxWait;
    this.defaultPriority = b.defaultPriority;
    this.horizons = new EnumMap<>(b.horizons);
    this.assumedJitter = b.assumedJitter;
    this.time = b.time;
    this.metrics = metrics;
    this.slots = new SlotBooking(b.lateLimit, time, metrics);
    this.refusals = new ProviderRefusals(b.quotaSignal, time, metrics);
    this.lastMarginWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
    // OkHttp 5 reads request tags through Kotlin's reflection, whose classes initialize on first use: do it here,
    // not on a call's path, where a virtual thread would be pinned to its carrier while they load.
    new Request.Builder().url("http://localhost/").build().tag(Prebooked.class);
    new Request.Builder().url("http://localhost/").build().tag(Priority.class);
  }

  /**
   * The buckets this interceptor books on, as they were given to its builder (the default bucket first, then those
   * of the rules, each once): for warming them up and for showing their state.
   */
  public List<TokenBucket> buckets() {
    return buckets;
  }

  /** What this process saw of each of its {@link #buckets()}, in the same order; no I/O. */
  public List<BucketStatus> status() {
    List<BucketStatus> out = new ArrayList<>();
    long now = time.nanoTime();
    for (TokenBucket bucket : buckets) {
      ThrottleMetrics.Status s = metrics.status(bucket.name());
      out.add(new BucketStatus(bucket.name(), s.fallbackActive(), s.marginExceeded(), s.marginExceeded() == 0
          ? Optional.empty() : Optional.of(Duration.ofNanos(Math.max(0, now - s.lastMarginExceededNanos())))));
    }
    return out;
  }

  /**
   * What this process saw of one bucket.
   *
   * @param bucket              the bucket's name
   * @param localFallbackActive whether its calls go to the local share now, because Redis did not answer
   *                            ({@link RedisUnavailablePolicy#LOCAL_FALLBACK})
   * @param marginExceeded      calls that left later after their slot than the plan's jitter J allows, since start
   *                            (always 0 without a {@link Builder#plan plan})
   * @param sinceMarginExceeded how long ago the last of them left; empty when none did
   */
  public record BucketStatus(String bucket, boolean localFallbackActive, long marginExceeded,
      Optional<Duration> sinceMarginExceeded) {}

  /** A builder whose default bucket takes every request that no rule matches. */
  public static Builder builder(TokenBucket defaultBucket) {
    return new Builder(defaultBucket);
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    Prebooked prebooked = request.tag(Prebooked.class);
    SlotBooking.Booking booking;
    Call call = chain.call();
    if (prebooked != null && prebooked.by() == this && prebooked.used().compareAndSet(false, true)) {
      booking = prebooked.booking(); // booked by a ThrottledCallFactory call, which waited without a thread
      if (booking.mustRebook()) {
        // Late (the dispatcher queued it), or its state lost or its rate cut since: not sent. The async call books
        // again without a thread; sleeping here would hold a dispatcher slot and make the calls behind it late too.
        throw new SlotMissedException(booking.bucket.name());
      }
    } else {
      booking = booking(request, effectiveMaxWait(call));
      slots.book(booking, call::isCanceled);
    }
    return leave(booking, call::isCanceled, new Exchange<>() {
      @Override
      public Response send() throws IOException {
        return chain.proceed(request);
      }

      @Override
      public int status(Response response) {
        return response.code();
      }

      @Override
      public String header(Response response, String name) {
        return response.header(name);
      }
    });
  }

  /**
   * The same throttle for an HTTP client other than OkHttp (Spring's {@code RestClient} and {@code RestTemplate}
   * through the starter's {@code ClientHttpRequestInterceptor}, say): books the slot of a request with this method
   * and encoded path (routed by the same rules) in its class, sleeps until it, calls {@link Exchange#send} once,
   * then settles the answer as {@link #intercept} does (a 429 tells the bucket; response costs are charged). Same
   * bucket, same metrics, same guarantees, with one difference: the client's connection is set up after the wait,
   * as with an OkHttp application interceptor. Only an interrupt cancels the wait.
   *
   * @param priority the request's class; null for the {@link Builder#defaultPriority default}
   * @throws ThrottleRefusedException   when the slot is further than the max wait
   * @throws BucketUnavailableException when the bucket cannot be reached and no local fallback takes the call
   * @throws java.io.InterruptedIOException when interrupted while waiting (nothing sent, tokens given back)
   * @throws IOException                what {@code send} throws
   */
  public <R> R exchange(String method, String encodedPath, Priority priority, Exchange<R> exchange)
      throws IOException {
    Checks.notBlank("method", method);
    Objects.requireNonNull(encodedPath, "encodedPath cannot be null");
    Objects.requireNonNull(exchange, "exchange cannot be null");
    Rule route = route(method, encodedPath);
    Priority p = priority != null ? priority : defaultPriority;
    SlotBooking.Booking booking = slots.new Booking(route.bucket(), route.cost(), maxWait, maxWait, p,
        horizons.get(p), route.describe());
    BooleanSupplier never = () -> false;
    slots.book(booking, never);
    return leave(booking, never, exchange);
  }

  /**
   * One request of an HTTP client, as {@link #exchange} needs it.
   *
   * @param <R> the client's response type
   */
  public interface Exchange<R> {
    /** Sends the request; called once, when its slot has come. */
    R send() throws IOException;

    /** The response's HTTP status code. */
    int status(R response);

    /** A header of the response, or null when it has none of that name. */
    String header(R response, String name);
  }

  /** Sleeps until the booked slot, sends, and settles the answer: one path for every HTTP client. */
  private <R> R leave(SlotBooking.Booking booking, BooleanSupplier canceled, Exchange<R> exchange)
      throws IOException {
    SlotBooking.Slot slot = slots.sleepAndLeave(booking, canceled);
    TokenBucket bucket = booking.bucket;
    String name = bucket.name();
    long late = slot.lateNanos();
    if (assumedJitter != null && late > assumedJitter.toNanos()) {
      marginExceeded(name, late);
    }
    long sentAt = time.nanoTime();
    long waitedNanos = sentAt - booking.askedAtNanos();
    R response;
    try {
      response = exchange.send(); // nothing between the lateness check and the send
    } finally {
      metrics.granted(name, booking.priority, Duration.ofNanos(waitedNanos));
      metrics.lateness(name, late);
    }
    metrics.answered(name, time.nanoTime() - sentAt);
    int status = exchange.status(response);
    if (status == 429) {
      refusals.refused(booking.bucket, booking.route, slot.granted(), header -> exchange.header(response, header));
    }
    Double total = responseCosts.get(status);
    if (total != null && total != booking.cost) {
      settle(bucket, total - booking.cost);
    }
    return response;
  }

  /**
   * A request whose slot an async call booked and waited for ({@link ThrottledCallFactory}): not booked again, for
   * its first send only (OkHttp's own retry of a failed connection books afresh, as on the blocking path).
   */
  record Prebooked(ThrottlingInterceptor by, SlotBooking.Booking booking, AtomicBoolean used) {}

  /** A prebooked call that cannot leave on its slot: nothing was sent, and its async call books again. */
  static final class SlotMissedException extends IOException {
    private static final long serialVersionUID = 1L;

    SlotMissedException(String bucket) {
      super("bucket '" + bucket + "': the slot was missed before the send; booking again");
    }
  }

  /**
   * A booking, not yet asked for, of the bucket and cost that {@code request} routes to, in the request's priority
   * class (its {@link Priority} tag, else the default).
   */
  SlotBooking.Booking booking(Request request, Duration maxWait) {
    Rule route = route(request.method(), request.url().encodedPath());
    Priority tagged = request.tag(Priority.class);
    Priority priority = tagged != null ? tagged : defaultPriority;
    return slots.new Booking(route.bucket(), route.cost(), maxWait, this.maxWait, priority, horizons.get(priority),
        route.describe());
  }

  /** The configured max wait, shortened to a call timeout of {@code timeoutNanos} when positive. */
  Duration maxWaitWithin(long timeoutNanos) {
    return timeoutNanos > 0 && timeoutNanos < maxWait.toNanos() ? Duration.ofNanos(timeoutNanos) : maxWait;
  }

  SlotBooking slots() {
    return slots;
  }

  ThrottleMetrics metrics() {
    return metrics;
  }

  TimeSource time() {
    return time;
  }

  private Rule route(String method, String encodedPath) {
    for (Rule rule : rules) {
      if (rule.matches(method, encodedPath)) {
        return rule;
      }
    }
    return defaultRoute;
  }

  /**
   * The smaller of the configured max wait and what is left of the call's timeout. OkHttp keeps its deadlines on
   * {@link System#nanoTime()}, so they are read on that clock.
   */
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

  /** A call left later than the plan's J allows: the plan is no longer provably safe. WARN at most once a minute. */
  private void marginExceeded(String bucket, long lateNanos) {
    long now = time.nanoTime();
    metrics.marginExceeded(bucket, now);
    long last = lastMarginWarnNanos.get();
    if (now - last > TimeUnit.MINUTES.toNanos(1) && lastMarginWarnNanos.compareAndSet(last, now)) {
      LOG.warn("Bucket '{}': a call left {} ms after its slot, more than the {} ms of jitter its plan assumes; the "
          + "settings are no longer provably under the provider's quota (see bacen.throttle.margin.exceeded)",
          bucket, TimeUnit.NANOSECONDS.toMillis(lateNanos), assumedJitter.toMillis());
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
    } catch (BucketUnavailableException | RuntimeException e) {
      metrics.redisError(bucket.name());
      LOG.warn("Bucket '{}': could not settle the response cost ({} tokens): {}", bucket.name(), delta,
          e.getMessage());
    }
  }

  /** Builds a {@link ThrottlingInterceptor}; every setter validates at once. */
  public static final class Builder {
    private final TokenBucket defaultBucket;
    private final List<Rule> rules = new ArrayList<>();
    private final Map<Integer, Double> responseCosts = new LinkedHashMap<>();
    private Duration maxWait = DEFAULT_MAX_WAIT;
    private Priority defaultPriority = Priority.INTERACTIVE;
    private final Map<Priority, Duration> horizons = new EnumMap<>(Map.of(Priority.BATCH, Duration.ZERO));
    private Duration lateLimit = DEFAULT_LATE_LIMIT;
    private Duration assumedJitter;
    private RedisUnavailablePolicy unavailablePolicy = RedisUnavailablePolicy.FAIL_CLOSED;
    private double localShare = DEFAULT_LOCAL_SHARE;
    private double planLocalShare = 1;
    private Duration localRetryInterval = DEFAULT_LOCAL_RETRY_INTERVAL;
    private MeterRegistry registry;
    private TimeSource time = TimeSource.SYSTEM;
    private String quotaSignal;

    private Builder(TokenBucket defaultBucket) {
      this.defaultBucket = Objects.requireNonNull(defaultBucket, "defaultBucket cannot be null");
    }

    private List<TokenBucket> bucketsGiven() {
      List<TokenBucket> all = new ArrayList<>();
      all.add(defaultBucket);
      rules.forEach(r -> all.add(r.bucket()));
      return all;
    }

    /**
     * Requests whose method (null: any) and encoded path match go to {@code bucket} at {@code cost}. Rules are
     * tried in the order added; the first match wins.
     */
    public Builder rule(String method, String pathRegex, TokenBucket bucket, double cost) {
      Objects.requireNonNull(pathRegex, "pathRegex cannot be null");
      Objects.requireNonNull(bucket, "bucket cannot be null");
      rules.add(new Rule(method, Pattern.compile(pathRegex), bucket, Checks.tokens("cost", cost)));
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
      responseCosts.put(status, Checks.tokens("totalCost", totalCost));
      return this;
    }

    /** The longest a call may wait for its slot; default 10 s. A call's own timeout may shorten it. */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = Checks.notNegativeAtMostADay("maxWait", maxWait);
      return this;
    }

    /**
     * The class of requests that carry no {@link Priority} tag; default {@link Priority#INTERACTIVE}.
     */
    public Builder defaultPriority(Priority priority) {
      this.defaultPriority = Objects.requireNonNull(priority, "priority cannot be null");
      return this;
    }

    /**
     * How far ahead a call of this class may book its slot, at most a day; null: as far as its max wait. Defaults:
     * {@link Priority#BATCH} 0 (only a slot that is free now), {@link Priority#INTERACTIVE} null. A call that finds
     * no slot within its horizon, but one within its max wait, sleeps (blocking, or on a timer for
     * {@link ThrottledCallFactory}) until the bucket said one would be free and asks again; it holds no slot
     * meanwhile, so it never stands in front of another class's calls. An interactive call waits behind a class's
     * bookings for at most that class's horizon plus one slot.
     */
    public Builder horizon(Priority priority, Duration horizon) {
      Objects.requireNonNull(priority, "priority cannot be null");
      if (horizon == null) {
        horizons.remove(priority);
      } else {
        horizons.put(priority, Checks.notNegativeAtMostADay("horizon of " + priority, horizon));
      }
      return this;
    }

    /**
     * A call that leaves more than this after its slot (a thread that overslept, a GC pause, a cold start) books a
     * fresh slot instead of leaving together with the calls booked after it; default 50 ms. Keep it within the
     * delay spread J that the bucket's margin below the provider's quota allows (see QuotaPlanner, docs).
     */
    public Builder lateLimit(Duration lateLimit) {
      this.lateLimit = Checks.notNegativeAtMostADay("lateLimit", lateLimit);
      return this;
    }

    /**
     * Takes a {@link QuotaPlan}'s settings: its late limit; its J, watched live (a call that still leaves later than J
     * after its slot, after rebooking, counts in {@code bacen.throttle.margin.exceeded} and logs a WARN at most once
     * a minute, because the plan is then no longer provably safe); and its local share, which caps the one given
     * to {@link #redisUnavailable}.
     */
    public Builder plan(QuotaPlan plan) {
      Objects.requireNonNull(plan, "plan cannot be null");
      this.lateLimit = plan.lateLimit();
      this.assumedJitter = plan.jitter();
      this.planLocalShare = plan.localShare();
      return this;
    }

    /**
     * What to do while a bucket cannot be reached; default {@link RedisUnavailablePolicy#FAIL_CLOSED}. With
     * {@link RedisUnavailablePolicy#LOCAL_FALLBACK}, each bucket is wrapped, once, in an in-memory share
     * ({@code 0 < localShare <= 1}, default {@value #DEFAULT_LOCAL_SHARE}, capped by a plan's) of each of its limits,
     * and the shared bucket is asked again every {@code retryInterval} (default 1 s).
     */
    public Builder redisUnavailable(RedisUnavailablePolicy policy, double localShare, Duration retryInterval) {
      this.unavailablePolicy = Objects.requireNonNull(policy, "policy cannot be null");
      this.localShare = Checks.share("localShare", localShare);
      this.localRetryInterval = Checks.positiveAtMostADay("retryInterval", retryInterval);
      return this;
    }

    /**
     * The header by which the provider's own 429s are known (e.g. {@code RateLimit}, which the mock and IETF-style
     * providers send; {@code X-RateLimit-Remaining}); default null: every 429 on an admitted call counts. A 429 without
     * it (a gateway, a WAF, a proxy in front of the provider) is counted in {@code bacen.throttle.provider.ignored}
     * and logged, but neither cuts the fleet's rate nor holds it.
     */
    public Builder quotaSignal(String header) {
      this.quotaSignal = header == null ? null : Checks.headerName("quotaSignal", header);
      return this;
    }

    /** Where the meters go; default none (no-op meters). */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry cannot be null");
      return this;
    }

    /** For tests: the clock the interceptor reads and sleeps on, and that its buckets' answers are stamped with. */
    Builder timeSource(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time cannot be null");
      return this;
    }

    /**
     * @throws IllegalStateException when a route's cost exceeds what its bucket can ever hold (the smallest capacity
     *     of its limits): no call of that route could ever be admitted
     */
    public ThrottlingInterceptor build() {
      fits("requests no rule matches", 1, defaultBucket);
      for (Rule r : rules) {
        fits("rule " + (r.method() == null ? "" : r.method() + " ") + r.path(), r.cost(), r.bucket());
      }
      ThrottleMetrics metrics = new ThrottleMetrics(registry);
      Map<TokenBucket, TokenBucket> wrapped = new IdentityHashMap<>(); // one decorator per bucket, however many rules
      Rule defaultRoute = new Rule(null, null, defaultBucket, 1);
      defaultRoute = defaultRoute.with(wrap(defaultBucket, wrapped, metrics));
      List<Rule> built = new ArrayList<>();
      for (Rule r : rules) {
        built.add(r.with(wrap(r.bucket(), wrapped, metrics)));
      }
      // Meters are made now, not on a call's path: registering a histogram for the first time took hundreds of
      // milliseconds on a cold, loaded JVM, between the lateness check and the send.
      wrapped.values().forEach(b -> metrics.register(b, defaultPriority));
      return new ThrottlingInterceptor(this, defaultRoute, built, metrics);
    }

    private static void fits(String route, double cost, TokenBucket bucket) {
      double capacity = bucket.limits().stream().mapToDouble(Limit::capacity).min().orElseThrow();
      if (cost > capacity) {
        throw new IllegalStateException(route + " costs " + cost + ", more than bucket '" + bucket.name()
            + "' can ever hold (capacity " + capacity + "): no such call could be admitted");
      }
    }

    private TokenBucket wrap(TokenBucket bucket, Map<TokenBucket, TokenBucket> wrapped, ThrottleMetrics metrics) {
      return wrapped.computeIfAbsent(bucket, b -> unavailablePolicy == RedisUnavailablePolicy.FAIL_CLOSED ? b
          : new FallbackTokenBucket(b, Math.min(localShare, planLocalShare), localRetryInterval, time, metrics));
    }
  }
}
