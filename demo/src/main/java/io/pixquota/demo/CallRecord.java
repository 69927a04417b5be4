package io.pixquota.demo;

import java.util.List;

/**
 * One PIX query of a replica.
 *
 * @param status   HTTP status, or 0 when no response (refused by our bucket, transport error)
 * @param waitMs   time spent waiting for the slot (0 in direct mode)
 * @param leftAtMs when the request left, ms after the burst's start
 * @param doneAtMs when the answer came back, ms after the burst's start
 * @param outcome  {@link #SERVED}, {@link #TOO_MANY_REQUESTS} or one of the {@link #FAILURES}
 */
record CallRecord(int status, double waitMs, double leftAtMs, double doneAtMs, String outcome) {
  static final String SERVED = "served";
  static final String TOO_MANY_REQUESTS = "too_many_requests";
  /** Our bucket had no slot within the max wait: refused before sending. */
  static final String REFUSED_MAX_WAIT = "refused_max_wait";
  /** Our bucket (Redis) did not answer, and no local fallback took the call. */
  static final String BUCKET_UNAVAILABLE = "bucket_unavailable";
  /** No answer from the provider: connection refused or reset, timeout. */
  static final String TRANSPORT = "transport";
  /** The provider answered 5xx. */
  static final String PROVIDER_5XX = "provider_5xx";
  /** Anything else: an unexpected status or answer. */
  static final String OTHER = "other";
  /** The failure kinds other than 429, in the order they are shown. */
  static final List<String> FAILURES = List.of(REFUSED_MAX_WAIT, BUCKET_UNAVAILABLE, TRANSPORT, PROVIDER_5XX,
      OTHER);

  /** What a call that got {@code status} back counts as (404: the mock's unknown Pix, an answer all the same). */
  static String outcomeOf(int status) {
    if (status == 200 || status == 404) {
      return SERVED;
    }
    return status == 429 ? TOO_MANY_REQUESTS : status >= 500 ? PROVIDER_5XX : OTHER;
  }
}
