package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The adversarial test's sixteenth finding, in real time (it is about OkHttp's dispatcher): callbacks of
 * {@code getPixAsync} ran on OkHttp's dispatcher threads, so a slow {@code thenAccept} held dispatcher slots and made 5
 * of 45 calls miss their slot. The futures now complete on the callback executor: the dispatcher stays free.
 */
@ExtendWith(RedisExtension.class)
class SlowCallbacksIT {
  @Test
  void slowCallbacksRunOffTheDispatcherAndEveryCallIsServed(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      PixClientConfig config = PixClientConfig.builder().baseUrl(mock.pixUrl()).credentials("demo", "demo-secret")
          .bucketName("callbacks-" + System.nanoTime()).bucket(5, 9).maxWait(Duration.ofSeconds(20)).build();
      Set<String> callbackThreads = ConcurrentHashMap.newKeySet();
      try (PixClient pix = PixClient.builder(config).redisson(redis.newRedisson()).build()) {
        pix.warmUp();
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < 45; i++) {
          calls.add(pix.getPixAsync(String.format("E12345678202611301200ABCDE%06d", i)).thenAccept(p -> {
            callbackThreads.add(Thread.currentThread().getName());
            try {
              Thread.sleep(200); // an application's slow callback
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        // Where the callbacks ran is the point (before: OkHttp's dispatcher threads); whether a call still misses its
        // slot for other reasons (a starved machine) is the late limit's business, counted in bacen.throttle.rebooked.
        assertThat(callbackThreads).as("where the callbacks ran").isNotEmpty()
            .noneMatch(name -> name.startsWith("OkHttp"));
        assertThat(((Number) mock.stats("demo", false).get("accepted")).longValue()).isEqualTo(45);
      }
    }
  }
}
