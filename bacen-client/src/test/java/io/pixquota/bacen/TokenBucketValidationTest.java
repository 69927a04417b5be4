package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.RespConnection;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every invalid input is refused before any Redis call, with a message naming the field and the value. */
@ExtendWith(RedisExtension.class)
class TokenBucketValidationTest {

  @Test
  void builderRejectsZeroCapacity() {
    assertThatThrownBy(() -> TokenBucketConfig.of("pix", 0, 9))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("capacity must be positive and finite, but was 0.0");
  }

  @Test
  void builderRejectsNegativeOrNanOrInfiniteRefill() {
    assertThatThrownBy(() -> TokenBucketConfig.of("pix", 8, -1))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("refillPerSecond must be positive and finite, but was -1.0");
    assertThatThrownBy(() -> Limit.of(8, Double.NaN))
        .hasMessage("refillPerSecond must be positive and finite, but was NaN");
    assertThatThrownBy(() -> Limit.of(Double.POSITIVE_INFINITY, 1))
        .hasMessage("capacity must be positive and finite, but was Infinity");
  }

  @Test
  void builderRejectsBlankOrNullOrBracedName() {
    assertThatThrownBy(() -> TokenBucketConfig.custom("  "))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must not be blank, but was '  '");
    assertThatThrownBy(() -> TokenBucketConfig.custom(null))
        .isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("name cannot be null");
    assertThatThrownBy(() -> TokenBucketConfig.custom("a{b}"))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must not contain '{' or '}', but was 'a{b}'");
  }

  @Test
  void builderRejectsMissingLimitAndBadTimeout() {
    assertThatThrownBy(() -> TokenBucketConfig.custom("pix").build())
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("bucket 'pix' needs at least one limit");
    assertThatThrownBy(() -> TokenBucketConfig.custom("pix").redisTimeout(Duration.ZERO))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("redisTimeout must be > 0, but was PT0S");
  }

  @Test
  void acquireRejectsBadCostAndMaxWaitBeforeTouchingRedis(TestRedis redis) throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom("pix").keyPrefix(redis.keyPrefix())
        .limit(8, 9).limit(20, 1).build();
    RedisTokenBucket bucket = RedisTokenBucket.create(redis.newRedisson(), config);
    assertThatThrownBy(() -> bucket.acquire(0, Duration.ZERO))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost must be > 0 and <= capacity 8.0, but was 0.0");
    assertThatThrownBy(() -> bucket.acquire(8.5, Duration.ZERO))
        .hasMessage("cost must be > 0 and <= capacity 8.0, but was 8.5");
    assertThatThrownBy(() -> bucket.acquire(Double.NaN, Duration.ZERO))
        .hasMessage("cost must be > 0 and <= capacity 8.0, but was NaN");
    assertThatThrownBy(() -> bucket.acquire(1, Duration.ofMillis(-1)))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxWait must be >= 0, but was PT-0.001S");
    assertThatThrownBy(() -> bucket.acquire(1, null))
        .isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("maxWait cannot be null");
    assertThatThrownBy(() -> bucket.charge(-2))
        .hasMessage("cost must be positive and finite, but was -2.0");
    assertThatThrownBy(() -> bucket.refund(0))
        .hasMessage("cost must be positive and finite, but was 0.0");
    try (RespConnection admin = redis.rawConnection()) {
      assertThat(admin.call("EXISTS", config.key())).as("no call reached Redis").isEqualTo(0L);
    }
  }
}
