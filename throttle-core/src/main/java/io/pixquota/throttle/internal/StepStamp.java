package io.pixquota.throttle.internal;

/**
 * What a bucket that runs {@link BucketStep} (in memory, or as the Redis script) stamps on its answers: which state
 * booked the slot (its epoch: when the state was created, in the store's microseconds) and under which rate
 * generation. 0 when unknown.
 */
public record StepStamp(long epoch, long generation) {
  private static final StepStamp NONE = new StepStamp(0, 0);

  /** The stamp of an answer: a StepStamp, or none (0, 0) for an answer of another kind. */
  public static StepStamp of(Object stamp) {
    return stamp instanceof StepStamp s ? s : NONE;
  }
}
