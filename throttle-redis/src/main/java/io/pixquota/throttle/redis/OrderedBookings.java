package io.pixquota.throttle.redis;

import io.pixquota.throttle.internal.BucketStep;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * This process's async bookings of one bucket, sent in the order they were asked for, without one round trip each.
 * While bookings are at Redis, those asked meanwhile queue; when the answers are in, the queue goes as the next batch:
 * one pipeline on one connection, which Redis runs in order (Redisson alone would spread concurrent calls over its
 * connections, and slots would follow the connections' race). A batch is sorted by when its calls were asked for
 * (their callers' {@code AskOrder}): threads that ask at nearly the same time reach this in no particular order, a
 * platform thread preempted or a virtual thread waiting for a carrier on the way. A booking asked alone costs one
 * EVALSHA, as before; a thousand asked at once cost one round trip per {@link #MAX_BATCH}, and a hot bucket's
 * blocking callers, parked on their bookings, are not one round trip apart. A booking whose caller has given up
 * before its batch leaves is not sent. Lock-free: a caller that asks never blocks on a monitor (thousands of threads
 * contending for one are let in in no particular order, and a virtual thread unmounts there). Threadsafe.
 */
final class OrderedBookings {
  /** The most bookings in one batch: Redis runs a batch's scripts back to back, and other clients wait meanwhile. */
  static final int MAX_BATCH = 128;

  private static final Comparator<Asked> BY_ASKED = (a, b) -> Long.compare(a.askedAt - b.askedAt, 0);

  private final BucketScript script;
  private final ConcurrentLinkedQueue<Asked> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean sending = new AtomicBoolean(); // one sender at a time: a batch at Redis, or being made

  private record Asked(double cost, long maxWaitMicros, long askedAt, String flow,
      CompletableFuture<BucketScript.Answer> answer) {}

  OrderedBookings(BucketScript script) {
    this.script = script;
  }

  /**
   * An acquire of {@code cost} (for {@code flow}, with shares; else null), booked after every booking that reached
   * this before it, and after those that reach it while it waits for its batch but were asked for before
   * {@code askedAt} ({@link System#nanoTime()}).
   */
  CompletableFuture<BucketScript.Answer> book(double cost, long maxWaitMicros, long askedAt, String flow) {
    Asked asked = new Asked(cost, maxWaitMicros, askedAt, flow, new CompletableFuture<>());
    queue.add(asked);
    if (sending.compareAndSet(false, true)) {
      sendNext();
    }
    return asked.answer;
  }

  /** Sends what queued, in order; once all of it is answered, the next. Called by the one sender only. */
  private void sendNext() {
    List<Asked> batch = new ArrayList<>();
    while (true) {
      for (Asked asked; batch.size() < MAX_BATCH && (asked = queue.poll()) != null; ) {
        if (!asked.answer.isDone()) {
          batch.add(asked);
        }
      }
      if (!batch.isEmpty()) {
        break;
      }
      sending.set(false);
      // one asked between the poll and the set saw a sender and left its booking to it: take the sender's part back
      if (queue.isEmpty() || !sending.compareAndSet(false, true)) {
        return;
      }
    }
    batch.sort(BY_ASKED); // stable: bookings asked at one instant keep the order they arrived in
    List<CompletableFuture<BucketScript.Answer>> answers;
    try {
      answers = send(batch);
    } catch (RuntimeException e) { // the batch fails, not the line: the next one is sent all the same
      answers = List.of(CompletableFuture.failedFuture(e));
      batch.forEach(asked -> asked.answer.completeExceptionally(e));
    }
    for (int i = 0; i < answers.size(); i++) {
      CompletableFuture<BucketScript.Answer> into = batch.get(i).answer;
      answers.get(i).whenComplete((answer, failure) -> {
        if (failure == null) {
          into.complete(answer);
        } else {
          into.completeExceptionally(failure);
        }
      });
    }
    CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).whenComplete((done, failure) -> sendNext());
  }

  private List<CompletableFuture<BucketScript.Answer>> send(List<Asked> batch) {
    if (batch.size() == 1) {
      Asked one = batch.get(0);
      return List.of(script.runAsync(BucketStep.Op.ACQUIRE, one.cost, one.maxWaitMicros, null, one.flow));
    }
    double[] costs = new double[batch.size()];
    long[] maxWaits = new long[batch.size()];
    String[] flows = new String[batch.size()];
    for (int i = 0; i < costs.length; i++) {
      costs[i] = batch.get(i).cost;
      maxWaits[i] = batch.get(i).maxWaitMicros;
      flows[i] = batch.get(i).flow;
    }
    return script.acquireAllAsync(costs, maxWaits, flows);
  }
}
