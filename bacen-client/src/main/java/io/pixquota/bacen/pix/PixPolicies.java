package io.pixquota.bacen.pix;

import com.fasterxml.jackson.databind.JsonNode;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.plan.ProviderPolicy;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /policies/{policy}}, unthrottled: not a PIX query; and the connections a warm-up opens with it.
 */
final class PixPolicies {
  private static final Logger LOG = LoggerFactory.getLogger(PixClient.class);

  private PixPolicies() {}

  /** @throws IllegalArgumentException for a policy name that cannot be a path segment */
  static void check(String policy) {
    Checks.notBlank("policy", policy);
    if (!policy.matches("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}")) {
      throw new IllegalArgumentException("policy must be 1 to 64 letters, digits, '_', '.' or '-', not starting "
          + "with '.', but was '" + policy + "'");
    }
  }

  /**
   * Opens up to {@code connections} connections to the provider at once (within the dispatcher's calls per host),
   * each with a {@code GET /policies/pix}, unthrottled: no answer is read to its end before every one has come, so no
   * call finds another's connection free, and each goes back to the pool once read. Waits within the call timeout;
   * what fails is logged at DEBUG: a warm-up that could not open a connection leaves the calls to open theirs.
   *
   * @return how many answered
   */
  static int openConnections(PixWiring.Parts parts, int connections) {
    OkHttpClient http = parts.unthrottledHttp();
    int n = Math.min(connections, Math.min(http.dispatcher().getMaxRequestsPerHost(),
        http.dispatcher().getMaxRequests()));
    if (n <= 0) {
      return 0;
    }
    Request request = new Request.Builder().url(parts.apiBase().resolve("policies/pix"))
        .header("Authorization", "Bearer " + parts.attempts().bearer()).get().build();
    long deadline = System.nanoTime() + parts.config().provider().callTimeout().toNanos();
    CountDownLatch arrived = new CountDownLatch(n);
    CountDownLatch done = new CountDownLatch(n);
    AtomicInteger answered = new AtomicInteger();
    for (int i = 0; i < n; i++) {
      http.newCall(request).enqueue(new Callback() {
        @Override
        public void onResponse(Call call, Response response) {
          try (response) {
            arrived.countDown();
            arrived.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            response.body().bytes();
            answered.incrementAndGet();
          } catch (IOException e) {
            LOG.debug("warm-up: a connection to the provider failed: {}", e.toString());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            done.countDown();
          }
        }

        @Override
        public void onFailure(Call call, IOException e) {
          LOG.debug("warm-up: a connection to the provider failed: {}", e.toString());
          arrived.countDown();
          done.countDown();
        }
      });
    }
    try {
      done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return answered.get();
  }

  static ProviderPolicy get(PixWiring.Parts parts, String policy) {
    Request request = new Request.Builder().url(parts.apiBase().resolve("policies/" + policy))
        .header("Authorization", "Bearer " + parts.attempts().bearer()).get().build();
    try (Response response = parts.unthrottledHttp().newCall(request).execute()) {
      JsonNode body = parts.responses().read(response, node -> node);
      return parts.json().policy(body);
    } catch (IllegalArgumentException e) {
      throw new PixUnexpectedResponseException("unusable policy: " + e.getMessage(), 200, null, null, e);
    } catch (IOException e) {
      throw PixAttempts.transport("policy request failed", e);
    }
  }
}
