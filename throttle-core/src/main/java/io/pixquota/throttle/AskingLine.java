package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Per bucket, the line that one interceptor's calls of a class with a horizon ({@link Priority#BATCH}) stand in,
 * blocking and async alike: each asks the bucket once the one before it has booked or given up, so that one waiting
 * call asks at each free slot, not all of them. Threadsafe.
 */
final class AskingLine {
  private static final CompletableFuture<Void> NO_ONE_BEFORE = CompletableFuture.completedFuture(null);
  private final Map<TokenBucket, CompletableFuture<Void>> last = new HashMap<>(); // guarded by this

  /**
   * A call's place: {@code before} completes when the call ahead is done with its turn; complete {@code mine} when
   * this call is (booked, refused, failed), or, if it gives up before its turn, once {@code before} is done.
   */
  record Place(CompletableFuture<Void> before, CompletableFuture<Void> mine) {
    /** Gives up a place before its turn: the call behind takes the turn when it comes. */
    void leave() {
      before.whenComplete((ignored, failure) -> mine.complete(null));
    }
  }

  synchronized Place join(TokenBucket bucket) {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> before = last.getOrDefault(bucket, NO_ONE_BEFORE);
    last.put(bucket, mine);
    mine.whenComplete((ignored, failure) -> done(bucket, mine)); // a bucket made per request leaves no entry behind
    return new Place(before, mine);
  }

  private synchronized void done(TokenBucket bucket, CompletableFuture<Void> mine) {
    last.remove(bucket, mine); // the last in line is done: the next to join finds no one before it
  }
}
