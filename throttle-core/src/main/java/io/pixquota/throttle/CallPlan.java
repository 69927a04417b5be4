package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.PermitPool;
import java.util.List;
import java.util.Map;

/**
 * What one call needs before it is sent, as its route decides: the buckets it books and what each costs, up front and
 * once the answer is known. A route books one bucket today; a call that needs several at once (an end user's bucket
 * and the participant's, each with its own cost by answer) is a plan of several charges booked in one decision, and a
 * call that needs a permit for its time in flight adds it here (docs/architecture.md, "Where the next features plug
 * in").
 *
 * @param route   the route as logs name it: its rule, never a request's path (which holds ids)
 * @param charges what the call takes from each bucket; one today
 * @param pool    the permit pool whose permit the call holds while in flight; null: none
 */
record CallPlan(String route, List<Charge> charges, PermitPool pool) {
  /**
   * One bucket's part of a call.
   *
   * @param bucket        the bucket
   * @param cost          what the call takes before it is sent
   * @param totalByStatus what the call costs in all once its answer has this status: the difference is charged or
   *                      refunded after the answer
   */
  record Charge(TokenBucket bucket, double cost, Map<Integer, Double> totalByStatus) {
    Charge {
      totalByStatus = Map.copyOf(totalByStatus);
    }
  }

  CallPlan {
    charges = List.copyOf(charges);
    if (charges.size() != 1) {
      throw new IllegalArgumentException("a route books one bucket, but was given " + charges.size());
    }
  }

  /** The plan's one charge. */
  Charge charge() {
    return charges.get(0);
  }
}
