package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.PermitPool;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.support.TimeSource;
import io.pixquota.throttle.plan.QuotaPlan;
import java.time.Duration;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Builds a {@link Throttle}; every setter validates at once, and its javadoc states the default. */
public final class ThrottleBuilder {
  private final TokenBucket defaultBucket; // null: requests no quota matches pass through
  private final QuotaRules rules = new QuotaRules();
  private final Map<Integer, Double> responseCosts = new LinkedHashMap<>();
  private Duration maxWait = Throttle.DEFAULT_MAX_WAIT;
  private Priority defaultPriority = Priority.INTERACTIVE;
  private String flow;
  private final Map<Priority, Duration> horizons = new EnumMap<>(Map.of(Priority.BATCH, Duration.ZERO));
  private Duration lateLimit = Throttle.DEFAULT_LATE_LIMIT;
  private Duration assumedJitter;
  private RedisUnavailablePolicy unavailablePolicy = RedisUnavailablePolicy.FAIL_CLOSED;
  private double localShare = Throttle.DEFAULT_LOCAL_SHARE;
  private double planLocalShare = 1;
  private Duration localRetryInterval = Throttle.DEFAULT_LOCAL_RETRY_INTERVAL;
  private MeterRegistry registry;
  private ObservationRegistry observations = ObservationRegistry.NOOP;
  private TimeSource time = TimeSource.SYSTEM;
  private String quotaSignal;
  private QuotaHeaders quotaHeaders;

  private PermitPool defaultPool;
  private Duration providerTimeout;

  /** What the throttle keeps of its builder. */
  record Settings(Duration maxWait, Priority defaultPriority, Map<Priority, Duration> horizons, Duration lateLimit,
      Duration assumedJitter, String quotaSignal, QuotaHeaders quotaHeaders, TimeSource time,
      ObservationRegistry observations, Duration providerTimeout, String flow) {}

  /** @param defaultBucket null: requests no quota or rule matches pass through untouched */
  ThrottleBuilder(TokenBucket defaultBucket) {
    this.defaultBucket = defaultBucket;
  }

  /**
   * The quota {@code name}: requests that {@code match} takes (and no more specific quota or rule) go to
   * {@code bucket} at {@code cost}. Names are unique: 1 to 64 letters, digits, '.', '_', ':' or '-'.
   */
  public ThrottleBuilder quota(String name, Match match, TokenBucket bucket, double cost) {
    rules.add(Objects.requireNonNull(name, "name cannot be null"), match, Objects.requireNonNull(bucket,
        "bucket cannot be null"), cost, null);
    return this;
  }

  /**
   * The quota {@code name} with a cap on calls in flight: its requests go to {@code bucket} at {@code cost} and hold
   * a permit of {@code pool} from their slot to their answer ({@link #rule(String, String, TokenBucket, double,
   * PermitPool)}).
   */
  public ThrottleBuilder quota(String name, Match match, TokenBucket bucket, double cost, PermitPool pool) {
    rules.add(Objects.requireNonNull(name, "name cannot be null"), match, Objects.requireNonNull(bucket,
        "bucket cannot be null"), cost, Objects.requireNonNull(pool, "pool cannot be null"));
    return this;
  }

  /** The quota {@code name}: its requests hold a permit of {@code pool} while in flight, and have no rate. */
  public ThrottleBuilder quota(String name, Match match, PermitPool pool) {
    rules.add(Objects.requireNonNull(name, "name cannot be null"), match, null, 1, Objects.requireNonNull(pool,
        "pool cannot be null"));
    return this;
  }

  /**
   * Requests whose method (null: any) and encoded path match go to {@code bucket} at {@code cost}. Rules are tried
   * most specific first, whatever the order they were added in ({@link Throttle#routing()}).
   */
  public ThrottleBuilder rule(String method, String pathRegex, TokenBucket bucket, double cost) {
    rules.add(null, ruleMatch(method, pathRegex), Objects.requireNonNull(bucket, "bucket cannot be null"), cost,
        null);
    return this;
  }

  private static Match ruleMatch(String method, String pathRegex) {
    Match any = new Match(null, method, null);
    return any.path(Objects.requireNonNull(pathRegex, "pathRegex cannot be null"));
  }

  /**
   * Requests whose method (null: any) and encoded path match go to {@code bucket} at {@code cost} and hold a permit
   * of {@code pool} from their slot to their answer: both are decided in one round trip when the pool can
   * ({@code RedisPermitPool.beside} the bucket), else the permit first, then the slot.
   */
  public ThrottleBuilder rule(String method, String pathRegex, TokenBucket bucket, double cost, PermitPool pool) {
    rules.add(null, ruleMatch(method, pathRegex), Objects.requireNonNull(bucket, "bucket cannot be null"), cost,
        Objects.requireNonNull(pool, "pool cannot be null"));
    return this;
  }

  /**
   * Requests whose method (null: any) and encoded path match hold a permit of {@code pool} while in flight, and have
   * no rate (BACEN's SPI: a cap on calls in flight, no per-second limit): the permit is their one decision.
   */
  public ThrottleBuilder rule(String method, String pathRegex, PermitPool pool) {
    rules.add(null, ruleMatch(method, pathRegex), null, 1, Objects.requireNonNull(pool, "pool cannot be null"));
    return this;
  }

  /**
   * How long the provider may keep working on a call after it was sent (its own timeout, which the client's call
   * timeout does not shorten): the permit of a call that was sent and gave up without an answer (a timeout, a cancel,
   * a broken connection) is held this long after its send, because the provider still counts it. Required when a
   * route holds a pool's permits (no default: a guess shorter than the provider's would let more calls in flight than
   * the cap); the pool's lease must be longer than the max wait plus it. At most a day.
   */
  public ThrottleBuilder providerTimeout(Duration timeout) {
    this.providerTimeout = Checks.positiveAtMostADay("providerTimeout", timeout);
    return this;
  }

  /** Requests that no rule matches also hold a permit of {@code pool} while in flight; default none. */
  public ThrottleBuilder defaultPool(PermitPool pool) {
    this.defaultPool = Objects.requireNonNull(pool, "pool cannot be null");
    return this;
  }

  /**
   * A response with this status costs {@code totalCost} in all: the difference from the request's cost is charged
   * (or refunded) on the same bucket after the response, atomically.
   */
  public ThrottleBuilder responseCost(int status, double totalCost) {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("status must be within 100..599, but was " + status);
    }
    responseCosts.put(status, Checks.tokens("totalCost", totalCost));
    return this;
  }

  /** The longest a call may wait for its slot; default 10 s. A request's own max wait (its timeout) may shorten it. */
  public ThrottleBuilder maxWait(Duration maxWait) {
    this.maxWait = Checks.notNegativeAtMostADay("maxWait", maxWait);
    return this;
  }

  /**
   * The service this throttle's requests are for, where their quota has shares: every replica of one
   * service gives the same name (in Spring Boot, {@code spring.application.name}); a request's own
   * ({@link ThrottleRequest#withFlow}) comes first. A name the shares do not name, and null (the default), take the
   * share of the flow "*".
   */
  public ThrottleBuilder flow(String service) {
    this.flow = service;
    return this;
  }

  /** The class of requests that name none; default {@link Priority#INTERACTIVE}. */
  public ThrottleBuilder defaultPriority(Priority priority) {
    this.defaultPriority = Objects.requireNonNull(priority, "priority cannot be null");
    return this;
  }

  /**
   * How far ahead a call of this class may book its slot, at most a day; null: as far as its max wait. Defaults:
   * {@link Priority#BATCH} 0 (only a slot that is free now), {@link Priority#INTERACTIVE} null. A call that finds no
   * slot within its horizon, but one within its max wait, sleeps (blocking, or on a timer for an
   * {@link AsyncBooking}) until the bucket said one would be free and asks again; it holds no slot meanwhile, so it
   * never stands in front of another class's calls. An interactive call waits behind a class's bookings for at most
   * that class's horizon plus one slot.
   */
  public ThrottleBuilder horizon(Priority priority, Duration horizon) {
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
   * fresh slot instead of leaving together with the calls booked after it; default 50 ms. Keep it within the delay
   * spread J that the bucket's margin below the provider's quota allows (see QuotaPlanner, docs).
   */
  public ThrottleBuilder lateLimit(Duration lateLimit) {
    this.lateLimit = Checks.notNegativeAtMostADay("lateLimit", lateLimit);
    return this;
  }

  /**
   * Takes a {@link QuotaPlan}'s settings: its late limit; its J, watched live (a call that still leaves later than J
   * after its slot, after rebooking, counts in {@code bacen.throttle.margin.exceeded} and logs a WARN at most once a
   * minute, because the plan is then no longer provably safe); and its local share, which caps the one given to
   * {@link #redisUnavailable}.
   */
  public ThrottleBuilder plan(QuotaPlan plan) {
    Objects.requireNonNull(plan, "plan cannot be null");
    this.lateLimit = plan.lateLimit();
    this.assumedJitter = plan.jitter();
    this.planLocalShare = plan.localShare();
    return this;
  }

  /**
   * What to do while a bucket's store cannot be reached; default {@link RedisUnavailablePolicy#FAIL_CLOSED}. With
   * {@link RedisUnavailablePolicy#LOCAL_FALLBACK}, each bucket is wrapped, once, in an in-memory share
   * ({@code 0 < localShare <= 1}, default {@value Throttle#DEFAULT_LOCAL_SHARE}, capped by a plan's) of each of its
   * limits, and the shared bucket is asked again every {@code retryInterval} (default 1 s).
   */
  public ThrottleBuilder redisUnavailable(RedisUnavailablePolicy policy, double localShare, Duration retryInterval) {
    this.unavailablePolicy = Objects.requireNonNull(policy, "policy cannot be null");
    this.localShare = Checks.share("localShare", localShare);
    this.localRetryInterval = Checks.positiveAtMostADay("retryInterval", retryInterval);
    return this;
  }

  /**
   * The header by which the provider's own 429s are known (e.g. {@code RateLimit}, which the mock and IETF-style
   * providers send; {@code X-RateLimit-Remaining}); default null: every 429 on an admitted call counts. A 429 without
   * it (a gateway, a WAF, a proxy in front of the provider) is counted in {@code bacen.throttle.provider.ignored} and
   * logged, but neither cuts the fleet's rate nor holds it.
   */
  public ThrottleBuilder quotaSignal(String header) {
    this.quotaSignal = header == null ? null : Checks.headerName("quotaSignal", header);
    return this;
  }

  /**
   * Reads the provider's remaining quota on every answer, in this header family (null, the default: not read), and
   * lowers the shared bucket when the provider says fewer remain than it expected; never raises it. At most one
   * lowering per bucket per second in each process; a malformed header is counted and ignored.
   */
  public ThrottleBuilder quotaHeaders(QuotaHeaders family) {
    this.quotaHeaders = family;
    return this;
  }

  /** Where the meters go; default none (no-op meters). */
  public ThrottleBuilder meterRegistry(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry cannot be null");
    return this;
  }

  /**
   * Where each call's wait for its slot is observed ({@code pixquota.wait}, "waiting for quota": a span under the
   * HTTP client's with a tracing bridge); default none.
   */
  public ThrottleBuilder observationRegistry(ObservationRegistry observations) {
    this.observations = Objects.requireNonNull(observations, "observations cannot be null");
    return this;
  }

  /**
   * The clock the throttle reads and sleeps on, and that its buckets' answers are stamped with: a client that computes
   * its own waits on a {@link TimeSource} (its tests' clock) gives the same one here. Default: the system's.
   */
  public ThrottleBuilder timeSource(TimeSource time) {
    this.time = Objects.requireNonNull(time, "time cannot be null");
    return this;
  }

  /**
   * @throws IllegalStateException when a route's cost exceeds what its bucket can ever hold (the smallest capacity
   *     of its limits): no call of that route could ever be admitted; when a route holds a pool's permits and no
   *     {@link #providerTimeout} was given, or the pool's lease is not longer than the max wait plus it
   */
  public Throttle build() {
    rules.check(defaultBucket, defaultPool, maxWait, providerTimeout);
    ThrottleMetrics metrics = new ThrottleMetrics(registry);
    Map<TokenBucket, TokenBucket> wrapped = new IdentityHashMap<>(); // one decorator per bucket, however many rules
    Routes routes = rules.routes(defaultBucket, defaultPool, responseCosts, k ->
        unavailablePolicy == RedisUnavailablePolicy.FAIL_CLOSED ? k
        : new FallbackTokenBucket(k, Math.min(localShare, planLocalShare), localRetryInterval, time, metrics), time,
        wrapped, metrics::quota);
    // Meters are made now, not on a call's path: registering a histogram for the first time took hundreds of
    // milliseconds on a cold, loaded JVM, between the lateness check and the send.
    wrapped.values().forEach(b -> metrics.register(b, defaultPriority));
    Settings settings = new Settings(maxWait, defaultPriority, horizons, lateLimit, assumedJitter, quotaSignal,
        quotaHeaders, time, observations, providerTimeout, flow);
    return new Throttle(settings, routes, rules.given(defaultBucket), metrics);
  }
}
