package io.pixquota.bacen.dict;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.store.BucketGroup.Credit;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.GroupBucket;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.store.Limit;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the ledger owes: merged per bucket on the safe side, a calibration that leaves later bookings, bounds. */
class DictLedgerTest {
  private static final GroupBucket PSP = new GroupBucket("P", Limit.of(250, 25 / 60.0));

  @Test
  void refundsMergeAndGoFirstTheLowestCalibrationAfterAndBookingsSinceItStayBooked() {
    DictLedger ledger = new DictLedger();
    ledger.owe(List.of(new Give(PSP, Give.Kind.REFUND, 2), new Give(PSP, Give.Kind.LOWER_TO, 100)), null);
    ledger.owe(List.of(new Give(PSP, Give.Kind.LOWER_TO, 120), new Give(PSP, Give.Kind.REFUND, 2)), null);
    ledger.begin(List.of(new Take(PSP, 3, 1, true))); // booked after DICT's reading: not in its 100
    DictLedger.Batch b = ledger.take();
    assertThat(b.gives()).containsExactly(new Give(PSP, Give.Kind.REFUND, 4), new Give(PSP, Give.Kind.LOWER_TO, 97));
    assertThat(ledger.inFlight("P")).isEqualTo(3);
    assertThat(ledger.isEmpty()).isTrue();
    ledger.failed(b);
    assertThat(ledger.take().gives()).as("a failed round trip: only its calibration is owed again (Redis may have "
        + "applied the refund)").containsExactly(new Give(PSP, Give.Kind.LOWER_TO, 97));
    assertThat(ledger.refundsDropped()).isEqualTo(1);
  }

  @Test
  void creditsBeyondTheBoundAreDroppedOldestFirstAndCountedAndOneStillHereIsTakenOnce() {
    DictLedger ledger = new DictLedger();
    for (int i = 0; i <= DictLedger.MAX_CREDITS; i++) {
      ledger.owe(List.of(), new Credit("c" + i, List.of(new Give(PSP, Give.Kind.REFUND, 1)), Duration.ofHours(1)));
    }
    assertThat(ledger.creditsDropped()).isEqualTo(1);
    assertThat(ledger.takeCredit("c0")).as("the oldest was dropped").isNull();
    assertThat(ledger.takeCredit("c7")).isNotNull();
    assertThat(ledger.takeCredit("c7")).as("taken once").isNull();
    assertThat(ledger.take().credits()).hasSize(DictLedger.MAX_BUCKETS_PER_TRIP);
  }
}
