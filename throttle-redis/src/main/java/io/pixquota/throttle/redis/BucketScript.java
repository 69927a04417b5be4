package io.pixquota.throttle.redis;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.throttle.internal.BucketReply;
import io.pixquota.throttle.internal.BucketStep;
import io.pixquota.throttle.internal.StepSettings;
import io.pixquota.throttle.internal.StepStamp;
import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.redis.internal.ScriptBatch;
import io.pixquota.throttle.redis.internal.ScriptClient;
import io.pixquota.throttle.redis.internal.ScriptProtocol;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.support.Async;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.support.TimeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * One {@link RedisTokenBucket}'s way to Redis: its script sent with the arguments {@link ScriptProtocol} encodes, the
 * reply read and its news taken, every failure (a Redis error, a timeout, a reply that is not the script's) as a
 * {@link StoreUnavailableException}; and the operator's reads and writes beside it. Threadsafe.
 */
final class BucketScript {
  private static final LuaScript SCRIPT = LuaScript.TOKEN_BUCKET;
  private static final LuaScript STATE = LuaScript.fromResource("bucket_state.lua");

  private final ScriptClient scripts;
  private final double maxCost;
  private final TokenBucketConfig config;
  private final String key;
  private final TimeSource time;
  private final Clock clientClock;
  private final StepSettings settings;
  private final BucketNews news;
  private final FleetChannel channel;
  private final LuaScript.Target target;
  private final LongSupplier clock;

  BucketScript(ScriptClient scripts, TokenBucketConfig config, TimeSource time, StepSettings settings,
      BucketNews news, FleetChannel channel) {
    this.scripts = scripts;
    this.maxCost = config.maxCost();
    this.config = config;
    this.key = config.key();
    this.time = time;
    this.clientClock = config.clientClock().orElse(null);
    this.settings = settings;
    this.news = news;
    this.channel = channel;
    this.target = LuaScript.target(scripts, key);
    this.clock = time::nanoTime;
  }

  ScriptClient scripts() {
    return scripts;
  }

  /** An acquire's max wait in microseconds, its cost and max wait checked first (before any I/O). */
  long checkedMaxWaitMicros(double cost, Duration maxWait) {
    Checks.cost(cost, maxCost);
    return Checks.saturatedMicros(Checks.notNegative("maxWait", maxWait));
  }

  /** A reply read, and when it arrived by the bucket's clock. */
  record Answer(BucketReply reply, long receivedAtNanos) {
    /** The reply as an acquire's answer, stamped with its epoch and generation. */
    Acquisition acquisition() {
      return Acquisition.of(reply.done(), Duration.of(reply.waitMicros(), ChronoUnit.MICROS), reply.remaining(),
          reply.nowMicros() + reply.waitMicros(), receivedAtNanos, new StepStamp(reply.epoch(), reply.generation()),
          reply.flow());
    }
  }

  /**
   * The script's meter: calls of this process that met NOSCRIPT and sent the script's body instead. One per process
   * and registry, however many buckets bind it.
   */
  static void bindNoScriptMeter(MeterRegistry registry) {
    if (registry.find("bacen.throttle.script.noscript").functionCounter() == null) {
      FunctionCounter.builder("bacen.throttle.script.noscript", LuaScript.TOKEN_BUCKET, LuaScript::noScriptCount)
          .description("Calls that met NOSCRIPT (a restarted or promoted node) and sent the script's body instead, "
              + "in this process").register(registry);
    }
  }

  Answer run(BucketStep.Op op, double cost, long argMicros, Long booked, String flow)
      throws StoreUnavailableException, InterruptedException {
    channel.subscribe();
    try {
      return observe(SCRIPT.call(target, args(op, cost, argMicros, booked, flow), config.redisTimeout().toNanos(),
          clock));
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e);
    }
  }

  /**
   * One script call, without blocking: completes on Redisson's I/O thread after this process has taken the news of
   * the reply, or exceptionally with a {@link StoreUnavailableException}.
   */
  CompletableFuture<Answer> runAsync(BucketStep.Op op, double cost, long argMicros, Long booked, String flow) {
    channel.subscribe();
    return SCRIPT.callAsync(target, args(op, cost, argMicros, booked, flow), config.redisTimeout().toNanos(), clock)
        .handle(this::answer);
  }

  /**
   * Acquires of {@code costs} (with their max waits and flows), in one pipeline, run by Redis in this order: one
   * future per acquire, each as {@link #runAsync}'s.
   */
  List<CompletableFuture<Answer>> acquireAllAsync(double[] costs, long[] maxWaitMicros, String[] flows) {
    channel.subscribe();
    List<Object[]> calls = new ArrayList<>(costs.length);
    for (int i = 0; i < costs.length; i++) {
      calls.add(args(BucketStep.Op.ACQUIRE, costs[i], maxWaitMicros[i], null, flows[i]));
    }
    List<CompletableFuture<Answer>> answers = new ArrayList<>(costs.length);
    for (CompletableFuture<LuaScript.Reply> reply
        : ScriptBatch.callAll(SCRIPT, target, calls, config.redisTimeout().toNanos(), clock)) {
      answers.add(reply.handle(this::answer));
    }
    return answers;
  }

  private Answer answer(LuaScript.Reply reply, Throwable failure) {
    try {
      if (failure != null) {
        throw unavailable(failure);
      }
      return observe(reply);
    } catch (StoreUnavailableException e) {
      throw new CompletionException(e);
    }
  }

  /**
   * Takes this replica's configuration out of the fleet's (unless another live replica uses it), without waiting
   * for Redis: best effort, one not taken out ends with its lease.
   */
  void close() {
    try {
      SCRIPT.callAsync(target, args(BucketStep.Op.CLOSE, 1, 0, null, null), config.redisTimeout().toNanos(), clock)
          .get(config.redisTimeout().toNanos(), TimeUnit.NANOSECONDS); // before a client that shuts down with it
    } catch (ExecutionException | TimeoutException e) {
      // best effort: the configuration ends with its lease
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The script's arguments; subscribes to the fleet's channel first, as a call does. */
  Object[] arguments(BucketStep.Op op, double cost, long argMicros, Long booked, String flow) {
    channel.subscribe();
    return args(op, cost, argMicros, booked, flow);
  }

  private Object[] args(BucketStep.Op op, double cost, long argMicros, Long booked, String flow) {
    Long client = clientClock == null ? null : ChronoUnit.MICROS.between(Instant.EPOCH, clientClock.instant());
    return ScriptProtocol.arguments(op, cost, argMicros, client, booked, settings, flow);
  }

  /**
   * The provider refused a call {@code booked} admitted: cuts the shared rate if it was booked under the current
   * one, and holds the slots back ({@link RedisTokenBucket#providerRefused}).
   */
  TokenBucket.Refusal providerRefused(Acquisition booked, Duration retryAfter)
      throws StoreUnavailableException, InterruptedException {
    Objects.requireNonNull(booked, "booked cannot be null");
    long holdMicros = Checks.saturatedMicros(Checks.notNegative("retryAfter", retryAfter));
    if (config.rateAdaptation().isEmpty()) {
      return TokenBucket.Refusal.NO_CUT;
    }
    Duration cap = config.rateAdaptation().get().maxProviderHold();
    if (retryAfter.compareTo(cap) > 0) {
      news.holdCapped(retryAfter, cap);
    }
    BucketReply reply = run(BucketStep.Op.CUT, 1, holdMicros, StepStamp.of(booked.stamp()).generation(), null)
        .reply();
    if (reply.notCounted()) {
      news.notCountedRefusal();
      return TokenBucket.Refusal.NOT_COUNTED;
    }
    return reply.done() ? TokenBucket.Refusal.CUT : TokenBucket.Refusal.NO_CUT;
  }

  /**
   * Takes the news of a reply. A reply that is not the script's (a Redis that answers something else, a script of
   * another version) fails the call with a {@link StoreUnavailableException}, never an unchecked exception.
   */
  Answer observe(LuaScript.Reply text) throws StoreUnavailableException {
    BucketReply reply;
    try {
      reply = ScriptProtocol.reply(text.text());
    } catch (IllegalArgumentException e) {
      throw new StoreUnavailableException(config.name(), e.getMessage(), e);
    }
    news.observe(reply, text.receivedAtNanos());
    return new Answer(reply, text.receivedAtNanos());
  }

  /** A failed call as the bucket reports it: what failed, the Redis timeout, and the root cause. */
  StoreUnavailableException unavailable(Throwable failure) {
    Throwable cause = Async.cause(failure);
    if (cause instanceof LuaScript.CallFailedException f) {
      return new StoreUnavailableException(config.name(), f.getMessage() + " (redisTimeout "
          + config.redisTimeout().toMillis() + " ms)", f.getCause(), f.passing());
    }
    if (cause instanceof TimeoutException) {
      return new StoreUnavailableException(config.name(), "Redis did not answer within the timeout (redisTimeout "
          + config.redisTimeout().toMillis() + " ms)", cause, true);
    }
    return new StoreUnavailableException(config.name(), String.valueOf(cause), cause);
  }

  /**
   * Loads the script, asking again while the failure may pass (a failover under way: the node unreachable, a demoted
   * master's READONLY) until {@code deadlineNanos} ({@link System#nanoTime()}).
   */
  void preload(long deadlineNanos) throws StoreUnavailableException, InterruptedException {
    channel.subscribe();
    for (long backOff = 50; ; backOff = Math.min(backOff * 2, 500)) {
      try {
        SCRIPT.load(scripts, key, config.redisTimeout().toNanos());
        return;
      } catch (LuaScript.CallFailedException e) {
        if (!e.passing() || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backOff) - deadlineNanos > 0) {
          throw new StoreUnavailableException(config.name(), e.getMessage(), e.getCause(), e.passing());
        }
        Thread.sleep(backOff);
      }
    }
  }

  /** See {@link RedisTokenBucket#clearConfiguration}. */
  boolean clearConfiguration(String configuration) throws StoreUnavailableException, InterruptedException {
    Checks.notBlank("configuration", configuration);
    CompletableFuture<Long> removed = scripts.guard().send(() -> scripts.hdel(key, "c:" + configuration));
    try {
      return removed.get(config.redisTimeout().toNanos(), TimeUnit.NANOSECONDS) > 0;
    } catch (ExecutionException e) {
      throw unavailable(e.getCause());
    } catch (TimeoutException e) {
      removed.cancel(false);
      throw unavailable(e);
    }
  }

  /** See {@link RedisTokenBucket#state}. */
  BucketState state() throws StoreUnavailableException, InterruptedException {
    String text;
    try {
      text = STATE.call(scripts, key, new Object[0], config.redisTimeout().toNanos(), time::nanoTime).text();
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e);
    }
    try {
      return StateScriptReader.read(config, text);
    } catch (IllegalArgumentException e) {
      throw new StoreUnavailableException(config.name(), e.getMessage(), e);
    }
  }

  /** See {@link RedisTokenBucket#scriptLoaded}. */
  boolean scriptLoaded() throws StoreUnavailableException, InterruptedException {
    try {
      return SCRIPT.loaded(scripts, key, config.redisTimeout().toNanos());
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e);
    }
  }
}
