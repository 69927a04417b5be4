package io.pixquota.throttle.redis;

import java.time.Duration;
import java.util.List;

/**
 * A shared bucket's state as Redis holds it at one instant, read without changing it ({@link RedisTokenBucket#state}):
 * what an operator looks at when calls wait longer than expected.
 *
 * @param bucket             the bucket's name
 * @param stored             whether Redis holds a state for it (false: unused for long enough to expire, or never
 *                           used; the bucket is then full)
 * @param tokens             tokens left now, the smallest over the limits in force; negative when calls are booked
 *                           ahead of the refill (they wait for their slots)
 * @param bookedAhead        tokens already promised to calls that wait for their slots ({@code max(0, -tokens)}):
 *                           calls booked ahead, at cost 1 each
 * @param nextSlotIn         how long a call of cost 1 asking now would wait
 * @param rateFactor         the share of the configured rates in force (1 unless the provider's 429s cut it)
 * @param effectiveRate      tokens per second the bucket refills now: the smallest refill in force times the factor
 * @param configurations     the live configurations of the fleet ("capacity:refill per second" per limit, joined by
 *                           ","): more than one while replicas run different settings, and all of them are enforced
 */
public record BucketState(String bucket, boolean stored, double tokens, double bookedAhead, Duration nextSlotIn,
    double rateFactor, double effectiveRate, List<String> configurations) {
  public BucketState {
    configurations = List.copyOf(configurations);
  }
}
