package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pixquota.bacen.pix.Pix;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import org.junit.jupiter.api.Test;

/** The SDK as a user gets it: PixClient from its config, its own Redisson from a URL, a real call to the mock. */
class PixClientFromPublishedJarTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";

  @Test
  void getPixThroughTheSharedBucket() throws Exception {
    String redisUrl = System.getProperty("redis.url", "");
    PrivateRedisServer own = redisUrl.isBlank() || redisUrl.startsWith("$") ? PrivateRedisServer.start() : null;
    try (MockBacen mock = MockBacen.start(MockConfig.defaults());
        PixClient pix = PixClient.builder(PixClientConfig.builder().baseUrl(mock.pixUrl())
            .credentials("demo", "demo-secret").redisUrl(own != null ? own.uri().toString() : redisUrl)
            .bucketName("consumer-" + System.nanoTime()).build()).build()) {
      pix.warmUp();
      Pix p = pix.getPix(E2E);
      assertEquals(E2E, p.endToEndId());
      assertEquals(2, p.valor().scale());
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }
}
