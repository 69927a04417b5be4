package io.pixquota.bacen.pix;

import com.fasterxml.jackson.databind.JsonNode;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.plan.ProviderPolicy;
import java.io.IOException;
import okhttp3.Request;
import okhttp3.Response;

/** {@code GET /policies/{policy}}, unthrottled: not a PIX query. */
final class PixPolicies {
  private PixPolicies() {}

  /** @throws IllegalArgumentException for a policy name that cannot be a path segment */
  static void check(String policy) {
    Checks.notBlank("policy", policy);
    if (!policy.matches("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}")) {
      throw new IllegalArgumentException("policy must be 1 to 64 letters, digits, '_', '.' or '-', not starting "
          + "with '.', but was '" + policy + "'");
    }
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
