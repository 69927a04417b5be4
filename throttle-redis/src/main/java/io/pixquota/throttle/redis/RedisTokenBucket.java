package io.pixquota.throttle.redis;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.pixquota.throttle.internal.BucketStep;
import io.pixquota.throttle.internal.StepSettings;
import io.pixquota.throttle.internal.StepStamp;
import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.redis.internal.ScriptClient;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.BucketReadings;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.support.Async;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

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
 * <p>This class is threadsafe. It does not own the Redis client behind its {@link RedisStore}; shut that down
 * yourself.
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
  private final TimeSource time;
  private final RefusalMemory refusals; // this flow's: what its last refusal said
  private final LongAdder remembered; // refusals answered from memory, every flow's

  private RedisTokenBucket(ScriptClient scripts, TokenBucketConfig config, TimeSource time) {
    this(scripts, config, time, true);
  }

  /** @param listens whether it hears the fleet's news on the bucket's channel (a warm-up's bucket does not) */
  private RedisTokenBucket(ScriptClient scripts, TokenBucketConfig config, TimeSource time, boolean listens) {
    Objects.requireNonNull(scripts, "client cannot be null");
    this.config = Objects.requireNonNull(config, "config cannot be null");
    this.time = time;
    StepSettings settings = config.stepSettings();
    this.news = new BucketNews(config.name(), settings.configuration(), time);
    this.channel = new FleetChannel(scripts, config.key(), config.name(), news, config.redisTimeout().toNanos(),
        settings.adaptation().maxHoldMicros(), time::nanoTime, listens);
    this.script = new BucketScript(scripts, config, time, settings, news, channel);
    this.bookings = new OrderedBookings(script);
    this.remembered = new LongAdder();
    this.refusals = new RefusalMemory(time::nanoTime, news::version, remembered, config.clientClock().isEmpty());
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
    this.remembered = bucket.remembered;
    this.refusals = new RefusalMemory(bucket.time::nanoTime, bucket.news::version, bucket.remembered,
        bucket.config.clientClock().isEmpty());
    this.flows = bucket.flows;
    this.shares = bucket.shares;
    this.time = bucket.time;
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

  /**
   * A bucket over {@code store} (a Redisson or a Lettuce client) with these settings. Makes no call to Redis. Buckets
   * of the same name and key prefix share their tokens whichever client each process uses.
   */
  public static RedisTokenBucket create(RedisStore store, TokenBucketConfig config) {
    return new RedisTokenBucket(Stores.scripts(store), config, TimeSource.SYSTEM);
  }

  /** For tests: answers stamped on {@code time}. */
  static RedisTokenBucket create(RedisStore store, TokenBucketConfig config, TimeSource time) {
    return new RedisTokenBucket(Stores.scripts(store), config, time);
  }

  /**
   * Loads the bucket's script into Redis now, so that the first calls of a burst do not each meet NOSCRIPT (a fresh or
   * restarted Redis has no scripts), subscribes to the fleet's channel, and takes a booking's way once: three acquires,
   * one alone and two in a pipeline, on a key of their own in the bucket's slot ({@code <prefix>warm-up:{name}:tb},
   * gone within milliseconds), so that the first burst's calls do not pay for loading the client's and this module's
   * classes (on a cold JVM, 75 ms and more for the first booking). Optional. While Redis cannot be reached or a
   * failover is under way (a Sentinel promoting a replica, a Cluster moving a master's slots), it asks again, for up to
   * 10 s (or the Redis timeout, when longer): a replica that starts during a failover starts once the new master
   * answers, instead of failing its start. A call never waits longer than its own max wait.
   *
   * @throws StoreUnavailableException when Redis fails for good (a refused password, the wrong kind of node) or does
   *                                    not answer within that time
   */
  @Override
  public void preload() throws StoreUnavailableException, InterruptedException {
    long deadline = System.nanoTime() + Math.max(LuaScript.CONNECT_BUDGET_NANOS, config.redisTimeout().toNanos());
    script.preload(deadline);
    RedisTokenBucket warm = new RedisTokenBucket(script.scripts(), TokenBucketConfig.custom(config.name())
        .keyPrefix(config.keyPrefix() + "warm-up:").limit(3, 1000).redisTimeout(config.redisTimeout()).build(), time,
        false);
    try {
      for (long backOff = 50; ; backOff = Math.min(backOff * 2, 500)) {
        try {
          warmUp(warm);
          return;
        } catch (StoreUnavailableException e) {
          if (!e.passing() || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backOff) - deadline > 0) {
            throw e;
          }
          Thread.sleep(backOff);
        }
      }
    } finally {
      warm.close(); // its configuration out now: the key expires as it refills, in milliseconds
    }
  }

  /** Three acquires on the warm-up bucket, one alone and two pipelined (the bucket refills 1,000 a second). */
  private void warmUp(RedisTokenBucket warm) throws StoreUnavailableException, InterruptedException {
    List<CompletableFuture<Acquisition>> asked = List.of(warm.acquireAsync(1, Duration.ZERO),
        warm.acquireAsync(1, Duration.ZERO), warm.acquireAsync(1, Duration.ZERO));
    try {
      CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
          .get(config.redisTimeout().toNanos() * 2, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw Async.cause(e) instanceof StoreUnavailableException u ? u
          : new StoreUnavailableException(config.name(), "the warm-up booking failed: " + Async.cause(e), e);
    } catch (TimeoutException e) {
      throw new StoreUnavailableException(config.name(), "the warm-up booking did not answer in time", e, true);
    }
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
    Acquisition known = refusals.refusal(cost, nanos(maxWaitMicros));
    if (known != null) {
      return known;
    }
    Acquisition a = null;
    try {
      a = script.run(BucketStep.Op.ACQUIRE, cost, maxWaitMicros, null, flow).acquisition();
      return a;
    } finally {
      refusals.answered(cost, a);
    }
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
    Acquisition known = refusals.refusal(cost, nanos(maxWaitMicros)); // a refusal this process knows: no round trip
    if (known != null) {
      return CompletableFuture.completedFuture(known);
    }
    CompletableFuture<BucketScript.Answer> answer = bookings.book(cost, maxWaitMicros, askedAt, flow);
    CompletableFuture<Acquisition> result = answer.thenApply(BucketScript.Answer::acquisition);
    result.whenComplete((a, failure) -> {
      answer.cancel(false); // given up before its batch leaves: not sent
      refusals.answered(cost, a);
    });
    return result;
  }

  private static long nanos(long micros) {
    return micros > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : micros * 1000;
  }

  /** For a permit pool beside this bucket: the script's arguments of an acquire (checked as an acquire's are). */
  Object[] acquireArgs(double cost, Duration maxWait) {
    return script.arguments(BucketStep.Op.ACQUIRE, cost, script.checkedMaxWaitMicros(cost, maxWait), null, flow);
  }

  /** For a permit pool beside this bucket: the bucket's reply, taken as news, as an acquisition. */
  Acquisition acquisition(String reply, long receivedAtNanos) throws StoreUnavailableException {
    return script.observe(new LuaScript.Reply(reply, receivedAtNanos)).acquisition();
  }

  ScriptClient scripts() {
    return script.scripts();
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

  /**
   * A slot of an older rate generation at the rate in force, moved as the cut moved every slot booked before it, from
   * what this process heard of the cut (a reply, or the state read after the channel's message); no round trip. Null
   * when it missed a cut, or the slot had come by then.
   */
  @Override
  public Acquisition retimed(Acquisition granted) {
    StepStamp stamp = StepStamp.of(granted.stamp());
    long moved = news.moved(stamp, granted.slotMicros());
    return moved < 0 ? null : granted.movedTo(moved, new StepStamp(stamp.epoch(), news.generations.current()));
  }

  @Override
  public double charge(double cost) throws StoreUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    return script.run(BucketStep.Op.CHARGE, cost, 0, null, flow).reply().remaining();
  }

  @Override
  public double refund(double cost) throws StoreUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    refusals.forget(); // tokens given back: a slot may be sooner than the last refusal said
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
    refusals.forget();
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
   * The script's meter: calls of this process that met NOSCRIPT and sent the script's body instead (one per process
   * and registry, however many buckets bind it: each quota's, Spring Boot's binding of the bean and the throttle's);
   * and the bucket's {@code bacen.throttle.refused.remembered}: refusals this process answered from what the script
   * last refused, without a round trip ({@link RefusalMemory}; each is a refusal the throttle counts too).
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    BucketScript.bindNoScriptMeter(registry);
    if (registry.find("bacen.throttle.refused.remembered").tag("bucket", config.name()).functionCounter() != null) {
      return; // bound already: Spring Boot binds the bean and the throttle binds its bucket
    }
    FunctionCounter.builder("bacen.throttle.refused.remembered", remembered, LongAdder::sum)
        .description("Calls refused from the last refusal the bucket's script gave this process's calls of a flow, "
            + "without a round trip (believed for 100 ms, and until a refund, cut or rate change)")
        .tag("bucket", config.name()).register(registry);
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
    refusals.forget(); // a configuration less can bring every flow's slot sooner
    flows.values().forEach(f -> f.refusals.forget());
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
