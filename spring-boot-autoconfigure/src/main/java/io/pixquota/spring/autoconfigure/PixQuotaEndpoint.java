package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.redis.RedisTokenBucket;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@code /actuator/pixquota}: each bucket's state in Redis now (tokens, calls booked ahead, when the next slot is
 * free, the rate in force and the fleet's live configurations) and what this process saw of it (the provider's hold,
 * repairs of the shared state), each permit pool's cap and permits in use ({@code inFlight}), and which quota takes
 * which requests ({@code routing}: the most specific first, as a request tries them).
 * {@code DELETE /actuator/pixquota/{bucket}/{configuration}} stops a configuration from counting for the whole fleet
 * at once (a stale or wrong setting), as {@link RedisTokenBucket#clearConfiguration} does.
 */
@Endpoint(id = "pixquota")
public class PixQuotaEndpoint {
  private final Throttle throttle;
  private final MeterRegistry registry;

  public PixQuotaEndpoint(Throttle throttle) {
    this(throttle, null);
  }

  /** With {@code registry} (null: none), each flow's calls in this process beside its share ({@code flowCalls}). */
  public PixQuotaEndpoint(Throttle throttle, MeterRegistry registry) {
    this.throttle = throttle;
    this.registry = registry;
  }

  @ReadOperation
  public Map<String, Object> buckets() {
    Map<String, Object> out = new LinkedHashMap<>();
    for (PixQuotaView.Bucket b : PixQuotaView.read(throttle, true)) {
      if (registry != null && b.details().containsKey("shares")) {
        b.details().put("flowCalls", flowCalls(b.name()));
      }
      out.put(b.name(), b.details());
    }
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("buckets", out);
    if (!throttle.pools().isEmpty()) {
      view.put("inFlight", PixQuotaView.pools(throttle));
    }
    view.put("routing", throttle.routing()); // which quota takes which requests, in the order a request tries them
    return view;
  }

  /** This process's calls of each flow of a quota's shares: own, borrowed, refused (bacen.throttle.flow.calls). */
  private Map<String, Map<String, Long>> flowCalls(String quota) {
    Map<String, Map<String, Long>> out = new TreeMap<>();
    for (Counter c : registry.find("bacen.throttle.flow.calls").tag("quota", quota).counters()) {
      out.computeIfAbsent(c.getId().getTag("flow"), f -> new TreeMap<>()).put(c.getId().getTag("outcome"),
          (long) c.count());
    }
    return out;
  }

  /**
   * Clears one live configuration of a bucket (as {@code configurations} lists it, e.g. {@code 1.0:0.01}).
   *
   * @return what was done: {@code cleared} true or false (the bucket had no such configuration), or why not
   */
  @DeleteOperation
  public Map<String, Object> clearConfiguration(@Selector String bucket, @Selector String configuration) {
    for (TokenBucket b : throttle.buckets()) {
      if (b.name().equals(bucket) && b instanceof RedisTokenBucket redis) {
        try {
          return Map.of("bucket", bucket, "configuration", configuration, "cleared",
              redis.clearConfiguration(configuration));
        } catch (StoreUnavailableException e) {
          return Map.of("bucket", bucket, "configuration", configuration, "error", e.getMessage());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Map.of("bucket", bucket, "configuration", configuration, "error", "interrupted");
        }
      }
    }
    return Map.of("bucket", bucket, "configuration", configuration, "error", "no shared bucket of that name");
  }
}
