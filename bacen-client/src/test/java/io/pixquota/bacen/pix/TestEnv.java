package io.pixquota.bacen.pix;

import java.util.HashMap;
import java.util.Map;

/** An environment with the required variables set, plus the given name-value pairs. */
public final class TestEnv {
  private TestEnv() {}

  public static Map<String, String> with(String... pairs) {
    Map<String, String> env = new HashMap<>(Map.of("BACEN_BASE_URL", "https://pix.example.com",
        "BACEN_CLIENT_ID", "bank", "BACEN_CLIENT_SECRET", "s3cr3t"));
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }
}
