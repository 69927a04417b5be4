package io.pixquota.throttle.redis;

import io.pixquota.throttle.internal.BucketStep;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * This process's async bookings of one bucket, sent in the order they were asked for, without one round trip each.
 * While bookings are at Redis, those asked meanwhile queue; when the answers are in, the queue goes as the next batch:
 * one pipeline on one connection, which Redis runs in order (Redisson alone would spread concurrent calls over its
 * connections, and slots would follow the connections' race). A booking asked alone costs one EVALSHA, as before; a
 * thousand asked at once cost one round trip per {@link #MAX_BATCH}, and a hot bucket's blocking callers, parked on
 * their bookings, are not one round trip apart. A booking whose caller has given up before its batch leaves is not
 * sent. Threadsafe.
 */
final class OrderedBookings {
  /** The most bookings in one batch: Redis runs a batch's scripts back to back, and other clients wait meanwhile. */
  static final int MAX_BATCH = 128;

  private final BucketScript script;
  private final ArrayDeque<Asked> queue = new ArrayDeque<>(); // guarded by this
  private boolean sending; // guarded by this

  private record Asked(double cost, long maxWaitMicros, CompletableFuture<BucketScript.Answer> answer) {}

  OrderedBookings(BucketScript script) {
    this.script = script;
  }

  /** An acquire of {@code cost}, booked after every booking this process asked for before it. */
  CompletableFuture<BucketScript.Answer> book(double cost, long maxWaitMicros) {
    Asked asked = new Asked(cost, maxWaitMicros, new CompletableFuture<>());
    synchronized (this) {
      queue.add(asked);
      if (sending) {
        return asked.answer;
      }
      sending = true;
    }
    sendNext();
    return asked.answer;
  }

  /** Sends what queued, in order; once all of it is answered, the next. */
  private void sendNext() {
    List<Asked> batch = new ArrayList<>();
    synchronized (this) {
      while (batch.size() < MAX_BATCH && !queue.isEmpty()) {
        Asked asked = queue.poll();
        if (!asked.answer.isDone()) {
          batch.add(asked);
        }
      }
      if (batch.isEmpty()) {
        sending = false;
        return;
      }
    }
    List<CompletableFuture<BucketScript.Answer>> answers;
    if (batch.size() == 1) {
      answers = List.of(script.runAsync(BucketStep.Op.ACQUIRE, batch.get(0).cost,
          batch.get(0).maxWaitMicros, null));
    } else {
      double[] costs = new double[batch.size()];
      long[] maxWaits = new long[batch.size()];
      for (int i = 0; i < costs.length; i++) {
        costs[i] = batch.get(i).cost;
        maxWaits[i] = batch.get(i).maxWaitMicros;
      }
      answers = script.acquireAllAsync(costs, maxWaits);
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
}
