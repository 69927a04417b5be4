package io.pixquota.bacen;

import io.pixquota.bacen.internal.Async;
import io.pixquota.bacen.internal.BucketStep;
import io.pixquota.bacen.internal.Checks;
import io.pixquota.bacen.internal.LuaScript;
import io.pixquota.bacen.internal.StateEpochs;
import io.pixquota.bacen.internal.TimeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link TokenBucket} kept in Redis and shared by every process that uses the same name and key prefix.
 *
 * <p>Each operation is one atomic Lua script ({@code token_bucket.lua}, documented in its header) run by EVALSHA
 * through Redisson: one round trip, refill, decision and record together, so concurrent callers in any number of
 * processes can never both take the last token. Time is Redis's {@code TIME} unless a client clock is configured;
 * either way the stored {@code updatedAt} never moves backwards.
 *
 * <p>The fleet shares more than tokens. Each call registers its configuration (its limits) for a lease; while
 * replicas disagree, every live configuration's limits are enforced together (the strictest wins, limit by limit)
 * and this class logs a WARN at most once a minute naming them. A 429 the bucket did not expect cuts the shared rate
 * for every replica, and a Retry-After holds every slot back ({@link #providerRefused}, {@link RateAdaptation}).
 * Every process subscribes to the bucket's channel ({@code <key>:fleet}) at its first call, so that a new rate
 * generation voids the slots its callers sleep on at once, not at its next round trip.
 *
 * <p>This class is threadsafe. It does not own the {@link RedissonClient}; shut that down yourself.
 */
public final class RedisTokenBucket implements TokenBucket {
  private static final Logger LOG = LoggerFactory.getLogger(RedisTokenBucket.class);
  private static final LuaScript SCRIPT = LuaScript.TOKEN_BUCKET;
  private static final LuaScript STATE = LuaScript.fromResource("bucket_state.lua");
  private static final RateAdaptation UNUSED = RateAdaptation.defaults(); // the script's arguments when it is off

  private final RedissonClient redisson;
  private final TokenBucketConfig config;
  private final String key;
  private final double maxCost;
  private final String settings;
  private final Clock clientClock;
  private final TimeSource time;
  private final StateEpochs epochs = new StateEpochs();
  private final StateEpochs generations = new StateEpochs();
  private final String myConfiguration;
  private final AtomicLong lastConfigurationsWarnNanos;
  private final AtomicLong nextSubscribeNanos = new AtomicLong(System.nanoTime());
  private volatile boolean subscribed;
  private volatile double rateFactor = 1;
  private volatile int configurations = 1;

  private RedisTokenBucket(RedissonClient redisson, TokenBucketConfig config, TimeSource time) {
    this.redisson = Objects.requireNonNull(redisson, "redisson cannot be null");
    this.config = Objects.requireNonNull(config, "config cannot be null");
    this.time = time;
    this.key = config.key();
    this.maxCost = config.maxCost();
    this.clientClock = config.clientClock().orElse(null);
    RateAdaptation adaptation = config.rateAdaptation().orElse(UNUSED);
    List<Limit> limits = config.limits();
    String[] mine = new String[limits.size()];
    for (int i = 0; i < limits.size(); i++) {
      mine[i] = limits.get(i).capacity() + ":" + limits.get(i).refillPerSecond();
    }
    Arrays.sort(mine);
    this.myConfiguration = String.join(",", mine);
    this.settings = Checks.saturatedMicros(config.configurationLease()) + " " + adaptation.decrease() + " "
        + adaptation.increasePerSecond() + " " + adaptation.floor() + " " + myConfiguration;
    this.lastConfigurationsWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
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
   * Loads the bucket's script into Redis now, so that the first calls of a burst do not each meet NOSCRIPT and pay a
   * second round trip (a fresh or restarted Redis has no scripts). Optional.
   *
   * @throws BucketUnavailableException when Redis fails or does not answer in time
   */
  @Override
  public void preload() throws BucketUnavailableException, InterruptedException {
    subscribe();
    try {
      SCRIPT.load(redisson, key, config.redisTimeout().toNanos());
    } catch (LuaScript.CallFailedException e) {
      throw new BucketUnavailableException(config.name(), e.getMessage(), e.getCause());
    }
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
  public Acquisition acquire(double cost, Duration maxWait) throws BucketUnavailableException, InterruptedException {
    long maxWaitMicros = checkedMaxWaitMicros(cost, maxWait);
    return acquisition(run("acquire", cost, maxWaitMicros, ""));
  }

  /**
   * One EVALSHA sent with Redisson's async API: no thread waits for Redis's answer. This process's async bookings of
   * this bucket reach Redis in the order they were asked for (Redisson would spread them over its connections, and
   * slots would follow the connections' race): each is sent when the one before it has been answered, so they are
   * at most one round trip apart (thousands a second, far above any provider's quota).
   */
  @Override
  public CompletableFuture<Acquisition> acquireAsync(double cost, Duration maxWait) {
    long maxWaitMicros = checkedMaxWaitMicros(cost, maxWait);
    synchronized (asyncOrder) {
      CompletableFuture<Acquisition> booked = asyncTail.handle((previous, failure) -> null)
          .thenCompose(ignored -> runAsync("acquire", cost, maxWaitMicros, ""))
          .thenApply(RedisTokenBucket::acquisition);
      asyncTail = booked;
      return booked;
    }
  }

  private final Object asyncOrder = new Object();
  private CompletableFuture<?> asyncTail = CompletableFuture.completedFuture(null); // guarded by asyncOrder

  private long checkedMaxWaitMicros(double cost, Duration maxWait) {
    Checks.cost(cost, maxCost);
    return Checks.saturatedMicros(Checks.notNegative("maxWait", maxWait));
  }

  private static Acquisition acquisition(Answer answer) {
    BucketStep.Reply r = answer.reply();
    return new Acquisition(r.done(), Duration.of(r.waitMicros(), ChronoUnit.MICROS), r.remaining(),
        r.nowMicros() + r.waitMicros(), answer.receivedAtNanos(), r.epoch(), r.generation());
  }

  /** A reply read, and when it arrived by this bucket's clock. */
  private record Answer(BucketStep.Reply reply, long receivedAtNanos) {}

  /** True once a newer state of this bucket has answered this process: the one that booked {@code granted} is gone. */
  @Override
  public boolean lost(Acquisition granted) {
    return epochs.isDead(granted.stateEpoch());
  }

  /** True once a newer rate generation has answered this process: the provider refused a call since the booking. */
  @Override
  public boolean superseded(Acquisition granted) {
    return generations.isDead(granted.rateGeneration());
  }

  @Override
  public double charge(double cost) throws BucketUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    return run("charge", cost, 0, "").reply().remaining();
  }

  @Override
  public double refund(double cost) throws BucketUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    return run("refund", cost, 0, "").reply().remaining();
  }

  @Override
  public CompletableFuture<Double> refundAsync(double cost) {
    Checks.tokens("cost", cost);
    return runAsync("refund", cost, 0, "").thenApply(r -> r.reply().remaining());
  }

  /**
   * Cuts the shared rate if {@code booked} was booked under the current one (the rate adaptation configured), and
   * holds every slot back until {@code retryAfter} from now; without a rate adaptation, does nothing.
   */
  @Override
  public boolean providerRefused(Acquisition booked, Duration retryAfter)
      throws BucketUnavailableException, InterruptedException {
    Objects.requireNonNull(booked, "booked cannot be null");
    long holdMicros = Checks.saturatedMicros(Checks.notNegative("retryAfter", retryAfter));
    if (config.rateAdaptation().isEmpty()) {
      return false;
    }
    return run("cut", 1, holdMicros, Long.toString(booked.rateGeneration())).reply().done();
  }

  @Override
  public double rateFactor() {
    return rateFactor;
  }

  /** For tests: whether this process hears the fleet's news of this bucket on its channel. */
  boolean subscribed() {
    return subscribed;
  }

  @Override
  public int configurations() {
    return configurations;
  }

  private Answer run(String op, double cost, long argMicros, String bookedGeneration)
      throws BucketUnavailableException, InterruptedException {
    subscribe();
    try {
      return observe(SCRIPT.call(redisson, key, args(op, cost, argMicros, bookedGeneration),
          config.redisTimeout().toNanos(), time::nanoTime));
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e);
    }
  }

  /**
   * One script call, without blocking: completes on Redisson's I/O thread after this process has taken the news of
   * the reply, or exceptionally with a {@link BucketUnavailableException}.
   */
  private CompletableFuture<Answer> runAsync(String op, double cost, long argMicros,
      String bookedGeneration) {
    subscribe();
    return SCRIPT.callAsync(redisson, key, args(op, cost, argMicros, bookedGeneration),
        config.redisTimeout().toNanos(), time::nanoTime).handle((reply, failure) -> {
          if (failure != null) {
            throw new CompletionException(unavailable(failure));
          }
          return observe(reply);
        });
  }

  private Object[] args(String op, double cost, long argMicros, String bookedGeneration) {
    return new Object[] {op, cost == 1 ? "1" : Double.toString(cost), Long.toString(argMicros),
        clientClock == null ? "" : Long.toString(micros(clientClock.instant())), bookedGeneration, settings};
  }

  /** Takes the news of a reply: the state's epoch, the rate's generation and factor, the live configurations. */
  private Answer observe(LuaScript.Reply text) {
    BucketStep.Reply reply = BucketStep.Reply.parse(text.text());
    epochs.observe(reply.epoch());
    generations.observe(reply.generation());
    rateFactor = reply.factor();
    configurations = reply.configurations();
    if (reply.configurations() > 1) {
      disagreement(reply.others());
    }
    return new Answer(reply, text.receivedAtNanos());
  }

  /** A failed script call as this bucket reports it: what failed, the Redis timeout, and the root cause. */
  private BucketUnavailableException unavailable(Throwable failure) {
    Throwable cause = Async.cause(failure);
    if (cause instanceof LuaScript.CallFailedException f) {
      return new BucketUnavailableException(config.name(), f.getMessage() + " (redisTimeout "
          + config.redisTimeout().toMillis() + " ms)", f.getCause());
    }
    return new BucketUnavailableException(config.name(), String.valueOf(cause), cause);
  }

  /**
   * Subscribes, without waiting, to the fleet's news of this bucket: a new rate generation, published by whichever
   * process cut the rate or met a longer Retry-After. A failed subscription is tried again 10 s later; meanwhile the
   * news arrives with this process's next reply.
   */
  private void subscribe() {
    long next = nextSubscribeNanos.get();
    long now = System.nanoTime();
    if (subscribed || now - next < 0 || !nextSubscribeNanos.compareAndSet(next, now + TimeUnit.SECONDS.toNanos(10))) {
      return;
    }
    try {
      redisson.getTopic(key + ":fleet", StringCodec.INSTANCE)
          .addListenerAsync(String.class, (channel, message) -> fleetNews(message))
          .whenComplete((id, failure) -> {
            if (failure == null) {
              subscribed = true;
            } else {
              LOG.debug("Bucket '{}': no subscription to the fleet's news yet ({})", config.name(),
                  failure.toString());
            }
          });
    } catch (RuntimeException e) {
      LOG.debug("Bucket '{}': no subscription to the fleet's news yet ({})", config.name(), e.toString());
    }
  }

  /** {@code <epoch>:<generation>}: a newer generation of the state this process knows voids its older slots. */
  private void fleetNews(String message) {
    int colon = message.indexOf(':');
    try {
      long epoch = Long.parseLong(message.substring(0, colon));
      long generation = Long.parseLong(message.substring(colon + 1));
      if (epoch == epochs.current() && generation > generations.current()) {
        generations.observe(generation);
      }
    } catch (RuntimeException e) {
      LOG.debug("Bucket '{}': ignored a message on its channel: {}", config.name(), e.toString());
    }
  }

  /** Replicas run other limits on this bucket: WARN at most once a minute, naming every configuration. */
  private void disagreement(String others) {
    long last = lastConfigurationsWarnNanos.get();
    long now = time.nanoTime();
    if (now - last > TimeUnit.MINUTES.toNanos(1) && lastConfigurationsWarnNanos.compareAndSet(last, now)) {
      LOG.warn("Bucket '{}': replicas use {} configurations (capacity:refill per second, per limit): {} (this "
          + "process), {}; every limit of each is enforced until a configuration goes unused for its lease (see "
          + "bacen.throttle.configurations)", config.name(), configurations, myConfiguration,
          others.replace(";", ", "));
    }
  }

  private static long micros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }

  /**
   * Reads the bucket's state in Redis now, in one round trip, changing nothing: tokens left, calls booked ahead, the
   * rate in force and the fleet's live configurations. For display (the starter's actuator endpoint), not for
   * deciding: by the time it is read, the next call may have changed it.
   *
   * @throws BucketUnavailableException when Redis fails or does not answer in time
   */
  public BucketState state() throws BucketUnavailableException, InterruptedException {
    String text;
    try {
      text = STATE.call(redisson, key, new Object[0], config.redisTimeout().toNanos(), time::nanoTime).text();
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e);
    }
    return BucketStates.read(config, text);
  }

  /**
   * Whether the Redis node that holds this bucket has its script cached (SCRIPT EXISTS), so that calls need no
   * second round trip: true after {@link #preload()} or a first call, false on a fresh, restarted or promoted node.
   *
   * @throws BucketUnavailableException when Redis fails or does not answer in time
   */
  public boolean scriptLoaded() throws BucketUnavailableException, InterruptedException {
    try {
      return SCRIPT.loaded(redisson, key, config.redisTimeout().toNanos());
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e);
    }
  }

  @Override
  public String toString() {
    return "RedisTokenBucket{" + config + "}";
  }
}
