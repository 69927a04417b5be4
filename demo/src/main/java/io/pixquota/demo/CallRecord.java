package io.pixquota.demo;

/**
 * One PIX query of a replica.
 *
 * @param status  HTTP status, or 0 when no response (refused by our bucket, transport error)
 * @param waitMs  time spent waiting for the slot (0 in direct mode)
 * @param leftAtMs when the request left, ms after the burst's start
 * @param doneAtMs when the answer came back, ms after the burst's start
 * @param outcome served, too_many_requests, throttled, error
 */
record CallRecord(int status, double waitMs, double leftAtMs, double doneAtMs, String outcome) {}
