package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.Match;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.Unthrottled;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * OkHttp's calls, blocking and async, go to the quota their host and path match; a call no quota matches, or tagged
 * {@link Unthrottled}, is sent untouched while the quota's bucket is empty, counted at the server.
 */
class QuotasByRequestTest {
  private final FakeTime time = FakeTime.manual(1_000);
  private final MockWebServer server = new MockWebServer();
  private OkHttpClient client;

  @BeforeEach
  void start() throws IOException {
    server.start();
    Throttle throttle = ThrottleTesting.onTime(Throttle.builder(), time).maxWait(Duration.ZERO)
        .quota("pix", Match.host(server.getHostName()).path("/api/v2/.*"), new LocalTokenBucket("pix",
            List.of(Limit.of(1, 0.001)), time::nanoTime), 1).build();
    client = new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.of(throttle)).build();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private Request get(String path) {
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    return new Request.Builder().url(server.url(path)).build();
  }

  @Test
  void onlyTheQuotasRequestsWaitAndTheRestAreSentUntouched() throws Exception {
    try (Response first = client.newCall(get("/api/v2/pix/E1")).execute()) {
      assertThat(first.code()).isEqualTo(200);
    }
    assertThatThrownBy(() -> client.newCall(get("/api/v2/pix/E2")).execute())
        .as("the quota's one token is spent").isInstanceOf(ThrottleRefusedException.class);
    for (int i = 0; i < 5; i++) {
      try (Response other = client.newCall(get("/oauth/token")).execute()) {
        assertThat(other.code()).as("no quota matches: untouched").isEqualTo(200);
      }
      Request optedOut = get("/api/v2/pix/E3").newBuilder().tag(Unthrottled.class, Unthrottled.TAG).build();
      try (Response out = client.newCall(optedOut).execute()) {
        assertThat(out.code()).as("the quota's path, opted out").isEqualTo(200);
      }
    }
    CompletableFuture<Integer> async = new CompletableFuture<>();
    ThrottledCallFactory.of(client).newCall(get("/health")).enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        async.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call call, Response response) {
        response.close();
        async.complete(response.code());
      }
    });
    assertThat(async.get(10, TimeUnit.SECONDS)).as("async, no quota matches: untouched").isEqualTo(200);
    assertThat(server.getRequestCount()).as("1 of the quota's, 5 unmatched, 5 opted out, 1 async").isEqualTo(12);
  }

  /**
   * A request's {@link io.pixquota.throttle.Flow} tag counts against that flow's share of its quota (issue 46), through
   * the interceptor and through {@link ThrottledCallFactory}: checkout keeps its call while the others' are refused.
   */
  @Test
  void aRequestsFlowTagCountsAgainstThatFlowsShare() throws Exception {
    Throttle throttle = ThrottleTesting.builder(new LocalTokenBucket("pix", List.of(Limit.of(3, 0.001)),
        time::nanoTime, new io.pixquota.throttle.internal.StepHash(), LocalTokenBucket.DEFAULT_CONFIGURATION_LEASE,
        io.pixquota.throttle.store.RateAdaptation.defaults(), java.util.Map.of("checkout", 1.0, "*", 0.0)), time)
        .maxWait(Duration.ZERO).build();
    OkHttpClient shared = new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.of(throttle)).build();
    io.pixquota.throttle.Flow checkout = new io.pixquota.throttle.Flow("checkout");
    try (Response r = shared.newCall(get("/api/v2/pix/C1").newBuilder().tag(io.pixquota.throttle.Flow.class, checkout)
        .build()).execute()) {
      assertThat(r.code()).isEqualTo(200);
    }
    try (Response r = shared.newCall(get("/api/v2/pix/E1")).execute()) {
      assertThat(r.code()).as("the flows not named: their own").isEqualTo(200);
    }
    assertThatThrownBy(() -> shared.newCall(get("/api/v2/pix/E2")).execute())
        .as("checkout, asking, keeps its call").isInstanceOf(ThrottleRefusedException.class);
    try (Response r = ThrottledCallFactory.of(shared).newCall(get("/api/v2/pix/C2").newBuilder()
        .tag(io.pixquota.throttle.Flow.class, checkout).build()).execute()) {
      assertThat(r.code()).as("checkout's kept call").isEqualTo(200);
    }
    assertThatThrownBy(() -> new io.pixquota.throttle.Flow(" ")).isInstanceOf(IllegalArgumentException.class);
  }
}
