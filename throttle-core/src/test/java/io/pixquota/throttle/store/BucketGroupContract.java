package io.pixquota.throttle.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.store.BucketGroup.Credit;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.GroupBucket;
import io.pixquota.throttle.store.BucketGroup.Standing;
import io.pixquota.throttle.store.BucketGroup.Take;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every {@link BucketGroup} promises, on a clock the test moves: a decision is all or none, an end user's
 * refusal says when, a refusal changes nothing while its gives still apply, a credit is redeemed once, and a reserve
 * is spent only by holders of standing, at its price. Each backend runs it through a subclass (Bucket4j's shared
 * distributed tests are the model); published in pixquota-core's test jar. DICT's shapes: a user bucket of 100 at 2
 * per minute, the participant's of 250 at 25 per minute.
 */
public abstract class BucketGroupContract {
  protected static final GroupBucket USER = new GroupBucket("u:maria", Limit.of(100, 2 / 60.0));
  protected static final GroupBucket SCANNER = new GroupBucket("u:scanner", Limit.of(100, 2 / 60.0));
  protected static final GroupBucket PSP = new GroupBucket("PARTICIPANT", Limit.of(250, 25 / 60.0));
  private static final double RESERVE = 125;

  /** The clock of every group this class makes; tests move it. */
  protected abstract FakeTime time();

  /** A new group of this name with no bucket stored yet, on {@link #time()}. */
  protected abstract BucketGroup group(String name) throws Exception;

  private static Acquired lookup(BucketGroup group, double userCost) throws Exception {
    return group.acquire(List.of(new Take(USER, userCost, Math.min(1, userCost), false), new Take(PSP, 3, 1, true)),
        Duration.ZERO, List.of(), List.of());
  }

  private static Acquired reserved(BucketGroup group, GroupBucket user, double price) throws Exception {
    return group.acquire(List.of(new Take(user, 20, 1, false), new Take(PSP, 3, 1, true, RESERVE)),
        Duration.ofSeconds(10), List.of(), List.of(), new Standing(user, price));
  }

  @Test
  public void aUserInDebtIsRefusedAtOnceWithWhenAndTheParticipantKeepsItsTokens() throws Exception {
    BucketGroup group = group("debt");
    for (int i = 0; i < 5; i++) {
      assertThat(lookup(group, 20).granted()).as("404 number %d", i + 1).isTrue();
    }
    Acquired sixth = lookup(group, 20);
    assertThat(sixth.granted()).isFalse();
    assertThat(sixth.refusedBy()).isEqualTo(USER);
    assertThat(sixth.retryAfter()).as("1 token at 2 per minute").isEqualTo(Duration.ofSeconds(30));
    assertThat(sixth.remaining()).containsExactly(0.0, 235.0);
    time().advance(Duration.ofSeconds(30));
    Acquired seventh = lookup(group, 20);
    assertThat(seventh.granted()).as("DICT's rule: 1 token admits, the 404 leaves a debt").isTrue();
    assertThat(seventh.remaining().get(0)).isEqualTo(-19.0, within(1e-6));
    assertThat(lookup(group, 20).retryAfter()).as("the debt paid back at 2 per minute")
        .isEqualTo(Duration.ofSeconds(600));
  }

  @Test
  public void aRefusalChangesNothingAndGivesStillApply() throws Exception {
    BucketGroup group = group("refusal");
    group.acquire(List.of(new Take(USER, 99.5, false)), Duration.ZERO, List.of(), List.of());
    Acquired a = group.acquire(List.of(new Take(USER, 1, 1, false), new Take(PSP, 1, 1, true)), Duration.ZERO,
        List.of(new Give(PSP, Give.Kind.LOWER_TO, 40)), List.of());
    assertThat(a.granted()).isFalse();
    assertThat(a.remaining()).as("the user's bucket untouched; the participant's lowered, not charged")
        .containsExactly(0.5, 40.0);
    Acquired b = group.acquire(List.of(new Take(PSP, 1, 1, true)), Duration.ZERO,
        List.of(new Give(PSP, Give.Kind.LOWER_TO, 1000)), List.of());
    assertThat(b.remaining()).as("a lowering never raises").containsExactly(39.0);
  }

  @Test
  public void aCreditIsRedeemedOnce() throws Exception {
    BucketGroup group = group("credit");
    lookup(group, 20);
    Credit credit = new Credit("E12345678202612011200abcdefghijk", List.of(new Give(USER, Give.Kind.REFUND, 1),
        new Give(PSP, Give.Kind.REFUND, 1)), Duration.ofHours(1));
    group.give(List.of(), List.of(credit));
    assertThat(group.redeem(credit.id(), 2)).isTrue();
    assertThat(group.redeem(credit.id(), 2)).as("the second redeem gives nothing").isFalse();
    assertThat(group.redeem("never-given", 2)).isFalse();
    assertThat(lookup(group, 0).remaining()).as("the credit given back once: 80 + 1, and 247 + 1 - 3")
        .containsExactly(81.0, 245.0);
  }

  @Test
  public void withoutStandingTheReserveRefusesAtOnceAndSaysWhenWithStandingItServesAtItsPrice() throws Exception {
    BucketGroup group = group("reserve");
    group.give(List.of(new Give(PSP, Give.Kind.LOWER_TO, RESERVE)), List.of());
    Acquired scan = reserved(group, SCANNER, 3);
    assertThat(scan.granted()).isFalse();
    assertThat(scan.refusedBy()).isEqualTo(PSP);
    assertThat(scan.byReserve()).isTrue();
    assertThat(scan.retryAfter()).as("until the bucket holds reserve + need: 1 token at 25/min")
        .isEqualTo(Duration.ofMillis(2400));
    assertThat(scan.standing()).isZero();

    group.give(List.of(new Give(USER, Give.Kind.EARN, 4)), List.of());
    Acquired honest = reserved(group, USER, 3);
    assertThat(honest.granted()).isTrue();
    assertThat(honest.waived()).isTrue();
    assertThat(honest.standing()).as("4 - the price 3").isEqualTo(1);
    assertThat(honest.remaining().get(1)).isCloseTo(RESERVE - 3, within(1e-9));
    assertThat(reserved(group, USER, 3).byReserve()).as("the price is spent: a second lookup is a stranger")
        .isTrue();
    Acquired onlyRead = reserved(group, USER, 0);
    assertThat(onlyRead.granted()).as("price 0 reads the standing and uses no reserve").isFalse();
    assertThat(onlyRead.standing()).isEqualTo(1);
  }

  @Test
  public void aboveTheReserveNoStandingIsNeededNorSpent() throws Exception {
    BucketGroup group = group("above");
    group.give(List.of(new Give(USER, Give.Kind.EARN, 5)), List.of());
    Acquired a = reserved(group, USER, 3);
    assertThat(a.granted()).isTrue();
    assertThat(a.waived()).isFalse();
    assertThat(a.standing()).isEqualTo(5);
    assertThat(reserved(group, SCANNER, 3).granted()).isTrue();
  }
}
