package io.pixquota.harness;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Another system on the same credentials, not throttled: it calls {@code GET /api/v2/pix/{id}} straight, with the
 * JDK's HTTP client, paced (a rate, each call +-20 ms around its time). Its
 * calls carry {@code X-Replica-Id: }{@value #ID}, so the mock's audit tells them apart. Runs on a daemon thread.
 */
public final class ForeignConsumer {
  /** How its calls name themselves to the mock. */
  public static final String ID = "foreign";
  private static final Pattern TOKEN = Pattern.compile("\"access_token\"\\s*:\\s*\"([^\"]+)\"");

  private final Thread thread;
  private final AtomicLong calls = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private volatile Exception failure;
  private volatile boolean stopped;

  private ForeignConsumer(Runnable body) {
    thread = new Thread(body, "foreign-consumer");
    thread.setDaemon(true);
  }

  /**
   * {@code perSecond} calls a second from {@code startAtEpochMs} for {@code seconds}, as integrator {@code demo}.
   *
   * @throws IllegalArgumentException for a rate outside (0, 1000] or a length outside 1..86400 s
   */
  public static ForeignConsumer paced(URI bacen, double perSecond, long startAtEpochMs, int seconds) {
    if (!(perSecond > 0 && perSecond <= 1000)) {
      throw new IllegalArgumentException("foreign rate must be within (0, 1000] per second, but was " + perSecond);
    }
    if (seconds < 1 || seconds > 86_400) {
      throw new IllegalArgumentException("foreign seconds must be within 1..86400, but was " + seconds);
    }
    ForeignConsumer[] self = new ForeignConsumer[1];
    self[0] = new ForeignConsumer(() -> self[0].runPaced(bacen, perSecond, startAtEpochMs, seconds));
    self[0].thread.start();
    return self[0];
  }

  /**
   * {@code count} calls back to back from {@code startAtEpochMs}, as integrator {@code demo}: a blip that empties the
   * provider's bucket once (the next calls of anyone on the credentials meet a 429), then nothing.
   *
   * @throws IllegalArgumentException for a count outside 1..1000
   */
  public static ForeignConsumer burst(URI bacen, int count, long startAtEpochMs) {
    if (count < 1 || count > 1000) {
      throw new IllegalArgumentException("burst count must be within 1..1000, but was " + count);
    }
    ForeignConsumer[] self = new ForeignConsumer[1];
    self[0] = new ForeignConsumer(() -> self[0].runBurst(bacen, count, startAtEpochMs));
    self[0].thread.start();
    return self[0];
  }

  private void runBurst(URI bacen, int count, long startAtEpochMs) {
    try {
      HttpClient http = HttpClient.newHttpClient();
      String token = token(http, bacen);
      Sleep.until(Sleep.nanoTimeAt(startAtEpochMs));
      for (long i = 0; i < count; i++) {
        call(http, bacen, token, i);
      }
    } catch (IOException | RuntimeException e) {
      failure = e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void runPaced(URI bacen, double perSecond, long startAtEpochMs, int seconds) {
    try {
      HttpClient http = HttpClient.newHttpClient();
      String token = token(http, bacen);
      long start = Sleep.nanoTimeAt(startAtEpochMs);
      long period = (long) (1e9 / perSecond);
      Random jitter = new Random(42);
      long n = (long) (seconds * perSecond);
      for (long i = 0; i < n && !stopped; i++) {
        Sleep.until(start + i * period + TimeUnit.MILLISECONDS.toNanos(jitter.nextInt(41) - 20));
        if (!stopped) {
          call(http, bacen, token, i);
        }
      }
    } catch (IOException | RuntimeException e) {
      failure = e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void call(HttpClient http, URI bacen, String token, long i) throws IOException, InterruptedException {
    String id = String.format("E99999999202611300000F%010dZ", i % 10_000_000_000L); // 32 characters
    HttpResponse<Void> r = http.send(HttpRequest.newBuilder(bacen.resolve("/api/v2/pix/" + id))
        .header("Authorization", "Bearer " + token).header("X-Replica-Id", ID).build(),
        HttpResponse.BodyHandlers.discarding());
    calls.incrementAndGet();
    if (r.statusCode() == 429) {
      refused.incrementAndGet();
    }
  }

  private static String token(HttpClient http, URI bacen) throws IOException, InterruptedException {
    String basic = Base64.getEncoder().encodeToString("demo:demo-secret".getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(bacen.resolve("/oauth/token"))
        .header("Authorization", "Basic " + basic).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")).build(),
        HttpResponse.BodyHandlers.ofString());
    Matcher m = TOKEN.matcher(r.body());
    if (r.statusCode() != 200 || !m.find()) {
      throw new IOException("token endpoint answered " + r.statusCode());
    }
    return m.group(1);
  }

  /** Calls made so far. */
  public long calls() {
    return calls.get();
  }

  /** Calls the provider answered 429 so far. */
  public long refused() {
    return refused.get();
  }

  /** Makes no call after this one (a paced consumer that runs alongside something that ended). */
  public void stop() {
    stopped = true;
  }

  /**
   * Waits for the last call.
   *
   * @throws IllegalStateException when a call could not be made
   */
  public void join() throws InterruptedException {
    thread.join();
    if (failure != null) {
      throw new IllegalStateException("the foreign consumer failed: " + failure, failure);
    }
  }
}
