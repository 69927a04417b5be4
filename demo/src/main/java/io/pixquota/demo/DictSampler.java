package io.pixquota.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** DICT's participant anti-scan bucket, read from {@code GET /policies/{policy}} four times a second. */
final class DictSampler {
  private static final Pattern AVAILABLE = Pattern.compile("<AvailableTokens>(-?[0-9]+)</AvailableTokens>");
  private final HttpClient http = HttpClient.newHttpClient();
  private final URI url;
  private final String ispb;
  private final long start;
  private final List<double[]> samples = new ArrayList<>();

  DictSampler(URI dict, String ispb, long startNanos) {
    this.url = dict.resolve("policies/ENTRIES_READ_PARTICIPANT_ANTISCAN");
    this.ispb = ispb;
    this.start = startNanos;
  }

  void run(AtomicBoolean running) {
    while (running.get()) {
      try {
        String body = http.send(HttpRequest.newBuilder(url).header("PI-RequestingParticipant", ispb).GET().build(),
            HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = AVAILABLE.matcher(body);
        if (m.find()) {
          synchronized (samples) {
            samples.add(new double[] {(System.nanoTime() - start) / 1e9, Double.parseDouble(m.group(1))});
          }
        }
        Thread.sleep(250);
      } catch (IOException e) {
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** {seconds since the start, tokens DICT said were available}. */
  List<double[]> samples() {
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }
}
