package io.pixquota.bacen.pix;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code bacen.client.answers}: the provider's answers by operation and status, one per attempt, each counter made
 * once and kept (an attempt does not look it up in the registry). A client's, blocking or reactive. Threadsafe.
 */
final class AnswerCounters {
  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>(); // "operation status" -> its counter

  AnswerCounters(MeterRegistry registry) {
    this.registry = registry;
  }

  /** The counter of {@code operation}'s answers with this status. */
  Counter of(String operation, int status) {
    return counters.computeIfAbsent(operation + " " + status, k -> Counter.builder("bacen.client.answers")
        .description("Provider answers by status, one per attempt").tag("operation", operation)
        .tag("status", Integer.toString(status)).register(registry));
  }
}
