package io.pixquota.mock;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A sliding window per integrator in a Redis sorted set, so that several mock instances behind a balancer enforce one
 * quota. One atomic script removes what left the window, counts, and records (refusals are not recorded). When Redis
 * fails, {@link #acquire} throws {@link QuotaUnavailableException}: the mock answers 503, never unlimited.
 */
final class RedisSlidingWindowQuota implements Quota, AutoCloseable {
  /** Redis failed or did not answer: fail closed. */
  static final class QuotaUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    QuotaUnavailableException(Throwable cause) {
      super("quota store unavailable: " + cause.getClass().getSimpleName(), cause);
    }
  }

  private final QuotaPolicy policy;
  private final RedissonClient redisson;
  private final String keyPrefix;
  private final String script;
  private final String instance = UUID.randomUUID().toString();
  private final AtomicLong counter = new AtomicLong();

  RedisSlidingWindowQuota(QuotaPolicy policy, String redisUrl, String keyPrefix) {
    if (policy.kind() != QuotaPolicy.Kind.SLIDING) {
      throw new IllegalArgumentException("a shared quota is a sliding window, but the policy was " + policy);
    }
    this.policy = policy;
    this.keyPrefix = keyPrefix;
    this.redisson = RedisTopology.connect(redisUrl);
    try (InputStream in = RedisSlidingWindowQuota.class.getResourceAsStream("sliding_window.lua")) {
      this.script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<Object> run(String integrator, String op, String extra) {
    String key = keyPrefix + "{" + integrator + "}:window";
    try {
      return redisson.getScript(StringCodec.INSTANCE).<List<Object>>evalAsync(key, RScript.Mode.READ_WRITE, script,
          RScript.ReturnType.MULTI, List.of(key), op, Long.toString(policy.periodMillis() * 1000),
          Long.toString(policy.limit()), instance + ":" + counter.incrementAndGet(), extra)
          .toCompletableFuture().get(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QuotaUnavailableException(e);
    } catch (Exception e) {
      throw new QuotaUnavailableException(e);
    }
  }

  private static long asLong(Object o) {
    return o instanceof Number n ? n.longValue() : Long.parseLong(o.toString());
  }

  @Override
  public Decision acquire(String integrator, long nowNanos) {
    List<Object> r = run(integrator, "acquire", "0");
    long untilMicros = asLong(r.get(2));
    long reset = Quota.ceilSeconds(untilMicros * 1000.0);
    return asLong(r.get(0)) == 1 ? new Decision(true, asLong(r.get(1)), reset, 0)
        : new Decision(false, 0, reset, reset);
  }

  @Override
  public void charge(String integrator, double extra, long nowNanos) {
    if (extra > 0) {
      run(integrator, "charge", Long.toString((long) Math.ceil(extra)));
    }
  }

  @Override
  public State state(String integrator, long nowNanos) {
    return new State(asLong(run(integrator, "state", "0").get(1)));
  }

  @Override
  public QuotaPolicy policy() {
    return policy;
  }

  @Override
  public void reset() {
    redisson.getKeys().deleteByPattern(keyPrefix + "*");
  }

  @Override
  public void close() {
    redisson.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
