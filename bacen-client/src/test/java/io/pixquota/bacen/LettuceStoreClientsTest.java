package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.dict.DictEntry;
import io.pixquota.bacen.pix.Pix;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.harness.RespConnection;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.redis.LettuceStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** API Pix's and DICT's clients on a Lettuce store: the mock BACEN over HTTP, their buckets in a real Redis. */
@ExtendWith(RedisExtension.class)
class LettuceStoreClientsTest {
  private MockBacen mock;
  private RedisClient lettuce;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void start(TestRedis redis) throws Exception {
    mock = MockBacen.start(MockConfig.defaults());
    lettuce = RedisClient.create(redis.uri().toString());
  }

  @AfterEach
  void stop() {
    mock.close();
    lettuce.shutdown();
  }

  @Test
  void aPixClientOnLettuceBooksItsCallsInTheSharedBucket(TestRedis redis) throws Exception {
    String bucket = redis.keyPrefix().replace(":", "-") + "pix";
    try (PixClient client = PixClient.builder(PixClientConfig.builder().baseUrl(mock.pixUrl())
        .credentials("demo", "demo-secret").bucketName(bucket).build())
        .store(LettuceStore.of(lettuce)).meterRegistry(registry).build()) {
      Pix pix = client.getPix("E12345678202611301200ABCDEFGHIJK");
      assertThat(pix.endToEndId()).isEqualTo("E12345678202611301200ABCDEFGHIJK");
      assertThat(client.getPix("E12345678202611301200ABCDEFGHIJK")).isEqualTo(pix);
    }
    try (RespConnection admin = redis.rawConnection()) {
      assertThat(admin.call("EXISTS", "pixquota:{" + bucket + "}:tb")).as("the bucket's key, written through Lettuce")
          .isEqualTo(1L);
    }
  }

  @Test
  void aDictClientOnLettuceKeepsItsMirrorInRedis(TestRedis redis) throws Exception {
    try (DictClient dict = DictClient.builder(DictClientConfig.builder().baseUrl(mock.dictUrl())
        .participant("12345678").payerSecret("a-secret-of-the-psp-0001").keyPrefix(redis.keyPrefix()).build())
        .store(LettuceStore.of(lettuce)).meterRegistry(registry).build()) {
      DictEntry e = dict.getEntry("user7@example.com", "12345678909");
      assertThat(e.key()).isEqualTo("user7@example.com");
      assertThat(dict.getEntry("user8@example.com", "12345678909").key()).isEqualTo("user8@example.com");
    }
    try (RespConnection admin = redis.rawConnection()) {
      assertThat((java.util.List<?>) admin.call("KEYS", redis.keyPrefix() + "{dict-12345678}:*"))
          .as("the group's buckets, written through Lettuce").isNotEmpty();
    }
    assertThat(registry.get("bacen.throttle.wait").tag("quota", "dict").timer().count()).isEqualTo(2);
  }
}
