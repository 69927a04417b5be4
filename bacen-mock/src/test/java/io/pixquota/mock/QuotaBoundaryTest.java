package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Each policy at a window boundary, with explicit arrival times: the fixed window admits about twice its limit
 * across a boundary; the sliding window and the token bucket do not.
 */
class QuotaBoundaryTest {
  private static final long MS = 1_000_000L;

  private static int admit(Quota quota, long atNanos, int requests) {
    int accepted = 0;
    for (int i = 0; i < requests; i++) {
      if (quota.acquire("demo", atNanos).allowed()) {
        accepted++;
      }
    }
    return accepted;
  }

  @Test
  void fixedWindowAdmitsTwiceTheLimitAcrossABoundary() {
    Quota fixed = new LocalQuota(QuotaPolicy.fixed(10, 1000));
    long base = 1_000_000 * MS; // a window boundary
    assertThat(admit(fixed, base - 10 * MS, 10)).isEqualTo(10);
    assertThat(admit(fixed, base + 10 * MS, 10)).as("20 ms later, a fresh window").isEqualTo(10);
  }

  @Test
  void slidingWindowHoldsTheLimitAcrossABoundary() {
    Quota sliding = new LocalQuota(QuotaPolicy.sliding(10, 1000));
    long base = 1_000_000 * MS;
    assertThat(admit(sliding, base - 10 * MS, 10)).isEqualTo(10);
    assertThat(admit(sliding, base + 10 * MS, 10)).isZero();
    assertThat(admit(sliding, base + 989 * MS, 10)).as("1 ms before the first ones leave").isZero();
    assertThat(admit(sliding, base + 990 * MS, 10)).isEqualTo(10);
  }

  @Test
  void tokenBucketHoldsBurstPlusRateAcrossABoundary() {
    Quota bucket = new LocalQuota(QuotaPolicy.bucket(10, 10, 1000));
    long base = 1_000_000 * MS;
    assertThat(admit(bucket, base - 10 * MS, 10)).isEqualTo(10);
    assertThat(admit(bucket, base + 10 * MS, 10)).as("0.2 tokens refilled").isZero();
    assertThat(admit(bucket, base + 90 * MS, 10)).as("1.0 token").isEqualTo(1);
  }

  @Test
  void aRefusedRequestConsumesNothingAndRetryAfterIsRoundedUp() {
    Quota bucket = new LocalQuota(QuotaPolicy.bucket(2, 1, 1000));
    long t = 5_000 * MS;
    admit(bucket, t, 2);
    for (int i = 0; i < 50; i++) {
      Quota.Decision refused = bucket.acquire("demo", t + 100 * MS);
      assertThat(refused.allowed()).isFalse();
      assertThat(refused.retryAfterSeconds()).as("0.9 s rounds up to 1").isEqualTo(1);
    }
    assertThat(bucket.acquire("demo", t + 1000 * MS).allowed()).as("50 refusals took nothing").isTrue();
  }

  @Test
  void chargeByStatusTakesTokensBelowZero() {
    Quota bucket = new LocalQuota(QuotaPolicy.bucket(10, 10, 1000));
    long t = 9_000 * MS;
    assertThat(bucket.acquire("demo", t).allowed()).isTrue();
    bucket.charge("demo", 19, t); // a 404 costing 20 in all
    assertThat(bucket.state("demo", t).available()).isZero();
    Quota.Decision d = bucket.acquire("demo", t + 1000 * MS);
    assertThat(d.allowed()).as("-10 + 10 = 0 tokens after 1 s").isFalse();
    assertThat(d.retryAfterSeconds()).isEqualTo(1);
    assertThat(bucket.acquire("demo", t + 1100 * MS).allowed()).isTrue();
  }
}
