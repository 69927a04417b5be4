package io.pixquota.snippets;

// region plain-java
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import java.net.URI;

public final class PlainJava {
  public static void main(String[] args) {
    PixClientConfig config = PixClientConfig.builder()
        .baseUrl(URI.create("http://127.0.0.1:9090/api/v2/")) // where the provider serves API Pix, as given
        .credentials("demo", "demo-secret")                    // OAuth2 client credentials
        .redisUrl("redis://127.0.0.1:6379")                    // the Redis every replica shares
        .bucket(8, 9)                                          // burst 8, 9/s: under the provider's 10 + 10/s
        .build();                                              // a wait over maxWait (10 s): PixThrottledException
    try (PixClient pix = PixClient.builder(config).build()) { // one per process, shared by every thread
      pix.warmUp();                                            // token, connection, script: before the first burst
      System.out.println(pix.getPix("E12345678202611301200ABCDEFGHIJK")); // waits for its slot, then calls
    }                                                          // close(): its connections and its Redis client
  }
}
// endregion
