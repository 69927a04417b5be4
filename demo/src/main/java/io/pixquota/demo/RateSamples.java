package io.pixquota.demo;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.harness.Sampler;
import io.pixquota.harness.Sleep;
import java.util.List;

/**
 * The shared bucket's effective rate as this replica's {@code bacen.throttle.rate.effective} gauge shows it, every
 * {@value #EVERY_MS} ms from the burst's start: rows of {@code [ms after the start, tokens per second]}, one per
 * change and one at the end.
 */
final class RateSamples {
  static final long EVERY_MS = 100;
  private final Sampler sampler;
  private final long startNanos;

  private RateSamples(Sampler sampler, long startNanos) {
    this.sampler = sampler;
    this.startNanos = startNanos;
  }

  static RateSamples start(MeterRegistry registry, long startAtEpochMs) {
    long startNanos = Sleep.nanoTimeAt(startAtEpochMs);
    return new RateSamples(Sampler.start(startNanos, EVERY_MS, () -> {
      Gauge gauge = registry.find("bacen.throttle.rate.effective").gauge();
      return gauge == null ? null : new double[] {gauge.value()};
    }), startNanos);
  }

  /** Stops sampling; the rows. */
  List<double[]> stop() throws InterruptedException {
    return sampler.stop().stream()
        .map(row -> new double[] {Math.max(0, Math.round((row[0] - startNanos) / 1e6)), row[1]}).toList();
  }
}
