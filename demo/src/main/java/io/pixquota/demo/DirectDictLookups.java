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
      settle(dict, ispb, e2eid);
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

  /** The SPI settles the payment: DICT credits its lookup (the judge's stand-in endpoint). */
  static void settle(URI dict, String ispb, String e2eid) {
    try {
      HTTP.send(HttpRequest.newBuilder(dict.resolve("settlements/" + e2eid))
          .header("PI-RequestingParticipant", ispb).POST(HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      // a settlement the judge did not hear of earns no credit: the scenario goes on
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void settled(String endToEndId) {
    // no mirror to credit
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
