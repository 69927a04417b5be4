package io.pixquota.throttle;

/**
 * A call's priority class on a shared bucket. Every class books on the same bucket, in the same atomic step, so the
 * fleet's total stays within the bucket's {@code B + rT} whatever the mix; a class differs only in how far ahead it
 * may book a slot (its horizon, {@link ThrottleBuilder#horizon}).
 *
 * <ul>
 *   <li>{@link #INTERACTIVE}: a person waits (a checkout asking "was it paid?"). Books as far ahead as its max wait.
 *   <li>{@link #BATCH}: reconciliation, back-office sweeps. Books no further ahead than its horizon (default 0: only
 *       a slot that is free now); a batch call that would have to wait longer is told when to ask again and sleeps
 *       until then without holding a slot, so batch work never stands in the queue in front of an interactive call.
 *       It still takes every slot interactive calls leave idle.
 * </ul>
 *
 * <p>An interactive call therefore waits behind batch bookings for at most the batch horizon plus one slot
 * ({@code cost / r}); batch pays for it in round trips (one per ask, and an ask per slot it did not get), not in
 * throughput. A request carries its class as its transport allows (OkHttp: a tag, {@code new Request.Builder()
 * .tag(Priority.class, Priority.BATCH)}; Spring: a request attribute); a request without one gets the throttle's
 * default ({@link ThrottleBuilder#defaultPriority}, {@link #INTERACTIVE} unless set).
 */
public enum Priority {
  /** A person waits for the answer: books as far ahead as its max wait. */
  INTERACTIVE,
  /** Background work: books no further ahead than its horizon, and asks again when that is not enough. */
  BATCH
}
