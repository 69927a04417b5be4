package io.pixquota.throttle.redis;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.BucketReadings;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.internal.BucketStep;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.internal.StepSettings;
import io.pixquota.throttle.internal.StepStamp;
import io.pixquota.throttle.support.TimeSource;
import io.pixquota.throttle.redis.internal.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.api.RedissonClient;

/**
 * A {@link TokenBucket} kept in Redis and shared by every process that uses the same name and key prefix.
 *
 * <p>Each operation is one atomic Lua script ({@code token_bucket.lua}, documented in its header) run by EVALSHA
 * through Redisson: one round trip, refill, decision and record together, so concurrent callers in any number of
 * processes can never both take the last token. Time is Redis's {@code TIME} unless a client clock is configured;
 * either way the stored {@code updatedAt} never moves backwards.
 *
 * <p>The fleet shares more than tokens. Each call registers its configuration (its limits) for a lease of at most
 * {@link TokenBucketConfig#MAX_CONFIGURATION_LEASE}; while replicas disagree, every live configuration's limits are
 * enforced together (the strictest wins, limit by limit) and a WARN at most once a minute names them. A 429 the bucket
 * did not expect cuts the shared rate for every replica, and a Retry-After holds every slot back, for at most the
 * {@link RateAdaptation#maxProviderHold()} ({@link #providerRefused}, {@link RateAdaptation}); one replica's reports
 * are bounded. Every process subscribes to the bucket's channel ({@code <key>:fleet}) at its first call, so that a
 * new rate generation voids the slots its callers sleep on at once; a message there is only a hint to read the
 * state. Nothing the script reads is trusted: what it cannot trust is reset and counted
 * ({@link BucketReadings#stateRepairs()}). With {@link TokenBucketConfig.Builder#shares shares}, see {@link #forFlow}.
 *
 * <p>This class is threadsafe. It does not own the {@link RedissonClient}; shut that down yourself.
 */
public final class RedisTokenBucket implements TokenBucket, MeterBinder {

  private final TokenBucketConfig config;
  private final BucketNews news;
  private final FleetChannel channel;
  private final BucketScript script;
  private final OrderedBookings bookings;
  private final Map<String, RedisTokenBucket> flows;
  private final String flow; // with shares, the flow whose calls this is (forFlow); else null
  private final Map<String, Double> shares; // read on every call: not an Optional of the config's each time

  private RedisTokenBucket(RedissonClient redisson, TokenBucketConfig config, TimeSource time) {
    Objects.requireNonNull(redisson, "redisson cannot be null");
    this.config = Objects.requireNonNull(config, "config cannot be null");
    StepSettings settings = config.stepSettings();
    this.news = new BucketNews(config.name(), settings.configuration(), time);
    this.channel = new FleetChannel(redisson, config.key(), config.name(), news, config.redisTimeout().toNanos(),
        settings.adaptation().maxHoldMicros(), time::nanoTime);
    this.script = new BucketScript(redisson, config, time, settings, news, channel);
    this.bookings = new OrderedBookings(script);
    this.flows = new ConcurrentHashMap<>();
    this.shares = config.shares().orElse(Map.of());
    this.flow = null;
  }

  private RedisTokenBucket(RedisTokenBucket bucket, String flow) {
    this.config = bucket.config;
    this.news = bucket.news;
    this.channel = bucket.channel;
    this.script = bucket.script;
    this.bookings = bucket.bookings;
    this.flows = bucket.flows;
    this.shares = bucket.shares;
    this.flow = flow;
  }

  /**
   * With {@link TokenBucketConfig.Builder#shares shares}, this bucket for {@code flow}'s calls (closing it closes the
   * bucket): they count against the flow's share, or "*"'s when not named. Without shares, or a null flow: this.
   */
  @Override
  public RedisTokenBucket forFlow(String flow) {
    if (shares.isEmpty() || flow == null) {
      return this;
    }
    return flows.computeIfAbsent(shares.containsKey(flow) ? flow : "*", f -> new RedisTokenBucket(this, f));
  }

  @Override
  public Map<String, Double> shares() {
    return shares;
  }

  boolean sameBucket(RedisTokenBucket other) { // for another flow's calls or the same
    return other.script == script;
  }

  /** A bucket over {@code redisson} with these settings. Makes no call to Redis. */
  public static RedisTokenBucket create(RedissonClient redisson, TokenBucketConfig config) {
    return new RedisTokenBucket(redisson, config, TimeSource.SYSTEM);
  }

  /** For tests: {@link Acquisition#answeredAtNanos()} read from {@code time} instead of {@link System#nanoTime()}. */
  static RedisTokenBucket create(RedissonClient redisson, TokenBucketConfig config, TimeSource time) {
    return new RedisTokenBucket(redisson, config, time);
  }

  /**
   * Loads the bucket's script into Redis now, so that the first calls of a burst do not each meet NOSCRIPT (a fresh
   * or restarted Redis has no scripts). Optional. On a Redisson client not yet connected, it waits for the connect
   * (up to 10 s, or the Redis timeout when longer), while a call never waits longer than the Redis timeout.
   *
   * @throws StoreUnavailableException when Redis fails or does not answer in time
   */
  @Override
  public void preload() throws StoreUnavailableException, InterruptedException {
    script.preload();
  }

  /** This replica makes no more calls: its configuration stops counting for the fleet unless another uses it. */
  @Override
  public void close() {
    script.close();
  }

  @Override
  public String name() {
    return config.name();
  }

  @Override
  public List<Limit> limits() {
    return config.limits();
  }

  public TokenBucketConfig config() {
    return config;
  }

  @Override
  public Acquisition acquire(double cost, Duration maxWait) throws StoreUnavailableException, InterruptedException {
    long maxWaitMicros = script.checkedMaxWaitMicros(cost, maxWait);
    return script.run(BucketStep.Op.ACQUIRE, cost, maxWaitMicros, null, flow).acquisition();
  }

  /**
   * Sent with Redisson's async API: no thread waits for Redis's answer. This process's bookings asked while others are
   * at Redis go together, in the order asked, in the next pipeline (up to {@value OrderedBookings#MAX_BATCH}, one
   * round trip, run by Redis in order). Cancelling the future before its pipeline leaves books nothing.
   */
  @Override
  public CompletableFuture<Acquisition> acquireAsync(double cost, Duration maxWait) {
    return acquireAsync(cost, maxWait, System.nanoTime());
  }

  /** {@link #acquireAsync(double, Duration)}, in its pipeline after the bookings asked for before {@code askedAt}. */
  @Override
  public CompletableFuture<Acquisition> acquireAsync(double cost, Duration maxWait, long askedAt) {
    long maxWaitMicros = script.checkedMaxWaitMicros(cost, maxWait);
    CompletableFuture<BucketScript.Answer> answer = bookings.book(cost, maxWaitMicros, askedAt, flow);
    CompletableFuture<Acquisition> result = answer.thenApply(BucketScript.Answer::acquisition);
    result.whenComplete((a, failure) -> answer.cancel(false)); // given up before its batch leaves: not sent
    return result;
  }

  /** For a permit pool beside this bucket: the script's arguments of an acquire (checked as an acquire's are). */
  Object[] acquireArgs(double cost, Duration maxWait) {
    return script.arguments(BucketStep.Op.ACQUIRE, cost, script.checkedMaxWaitMicros(cost, maxWait), null, flow);
  }

  /** For a permit pool beside this bucket: the bucket's reply, taken as news, as an acquisition. */
  Acquisition acquisition(String reply, long receivedAtNanos) throws StoreUnavailableException {
    return script.observe(new LuaScript.Reply(reply, receivedAtNanos)).acquisition();
  }

  RedissonClient redisson() {
    return script.redisson();
  }

  /**
   * {@link Validity#STATE_LOST} once a newer state of this bucket has answered this process (the one that booked
   * {@code granted} is gone); {@link Validity#RATE_CUT} once a newer rate generation has (the provider refused a call
   * since the booking). No round trip.
   */
  @Override
  public Validity validity(Acquisition granted) {
    return news.validity(StepStamp.of(granted.stamp()));
  }

  @Override
  public double charge(double cost) throws StoreUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    return script.run(BucketStep.Op.CHARGE, cost, 0, null, flow).reply().remaining();
  }

  @Override
  public double refund(double cost) throws StoreUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    return script.run(BucketStep.Op.REFUND, cost, 0, null, flow).reply().remaining();
  }

  @Override
  public CompletableFuture<Double> chargeAsync(double cost) {
    Checks.tokens("cost", cost);
    return script.runAsync(BucketStep.Op.CHARGE, cost, 0, null, flow).thenApply(r -> r.reply().remaining());
  }

  @Override
  public CompletableFuture<Double> refundAsync(double cost) {
    Checks.tokens("cost", cost);
    return script.runAsync(BucketStep.Op.REFUND, cost, 0, null, flow).thenApply(r -> r.reply().remaining());
  }

  /**
   * Cuts the shared rate if {@code booked} was booked under the current one (the rate adaptation configured), and
   * holds every slot back until {@code retryAfter} from now, at most {@link RateAdaptation#maxProviderHold()} (a
   * longer ask is logged); without a rate adaptation, does nothing. A report is not counted when this process made the
   * last cut and other replicas have asked for slots since (logged, and {@link Refusal#NOT_COUNTED}).
   */
  @Override
  public Refusal providerRefused(Acquisition booked, Duration retryAfter)
      throws StoreUnavailableException, InterruptedException {
    return script.providerRefused(booked, retryAfter);
  }

  /** A pool the fleet shares, beside this bucket: the permit and the slot in one script ({@link RedisPermitPool}). */
  @Override
  public PermitPool permitPool(String name, int capacity, Duration lease) {
    return RedisPermitPool.beside(this, name, capacity, lease);
  }

  /** What this process last heard of the bucket's fleet-wide state, from its own calls' replies; no I/O. */
  @Override
  public BucketReadings readings() {
    return new BucketReadings(news.rateFactor(), news.configurations(), news.holdLeft(), news.repairs(),
        news.notCounted(), news.ratePerSecond());
  }

  /**
   * The script's meter: calls of this process that met NOSCRIPT and sent the script's body instead. One per process
   * and registry, however many buckets bind it (each quota's, Spring Boot's binding of the bean and the throttle's).
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    BucketScript.bindNoScriptMeter(registry);
  }

  /** For tests: the channel, as a message reaches it. */
  FleetChannel channel() {
    return channel;
  }

  /**
   * Stops a configuration of this bucket from counting, now, for every replica: what an operator does when a stale or
   * wrong setting holds the fleet (a replica that stopped with a long lease, say). One round trip. A replica still
   * running that configuration registers it again at its next call. The same by hand:
   * {@code redis-cli HDEL '<key>' 'c:<configuration>'} (the key is {@link TokenBucketConfig#key()}).
   *
   * @param configuration as {@link BucketState#configurations()} lists it, e.g. {@code "1.0:0.01"}
   * @return whether the bucket had that configuration
   * @throws StoreUnavailableException when Redis fails or does not answer in time
   */
  public boolean clearConfiguration(String configuration) throws StoreUnavailableException, InterruptedException {
    return script.clearConfiguration(configuration);
  }

  /**
   * Reads the bucket's state in Redis now, in one round trip, changing nothing: tokens left, calls booked ahead, the
   * rate in force and the fleet's live configurations. For display (the starter's actuator endpoint), not for
   * deciding: by the time it is read, the next call may have changed it.
   *
   * @throws StoreUnavailableException when Redis fails or does not answer in time
   */
  public BucketState state() throws StoreUnavailableException, InterruptedException {
    return script.state();
  }

  /**
   * Whether the Redis node that holds this bucket has its script cached (SCRIPT EXISTS), so that calls need no
   * second round trip: true after {@link #preload()} or a first call, false on a fresh, restarted or promoted node.
   *
   * @throws StoreUnavailableException when Redis fails or does not answer in time
   */
  public boolean scriptLoaded() throws StoreUnavailableException, InterruptedException {
    return script.scriptLoaded();
  }

  @Override
  public String toString() {
    return "RedisTokenBucket{" + config + (flow == null ? "" : ", flow=" + flow) + "}";
  }
}
