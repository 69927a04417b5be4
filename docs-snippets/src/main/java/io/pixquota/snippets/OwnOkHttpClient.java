package io.pixquota.snippets;

import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.bacen.pix.Pix;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.okhttp.AsyncCallDispatcher;
import io.pixquota.throttle.okhttp.ThrottledCallFactory;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.io.IOException;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.redisson.api.RedissonClient;

/** An OkHttp client of the application's own: under {@link PixClient}, or throttled for any API. */
final class OwnOkHttpClient {
  private OwnOkHttpClient() {}

  static Pix underPixClient(PixClientConfig config, RedissonClient redisson, String e2eid) {
    // region pix-client
    OkHttpClient client = new OkHttpClient.Builder()
        .dispatcher(AsyncCallDispatcher.create()) // Java 24+: a call in flight runs on a virtual thread
        .build();
    client.dispatcher().setMaxRequestsPerHost(17); // the bucket's burst and a second of its rate (8 + 9), or the cap
    try (PixClient pix = PixClient.builder(config).okHttpClient(client).redisson(redisson).build()) {
      pix.warmUp();
      return pix.getPix(e2eid);
    }
    // endregion
  }

  static String anyApi(OkHttpClient client, RedissonClient redisson, String url) throws IOException {
    // region any-client
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.of("pix", 8, 9));
    Throttle throttle = Throttle.builder(bucket).build();
    OkHttpClient throttled = client.newBuilder().addNetworkInterceptor(ThrottlingInterceptor.of(throttle)).build();
    Call.Factory calls = ThrottledCallFactory.of(throttled); // a call waits for its slot holding no connection
    try (Response response = calls.newCall(new Request.Builder().url(url).build()).execute()) {
      return response.body().string();
    }
    // endregion
  }
}
