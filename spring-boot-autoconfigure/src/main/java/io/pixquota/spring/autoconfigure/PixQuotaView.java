package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.store.BucketReadings;
import io.pixquota.throttle.BucketStatus;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.UnlimitedBucket;
import io.pixquota.throttle.redis.BucketState;
import io.pixquota.throttle.redis.RedisTokenBucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Not API: public only for the Spring Boot 4 health indicator's package. What the health indicators and the endpoint
 * show of one throttle's buckets (one per quota with a rate) and permit pools (one per quota with a cap, under
 * {@code inFlight}): read from Redis when the bucket is a
 * {@link RedisTokenBucket} (one round trip for its state, one for SCRIPT EXISTS), and what this process saw.
 */
public final class PixQuotaView {
  /** A margin exceeded this recently makes the health's {@code marginExceededRecently} true. */
  static final Duration RECENT = Duration.ofMinutes(5);

  private PixQuotaView() {}

  /** One bucket's details; {@code reachable} is false when Redis did not answer. */
  record Bucket(String name, boolean reachable, Map<String, Object> details) {}

  /** The health: up unless Redis did not answer for a bucket; the details per bucket name. */
  public record Health(boolean up, Map<String, Object> details) {}

  /** What the health indicators show, whichever Spring Boot's API they implement. */
  public static Health health(Throttle throttle) {
    boolean up = true;
    Map<String, Object> details = new LinkedHashMap<>();
    for (Bucket b : read(throttle, false)) {
      up &= b.reachable();
      details.put(b.name(), b.details());
    }
    if (!throttle.pools().isEmpty()) {
      details.put("inFlight", pools(throttle));
    }
    return new Health(up, details);
  }

  /** Each permit pool's cap and what this process read of it: permits in use, leases reclaimed, the cap in force. */
  static Map<String, Object> pools(Throttle throttle) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (PermitPool pool : throttle.pools()) {
      PermitPool.Readings r = pool.readings();
      out.put(pool.name(), Map.of("maxInFlight", pool.capacity(), "capacityInForce", r.capacityInForce(),
          "inUse", r.inUse(), "expiredLeases", r.expiredLeases(), "leaseMs", pool.lease().toMillis()));
    }
    return out;
  }

  static List<Bucket> read(Throttle throttle, boolean withState) {
    List<Bucket> out = new ArrayList<>();
    List<TokenBucket> buckets = throttle.buckets();
    List<BucketStatus> status = throttle.status();
    for (int i = 0; i < buckets.size(); i++) {
      out.add(read(buckets.get(i), status.get(i), withState));
    }
    return out;
  }

  private static Bucket read(TokenBucket bucket, BucketStatus status, boolean withState) {
    Map<String, Object> d = new LinkedHashMap<>();
    List<String> limits = new ArrayList<>();
    for (Limit l : bucket.limits()) {
      limits.add(l.capacity() + " burst, " + l.refillPerSecond() + "/s");
    }
    // a quota whose requests book on buckets of their own (DICT's): no limit of this one's
    d.put("limits", bucket instanceof UnlimitedBucket ? List.of("each request's own buckets") : limits);
    if (!bucket.shares().isEmpty()) {
      d.put("shares", shares(bucket));
    }
    boolean reachable = true;
    if (bucket instanceof RedisTokenBucket redis) {
      try {
        d.put("scriptLoaded", redis.scriptLoaded());
        if (withState) {
          BucketState s = redis.state();
          d.put("stored", s.stored());
          d.put("tokens", round(s.tokens()));
          d.put("bookedAhead", round(s.bookedAhead()));
          d.put("nextSlotInMs", s.nextSlotIn().toMillis());
          d.put("rateFactor", round(s.rateFactor()));
          d.put("effectiveRatePerSecond", round(s.effectiveRate()));
          d.put("configurations", s.configurations());
        }
      } catch (StoreUnavailableException e) {
        reachable = false;
        d.put("error", e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        reachable = false;
        d.put("error", "interrupted");
      }
    }
    BucketReadings readings = bucket.readings();
    if (!d.containsKey("rateFactor")) {
      d.put("rateFactor", round(readings.rateFactor()));
      d.put("liveConfigurations", readings.configurations());
    }
    d.put("providerHoldMs", readings.providerHoldLeft().toMillis());
    d.put("stateRepairs", readings.stateRepairs());
    d.put("redisReachable", reachable);
    d.put("localFallbackActive", status.localFallbackActive());
    d.put("marginExceeded", status.marginExceeded());
    d.put("marginExceededRecently", status.sinceMarginExceeded().map(ago -> ago.compareTo(RECENT) <= 0)
        .orElse(false));
    return new Bucket(bucket.name(), reachable, d);
  }

  /** Each flow's weight and guaranteed rate (the slowest limit's rate times its weight over the weights' sum). */
  static Map<String, Object> shares(TokenBucket bucket) {
    double total = bucket.shares().values().stream().mapToDouble(Double::doubleValue).sum();
    double rate = bucket.limits().stream().mapToDouble(Limit::refillPerSecond).min().orElse(0);
    Map<String, Object> out = new TreeMap<>();
    bucket.shares().forEach((flow, w) -> {
      Map<String, Object> share = new LinkedHashMap<>();
      share.put("weight", w);
      share.put("guaranteedPerSecond", round(rate * w / total));
      out.put(flow, share);
    });
    return out;
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
