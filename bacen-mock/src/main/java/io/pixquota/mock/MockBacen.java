package io.pixquota.mock;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running mock BACEN. Embeddable: {@code MockBacen.start(MockConfig.defaults())}, read {@link #url()}, then
 * {@link #close()}. Endpoints:
 * <ul>
 *   <li>{@code POST /oauth/token}: client credentials with HTTP Basic; a bearer token with {@code expires_in};</li>
 *   <li>{@code GET /api/v2/pix/{e2eid}}, {@code GET /api/v2/cob/{txid}}: deterministic data; ids ending in
 *       {@code 404} are unknown; malformed ids get 400;</li>
 *   <li>{@code GET /policies/{policy}}: the caller's quota (available tokens, capacity, refill);</li>
 *   <li>{@code GET /admin/stats}, {@code POST /admin/reset}: loopback callers only, unless configured.</li>
 * </ul>
 * Every API response carries {@code RateLimit-Policy} and {@code RateLimit}; errors are
 * {@code application/problem+json}.
 */
public final class MockBacen implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MockBacen.class);
  static final String ERROR_TYPE = "https://pix.bcb.gov.br/api/v2/error/";

  static {
    // The JDK server writes headers and body separately; with Nagle's algorithm on, each response then waits for the
    // client's delayed ACK (~40 ms), capping a keep-alive connection at ~25 requests/s. Read once, at class load.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final MockConfig config;
  private final Quota quota;
  private final Audit audit = new Audit();
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private final ObjectMapper json = new ObjectMapper();
  private final SecureRandom random = new SecureRandom();
  private final HttpServer server;
  private final ExecutorService executor;
  private final long originNanos = System.nanoTime();
  private final AtomicInteger threadIds = new AtomicInteger();

  private record Session(String integrator, long expiresAtNanos) {}

  private MockBacen(MockConfig config) throws IOException {
    this.config = config;
    this.quota = config.redisUrl() == null ? new LocalQuota(config.policy())
        : new RedisSlidingWindowQuota(config.policy(), config.redisUrl(), "bacen-mock:");
    this.server = HttpServer.create(new InetSocketAddress(config.bind(), config.port()), 1024);
    this.executor = Executors.newFixedThreadPool(config.threads(), r -> {
      Thread t = new Thread(r, "bacen-mock-" + threadIds.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
    if (config.redisUrl() == null) {
      warmUp(); // in shared mode a reset would clear the other instances' quota too
    }
  }

  /**
   * Serves a few requests to itself, then forgets them: a cold JVM takes hundreds of milliseconds over its first
   * requests (class loading, interpreter), which would delay and bunch the arrivals it records; a provider that
   * measures arrivals late would blame its clients for its own start-up.
   */
  private void warmUp() {
    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    try {
      Map.Entry<String, String> integrator = config.integrators().entrySet().iterator().next();
      String basic = Base64.getEncoder().encodeToString((integrator.getKey() + ":" + integrator.getValue())
          .getBytes(StandardCharsets.UTF_8));
      java.net.http.HttpResponse<String> token = client.send(java.net.http.HttpRequest.newBuilder(
          url().resolve("/oauth/token")).header("Authorization", "Basic " + basic)
          .POST(java.net.http.HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      String bearer = json.readTree(token.body()).get("access_token").asText();
      for (int i = 0; i < 30; i++) {
        client.send(java.net.http.HttpRequest.newBuilder(url().resolve(
            "/api/v2/pix/E00000000202601010000WARMUP" + (10_000 + i))).header("Authorization", "Bearer " + bearer)
            .build(), java.net.http.HttpResponse.BodyHandlers.discarding());
      }
      sessions.remove(bearer);
    } catch (IOException | RuntimeException e) {
      LOG.debug("warm-up failed; the first requests will be slower: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      reset();
    }
  }

  /** Starts a mock with these settings; port 0 picks a free port. */
  public static MockBacen start(MockConfig config) throws IOException {
    return new MockBacen(config);
  }

  /** {@code http://host:port} of the API listener. */
  public URI url() {
    String host = config.bind().equals("0.0.0.0") ? "127.0.0.1" : config.bind();
    return URI.create("http://" + host + ":" + server.getAddress().getPort());
  }

  public MockConfig config() {
    return config;
  }

  /** The audit of one integrator, as {@code GET /admin/stats} serves it. */
  public Map<String, Object> stats(String integrator, boolean withEvents) {
    return audit.stats(integrator, config.policy().periodMillis() * 1_000_000L, originNanos, withEvents);
  }

  /** The System.nanoTime() from which events' {@code atMicros} count (as {@code originNanoTime} in /admin/stats). */
  public long originNanoTime() {
    return originNanos;
  }

  /** Clears counters and the audit, and refills every quota. */
  public void reset() {
    audit.reset();
    quota.reset();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    if (quota instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.debug("closing the shared quota failed", e);
      }
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      if (path.startsWith("/admin/")) {
        admin(exchange, method, path);
      } else if (path.equals("/oauth/token") && method.equals("POST")) {
        token(exchange);
      } else if (path.startsWith("/api/v2/") || path.startsWith("/policies/")) {
        api(exchange, method, path);
      } else {
        problem(exchange, 404, "NaoEncontrado", "Recurso não encontrado", "no such endpoint", null);
      }
    } catch (RuntimeException e) {
      LOG.warn("request failed: {}", e.toString());
      problem(exchange, 500, "ErroInternoDoServidor", "Erro interno do servidor", null, null);
    }
  }

  private void admin(HttpExchange exchange, String method, String path) throws IOException {
    if (!adminAllowed(exchange.getRemoteAddress().getAddress(), config.adminFromAnywhere())) {
      problem(exchange, 403, "AcessoNegado", "Acesso negado", "admin endpoints answer loopback callers only", null);
      return;
    }
    if (path.equals("/admin/stats") && method.equals("GET")) {
      boolean events = String.valueOf(exchange.getRequestURI().getQuery()).contains("events=true");
      Map<String, Object> integrators = new LinkedHashMap<>();
      for (String id : config.integrators().keySet()) {
        integrators.put(id, stats(id, events));
      }
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("policy", policyJson());
      body.put("windowMillis", config.policy().periodMillis());
      body.put("originNanoTime", originNanos); // events' atMicros count from this System.nanoTime()
      body.put("integrators", integrators);
      send(exchange, 200, "application/json", json.writeValueAsBytes(body));
    } else if (path.equals("/admin/reset") && method.equals("POST")) {
      reset();
      exchange.sendResponseHeaders(204, -1);
    } else {
      problem(exchange, 404, "NaoEncontrado", "Recurso não encontrado", "no such admin endpoint", null);
    }
  }

  /** Admin endpoints answer loopback callers only, unless configured to answer anyone. */
  static boolean adminAllowed(java.net.InetAddress caller, boolean fromAnywhere) {
    return fromAnywhere || caller.isLoopbackAddress();
  }

  private void token(HttpExchange exchange) throws IOException {
    String form = new String(readBody(exchange.getRequestBody()), StandardCharsets.UTF_8);
    String[] credentials = basicCredentials(exchange.getRequestHeaders().getFirst("Authorization"));
    if (credentials == null || !config.integrators().containsKey(credentials[0])
        || !config.integrators().get(credentials[0]).equals(credentials[1])) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"bacen-mock\"");
      send(exchange, 401, "application/json", json.writeValueAsBytes(Map.of("error", "invalid_client")));
      return;
    }
    if (!form.contains("grant_type=client_credentials")) {
      send(exchange, 400, "application/json", json.writeValueAsBytes(Map.of("error", "unsupported_grant_type")));
      return;
    }
    byte[] raw = new byte[32];
    random.nextBytes(raw);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    sessions.put(token, new Session(credentials[0],
        System.nanoTime() + TimeUnit.SECONDS.toNanos(config.tokenTtlSeconds())));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("access_token", token);
    body.put("token_type", "Bearer");
    body.put("expires_in", config.tokenTtlSeconds());
    body.put("scope", "pix.read cob.read");
    send(exchange, 200, "application/json", json.writeValueAsBytes(body));
  }

  private void api(HttpExchange exchange, String method, String path) throws IOException {
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    if (authorization == null || !authorization.startsWith("Bearer ")) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      problem(exchange, 401, "AcessoNegado", "Não autorizado", "a bearer token is required", null);
      return;
    }
    Session session = sessions.get(authorization.substring("Bearer ".length()).trim());
    if (session == null || session.expiresAtNanos() - System.nanoTime() < 0) {
      problem(exchange, 403, "AcessoNegado", "Acesso negado", "the bearer token is unknown or expired", null);
      return;
    }
    if (!method.equals("GET")) {
      problem(exchange, 405, "RequisicaoInvalida", "Requisição inválida", "only GET is served", null);
      return;
    }
    if (path.startsWith("/policies/")) {
      policies(exchange, session, path.substring("/policies/".length()));
      return;
    }
    delay();
    long arrival = System.nanoTime();
    Quota.Decision decision;
    try {
      decision = quota.acquire(session.integrator(), arrival);
    } catch (RedisSlidingWindowQuota.QuotaUnavailableException e) {
      problem(exchange, 503, "ServicoIndisponivel", "Serviço indisponível", "quota store unavailable", null);
      return;
    }
    rateLimitHeaders(exchange, decision);
    String replica = exchange.getRequestHeaders().getFirst("X-Replica-Id");
    if (!decision.allowed()) {
      audit.record(session.integrator(), arrival, 429, replica, false);
      if (config.retryAfter()) {
        exchange.getResponseHeaders().set("Retry-After", Long.toString(decision.retryAfterSeconds()));
      }
      problem(exchange, 429, "LimiteDeRequisicoesExcedido", "Limite de requisições excedido",
          "quota of " + config.policy() + " exceeded", null);
      return;
    }
    Answer answer = serve(path);
    int status = answer.status();
    audit.record(session.integrator(), arrival, status, replica, true);
    send(exchange, status, answer.contentType(), answer.body());
    Double cost = config.statusCosts().get(status);
    if (cost != null && cost > 1) {
      try {
        quota.charge(session.integrator(), cost - 1, System.nanoTime());
      } catch (RedisSlidingWindowQuota.QuotaUnavailableException e) {
        LOG.warn("could not charge {} extra tokens for status {}: quota store unavailable", cost - 1, status);
      }
    }
  }

  /** A response not yet sent: the audit records it first, so that stats read after a response include it. */
  private record Answer(int status, String contentType, byte[] body) {}

  private Answer serve(String path) throws IOException {
    if (path.startsWith("/api/v2/pix/")) {
      String id = path.substring("/api/v2/pix/".length());
      String invalid = PixData.endToEndIdProblem(id);
      if (invalid != null) {
        return problemAnswer(400, "RequisicaoInvalida", "Requisição inválida", invalid, "e2eid");
      }
      if (PixData.unknown(id)) {
        return problemAnswer(404, "PixNaoEncontrado", "Pix não encontrado", "no Pix with this endToEndId", null);
      }
      return new Answer(200, "application/json", json.writeValueAsBytes(PixData.pix(id)));
    }
    if (path.startsWith("/api/v2/cob/")) {
      String txid = path.substring("/api/v2/cob/".length());
      String invalid = PixData.txidProblem(txid);
      if (invalid != null) {
        return problemAnswer(400, "RequisicaoInvalida", "Requisição inválida", invalid, "txid");
      }
      if (PixData.unknown(txid)) {
        return problemAnswer(404, "CobNaoEncontrado", "Cobrança não encontrada", "no charge with this txid", null);
      }
      return new Answer(200, "application/json", json.writeValueAsBytes(PixData.cob(txid)));
    }
    return problemAnswer(404, "NaoEncontrado", "Recurso não encontrado", "no such endpoint", null);
  }

  private void policies(HttpExchange exchange, Session session, String name) throws IOException {
    if (!name.equals(config.policyName())) {
      problem(exchange, 404, "NaoEncontrado", "Política não encontrada", "no policy with this name", null);
      return;
    }
    Map<String, Object> body = policyJson();
    body.put("name", config.policyName());
    try {
      body.put("availableTokens", quota.state(session.integrator(), System.nanoTime()).available());
    } catch (RedisSlidingWindowQuota.QuotaUnavailableException e) {
      problem(exchange, 503, "ServicoIndisponivel", "Serviço indisponível", "quota store unavailable", null);
      return;
    }
    send(exchange, 200, "application/json", json.writeValueAsBytes(body));
  }

  private Map<String, Object> policyJson() {
    QuotaPolicy p = config.policy();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", p.kind().name());
    body.put("capacity", p.limit());
    body.put("refillTokens", p.refillTokens());
    body.put("refillPeriodMillis", p.periodMillis());
    return body;
  }

  private void rateLimitHeaders(HttpExchange exchange, Quota.Decision d) {
    QuotaPolicy p = config.policy();
    exchange.getResponseHeaders().set("RateLimit-Policy",
        "\"" + config.policyName() + "\";q=" + p.limit() + ";w=" + p.windowSeconds());
    exchange.getResponseHeaders().set("RateLimit",
        "\"" + config.policyName() + "\";r=" + d.remaining() + ";t=" + d.resetSeconds());
  }

  private void delay() {
    long millis = config.latencyMs() + (config.jitterMs() > 0
        ? ThreadLocalRandom.current().nextLong(config.jitterMs() + 1) : 0);
    if (millis > 0) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private int problem(HttpExchange exchange, int status, String name, String title, String detail, String field)
      throws IOException {
    Answer a = problemAnswer(status, name, title, detail, field);
    return send(exchange, a.status(), a.contentType(), a.body());
  }

  private Answer problemAnswer(int status, String name, String title, String detail, String field)
      throws IOException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", ERROR_TYPE + name);
    body.put("title", title);
    body.put("status", status);
    if (detail != null) {
      body.put("detail", detail);
    }
    body.put("correlationId", UUID.randomUUID().toString());
    if (field != null) {
      body.put("violacoes", java.util.List.of(Map.of("razao", detail, "propriedade", field)));
    }
    return new Answer(status, "application/problem+json", json.writeValueAsBytes(body));
  }

  private static int send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType + "; charset=utf-8");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
    return status;
  }

  private static byte[] readBody(InputStream in) throws IOException {
    return in.readNBytes(64 * 1024);
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
