package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.okhttp.AsyncCallDispatcher;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.util.List;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

/**
 * The OkHttp client {@code PixClient} builds when given none runs its async calls where {@link AsyncCallDispatcher}
 * says: each on a virtual thread on Java 24 and later (run again on such a JDK by the "virtual-threads" profile, which
 * CI turns on with its JDK 25), on OkHttp's platform threads before; its dispatcher sized for the bucket's burst and a
 * second of its rate.
 */
class PixOwnClientThreadsTest {
  @Test
  void ownClientRunsItsCallsOnVirtualThreadsWhereTheJdkHasThemUnpinned() throws Exception {
    OkHttpClient client = PixWiring.ownClient(new LocalTokenBucket("pix", List.of(Limit.of(8, 9)), System::nanoTime),
        0);
    try {
      boolean virtual = client.dispatcher().executorService().submit(() -> isVirtual(Thread.currentThread())).get();
      assertThat(virtual).isEqualTo(Runtime.version().feature() >= 24)
          .isEqualTo(AsyncCallDispatcher.onVirtualThreads());
      assertThat(client.dispatcher().getMaxRequestsPerHost()).isEqualTo(17);
    } finally {
      client.dispatcher().executorService().shutdown();
    }
  }

  /** Java 21's {@code Thread.isVirtual()}, found at run time (false before it: no virtual threads). */
  private static boolean isVirtual(Thread t) throws ReflectiveOperationException {
    try {
      return (boolean) Thread.class.getMethod("isVirtual").invoke(t);
    } catch (NoSuchMethodException e) {
      return false;
    }
  }
}
