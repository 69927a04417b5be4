package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RedisCluster;
import io.pixquota.harness.RespConnection;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Two mock instances behind a balancer enforce one quota through Redis, and fail closed when Redis is down. */
@ExtendWith(RedisExtension.class)
class SharedQuotaTest {
  private static final String E2E = MockApiTest.E2E;

  @Test
  void twoInstancesEnforceOneQuota(TestRedis redis) throws Exception {
    try (RespConnection admin = redis.rawConnection()) {
      admin.call("DEL", "bacen-mock:{demo}:window");
    }
    MockConfig config = MockConfig.builder().policy(QuotaPolicy.sliding(3, 1000)).redisUrl(redis.uri().toString())
        .build();
    try (MockBacen a = MockBacen.start(config); MockBacen b = MockBacen.start(config)) {
      Http[] instances = {new Http(a.url()), new Http(b.url())};
      String[] tokens = {instances[0].bearer("demo", "demo-secret"), instances[1].bearer("demo", "demo-secret")};
      List<Integer> statuses = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < 6; i++) {
        statuses.add(instances[i % 2].get("/api/v2/pix/" + E2E, tokens[i % 2]).statusCode());
      }
      assertThat((System.nanoTime() - start) / 1_000_000).as("the six requests fit in the window").isLessThan(1000);
      assertThat(statuses).containsExactly(200, 200, 200, 429, 429, 429);
      Thread.sleep(1050);
      assertThat(instances[1].get("/api/v2/pix/" + E2E, tokens[1]).statusCode()).isEqualTo(200);
      assertThat(instances[0].get("/api/v2/pix/" + E2E, tokens[0]).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void twoInstancesShareOneQuotaThroughARedisCluster() throws Exception {
    try (RedisCluster cluster = RedisCluster.start(3)) {
      MockConfig config = MockConfig.builder().policy(QuotaPolicy.sliding(3, 60_000)).redisUrl(cluster.url())
          .build();
      try (MockBacen a = MockBacen.start(config); MockBacen b = MockBacen.start(config)) {
        Http[] instances = {new Http(a.url()), new Http(b.url())};
        String[] tokens = {instances[0].bearer("demo", "demo-secret"), instances[1].bearer("demo", "demo-secret")};
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          statuses.add(instances[i % 2].get("/api/v2/pix/" + E2E, tokens[i % 2]).statusCode());
        }
        assertThat(statuses).containsExactly(200, 200, 200, 429, 429, 429);
      }
    }
  }

  @Test
  void aRedisAddressThatCannotWorkIsRefusedWhenTheMockStarts() {
    for (String url : new String[] {"redis://h1,h2", "redis-sentinel://s1:26379", "tcp://:pw@h"}) {
      MockConfig config = MockConfig.builder().policy(QuotaPolicy.sliding(3, 1000)).redisUrl(url).build();
      assertThatThrownBy(() -> MockBacen.start(config).close()).as(url)
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--redis-url")
          .hasMessageNotContaining("pw");
    }
  }

  @Test
  void redisDownMeans503NeverUnlimited() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start()) {
      MockConfig config = MockConfig.builder().policy(QuotaPolicy.sliding(3, 1000))
          .redisUrl(redis.uri().toString()).build();
      try (MockBacen mock = MockBacen.start(config)) {
        Http http = new Http(mock.url());
        String bearer = http.bearer("demo", "demo-secret");
        assertThat(http.get("/api/v2/pix/" + E2E, bearer).statusCode()).isEqualTo(200);
        redis.kill();
        for (int i = 0; i < 5; i++) {
          var r = http.get("/api/v2/pix/" + E2E, bearer);
          assertThat(r.statusCode()).isEqualTo(503);
          assertThat(Http.json(r).get("type").asText())
              .isEqualTo("https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel");
        }
        redis.restart();
        long deadline = System.nanoTime() + 10_000_000_000L;
        int status;
        do {
          status = http.get("/api/v2/pix/" + E2E, bearer).statusCode();
        } while (status == 503 && System.nanoTime() < deadline);
        assertThat(status).as("recovers by itself when Redis is back").isEqualTo(200);
      }
    }
  }
}
