package io.pixquota.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A replica that calls DICT itself, as PSPs do without a mirror: the same headers (the user's id hashed for
 * {@code PI-PayerId}), no bucket in front. A 429 is attributed to the policy DICT's headers show empty.
 */
final class DirectDictLookups implements DictRun.Lookups {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final AtomicLong E2E = new AtomicLong();
  private final URI dict;
  private final String ispb;

  DirectDictLookups(URI dict, String ispb) {
    this.dict = dict;
    this.ispb = ispb;
  }

  static String endToEndId(String ispb) {
    return String.format("E%s202612011200%011d", ispb, E2E.incrementAndGet());
  }

  @Override
  public String lookup(String key, String user) throws InterruptedException {
    String e2eid = endToEndId(ispb);
    HttpResponse<String> r;
    try {
      r = HTTP.send(HttpRequest.newBuilder(dict.resolve("entries/" + key)).timeout(Duration.ofSeconds(10))
          .header("PI-RequestingParticipant", ispb).header("PI-PayerId", sha256(user))
          .header("PI-EndToEndId", e2eid).GET().build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return "failed";
    }
    if (r.statusCode() == 200) {
      return "200";
    }
    if (r.statusCode() == 429) {
      for (String scope : new String[] {"Client", "Participant"}) {
        if ("0".equals(r.headers().firstValue("PI-RateLimit-" + scope + "Remaining").orElse(null))) {
          return "429 " + r.headers().firstValue("PI-RateLimit-" + scope + "Policy").orElse("unknown");
        }
      }
      return "429 unknown";
    }
    return Integer.toString(r.statusCode());
  }

  @Override
  public void close() {
    // nothing held
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
