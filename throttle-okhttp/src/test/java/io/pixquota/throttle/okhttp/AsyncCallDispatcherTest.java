package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What async calls in flight hold with {@link AsyncCallDispatcher}: run by {@code mvn verify} on the build's JDK 17
 * (a platform thread each, OkHttp's own executor), and again on a JDK 24+ where one is given
 * ({@code PIXQUOTA_VIRTUAL_JAVA}, the "virtual-threads" profile: CI gives its JDK 25), where no call holds a platform
 * thread. The calls are all in flight at once: each waits in an interceptor, on its dispatcher's thread, until every
 * one of them has arrived there.
 */
class AsyncCallDispatcherTest {
  private static final int CALLS = 40;
  private final MockWebServer server = new MockWebServer();

  @BeforeEach
  void setUp() throws IOException {
    for (int i = 0; i < CALLS; i++) {
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    }
    server.start();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  @Test
  void callsInFlightRunOnVirtualThreadsWhereTheJdkHasThemUnpinnedAndOnOkHttpsThreadsBefore() throws Exception {
    CountDownLatch inFlight = new CountDownLatch(CALLS);
    Set<Thread> platform = ConcurrentHashMap.newKeySet();
    Set<Thread> virtual = ConcurrentHashMap.newKeySet();
    OkHttpClient client = new OkHttpClient.Builder().dispatcher(AsyncCallDispatcher.create())
        .addInterceptor(chain -> {
          Thread t = Thread.currentThread();
          (isVirtual(t) ? virtual : platform).add(t);
          inFlight.countDown();
          try {
            inFlight.await(20, TimeUnit.SECONDS); // every call on its own thread at once, or the count stays short
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return chain.proceed(chain.request());
        }).build();
    client.dispatcher().setMaxRequestsPerHost(CALLS);
    List<Integer> answered = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(CALLS);
    try {
      for (int i = 0; i < CALLS; i++) {
        client.newCall(new Request.Builder().url(server.url("/call/" + i)).build()).enqueue(new Callback() {
          @Override
          public void onFailure(Call call, IOException e) {
            done.countDown();
          }

          @Override
          public void onResponse(Call call, Response response) {
            answered.add(response.code());
            response.close();
            done.countDown();
          }
        });
      }
      assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      client.dispatcher().executorService().shutdown();
    }

    assertThat(answered).hasSize(CALLS).containsOnly(200);
    assertThat(inFlight.getCount()).as("all the calls in flight at once").isZero();
    if (Runtime.version().feature() >= AsyncCallDispatcher.FIRST_UNPINNED_JAVA) {
      assertThat(AsyncCallDispatcher.onVirtualThreads()).isTrue();
      assertThat(platform).as("platform threads that ran a call").isEmpty();
      assertThat(virtual).hasSize(CALLS);
    } else {
      assertThat(AsyncCallDispatcher.onVirtualThreads()).isFalse();
      assertThat(virtual).isEmpty();
      assertThat(platform).as("a platform thread for each call in flight").hasSize(CALLS);
    }
  }

  /** Java 21's {@code Thread.isVirtual()}, found at run time (false before it: no virtual threads). */
  static boolean isVirtual(Thread t) {
    try {
      return (boolean) Thread.class.getMethod("isVirtual").invoke(t);
    } catch (NoSuchMethodException e) {
      return false;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
