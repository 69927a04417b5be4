package io.pixquota.bacen;

import io.pixquota.bacen.internal.Checks;
import io.pixquota.bacen.internal.LuaScript;
import io.pixquota.bacen.internal.StateEpochs;
import io.pixquota.bacen.internal.TimeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import org.redisson.api.RedissonClient;

/**
 * A {@link TokenBucket} kept in Redis and shared by every process that uses the same name and key prefix.
 *
 * <p>Each operation is one atomic Lua script ({@code token_bucket.lua}, documented in its header) run by EVALSHA
 * through Redisson: one round trip, refill, decision and record together, so concurrent callers in any number of
 * processes can never both take the last token. Time is Redis's {@code TIME} unless a client clock is configured;
 * either way the stored {@code updatedAt} never moves backwards.
 *
 * <p>This class is threadsafe. It does not own the {@link RedissonClient}; shut that down yourself.
 */
public final class RedisTokenBucket implements TokenBucket {
  private static final LuaScript SCRIPT = LuaScript.TOKEN_BUCKET;

  private final RedissonClient redisson;
  private final TokenBucketConfig config;
  private final String key;
  private final double maxCost;
  private final Object[] limitArgs;
  private final Clock clientClock;
  private final TimeSource time;
  private final StateEpochs epochs = new StateEpochs();

  private RedisTokenBucket(RedissonClient redisson, TokenBucketConfig config, TimeSource time) {
    this.redisson = Objects.requireNonNull(redisson, "redisson cannot be null");
    this.config = Objects.requireNonNull(config, "config cannot be null");
    this.time = time;
    this.key = config.key();
    this.maxCost = config.maxCost();
    this.clientClock = config.clientClock().orElse(null);
    List<Limit> limits = config.limits();
    this.limitArgs = new Object[1 + 2 * limits.size()];
    limitArgs[0] = Integer.toString(limits.size());
    for (int i = 0; i < limits.size(); i++) {
      limitArgs[1 + 2 * i] = Double.toString(limits.get(i).capacity());
      limitArgs[2 + 2 * i] = Double.toString(limits.get(i).refillPerSecond());
    }
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
    Checks.cost(cost, maxCost);
    long maxWaitMicros = Checks.saturatedMicros(Checks.notNegative("maxWait", maxWait));
    LuaScript.Reply answer = run("acquire", cost, maxWaitMicros);
    List<Object> reply = answer.values();
    long waitMicros = asLong(reply.get(1));
    long nowMicros = asLong(reply.get(3));
    return new Acquisition(asLong(reply.get(0)) == 1, Duration.of(waitMicros, ChronoUnit.MICROS),
        Double.parseDouble(reply.get(2).toString()), nowMicros + waitMicros, answer.receivedAtNanos(),
        asLong(reply.get(4)));
  }

  /** True once a newer state of this bucket has answered this process: the one that booked {@code granted} is gone. */
  @Override
  public boolean lost(Acquisition granted) {
    return epochs.isDead(granted.stateEpoch());
  }

  @Override
  public double charge(double cost) throws BucketUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    return Double.parseDouble(run("charge", cost, 0).values().get(2).toString());
  }

  @Override
  public double refund(double cost) throws BucketUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    return Double.parseDouble(run("refund", cost, 0).values().get(2).toString());
  }

  private LuaScript.Reply run(String op, double cost, long maxWaitMicros)
      throws BucketUnavailableException, InterruptedException {
    Object[] args = new Object[4 + limitArgs.length];
    args[0] = op;
    args[1] = Double.toString(cost);
    args[2] = Long.toString(maxWaitMicros);
    args[3] = clientClock == null ? "" : Long.toString(micros(clientClock.instant()));
    System.arraycopy(limitArgs, 0, args, 4, limitArgs.length);
    try {
      LuaScript.Reply reply = SCRIPT.call(redisson, key, args, config.redisTimeout().toNanos(), time::nanoTime);
      epochs.observe(asLong(reply.values().get(4)));
      return reply;
    } catch (LuaScript.CallFailedException e) {
      throw new BucketUnavailableException(config.name(), e.getMessage() + " (redisTimeout "
          + config.redisTimeout().toMillis() + " ms)", e.getCause());
    }
  }

  private static long asLong(Object value) {
    return value instanceof Number n ? n.longValue() : Long.parseLong(value.toString());
  }

  private static long micros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }

  @Override
  public String toString() {
    return "RedisTokenBucket{" + config + "}";
  }
}
