package io.pixquota.mock;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** OAuth2 client credentials: {@code POST /oauth/token} with HTTP Basic, and the bearer tokens it has issued. */
final class Sessions {
  /** Whose token it is, and until when it is valid (System.nanoTime). */
  record Session(String integrator, long expiresAtNanos) {}

  private final Map<String, String> integrators;
  private final long ttlSeconds;
  private final Map<String, Session> byToken = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();

  Sessions(Map<String, String> integrators, long ttlSeconds) {
    this.integrators = integrators;
    this.ttlSeconds = ttlSeconds;
  }

  /** Serves {@code POST /oauth/token}. */
  void token(HttpExchange exchange) throws IOException {
    String form = new String(exchange.getRequestBody().readNBytes(64 * 1024), StandardCharsets.UTF_8);
    String[] credentials = basicCredentials(exchange.getRequestHeaders().getFirst("Authorization"));
    if (credentials == null || !integrators.containsKey(credentials[0])
        || !integrators.get(credentials[0]).equals(credentials[1])) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"bacen-mock\"");
      Answers.send(exchange, Answers.json(401, Map.of("error", "invalid_client")));
      return;
    }
    if (!form.contains("grant_type=client_credentials")) {
      Answers.send(exchange, Answers.json(400, Map.of("error", "unsupported_grant_type")));
      return;
    }
    byte[] raw = new byte[32];
    random.nextBytes(raw);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    byToken.put(token, new Session(credentials[0], System.nanoTime() + TimeUnit.SECONDS.toNanos(ttlSeconds)));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("access_token", token);
    body.put("token_type", "Bearer");
    body.put("expires_in", ttlSeconds);
    body.put("scope", "pix.read cob.read");
    Answers.send(exchange, Answers.json(200, body));
  }

  /** The session of a bearer token, or null when it is unknown or expired. */
  Session valid(String token) {
    Session s = byToken.get(token);
    return s == null || s.expiresAtNanos() - System.nanoTime() < 0 ? null : s;
  }

  void forget(String token) {
    byToken.remove(token);
  }

  private static String[] basicCredentials(String header) {
    if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
      return null;
    }
    try {
      String decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
      int colon = decoded.indexOf(':');
      return colon < 0 ? null : new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
