package io.pixquota.throttle;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The meters of shares within a quota, by quota and flow: {@code bacen.throttle.flow.calls} (outcome
 * {@code own}: the flow's own share gave the slot; {@code borrowed}: another flow's; {@code refused}) and
 * {@code bacen.throttle.flow.wait} (the wait of the calls granted). A flow is one the shares name, or "*" for the
 * rest: a request's own flow name never becomes a tag. Made when the throttle is built, not on a call's path.
 */
final class FlowMetrics {
  private final MeterRegistry registry;
  private final Map<String, Meters> byQuotaAndFlow = new ConcurrentHashMap<>();

  private record Meters(Counter own, Counter borrowed, Counter refused, Timer waited) {}

  FlowMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Makes the meters of every flow of {@code bucket}'s shares, under {@code quota}; none without shares. */
  void register(TokenBucket bucket, String quota) {
    for (String flow : bucket.shares().keySet()) {
      byQuotaAndFlow.computeIfAbsent(bucket.name() + '\n' + flow, k -> new Meters(
          counter(quota, flow, "own"), counter(quota, flow, "borrowed"), counter(quota, flow, "refused"),
          Timer.builder("bacen.throttle.flow.wait").description("How long a flow's granted calls waited for their "
              + "slots").tags("quota", quota, "flow", flow).register(registry)));
    }
  }

  private Counter counter(String quota, String flow, String outcome) {
    return Counter.builder("bacen.throttle.flow.calls").description("A flow's calls, by whose share gave the slot "
        + "(own, borrowed) or refused").tags("quota", quota, "flow", flow, "outcome", outcome).register(registry);
  }

  /** The answer to a call of {@code flow} (null: the throttle's) on {@code bucket}; nothing without shares. */
  void answered(TokenBucket bucket, String flow, Acquisition a) {
    Map<String, Double> shares = bucket.shares();
    if (shares.isEmpty()) {
      return;
    }
    String asked = flow != null && shares.containsKey(flow) ? flow : "*";
    Meters m = byQuotaAndFlow.get(bucket.name() + '\n' + asked);
    if (m == null) {
      return;
    }
    if (!a.granted()) {
      m.refused.increment();
      return;
    }
    (asked.equals(a.tokensOf()) ? m.own : m.borrowed).increment();
    m.waited.record(a.waitTime().isNegative() ? Duration.ZERO : a.waitTime());
  }
}
