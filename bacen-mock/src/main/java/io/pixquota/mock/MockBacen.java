package io.pixquota.mock;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running mock BACEN. Embeddable: {@code MockBacen.start(MockConfig.defaults())}, read {@link #url()}, then
 * {@link #close()}. Endpoints:
 * <ul>
 *   <li>{@code POST /oauth/token}: client credentials with HTTP Basic; a bearer token with {@code expires_in};</li>
 *   <li>under the API Pix prefix ({@code /api/v2} by default, {@link #pixUrl()}): {@code GET pix/{e2eid}},
 *       {@code GET cob/{txid}}: deterministic data; ids ending in {@code 404} are unknown; malformed ids get 400;
 *       {@code GET policies/{policy}}: the caller's quota (available tokens, capacity, refill);</li>
 *   <li>DICT under its own prefix ({@code /api/v1} by default, {@link #dictUrl()});</li>
 *   <li>{@code GET /admin/stats}, {@code POST /admin/reset}: loopback callers only, unless configured.</li>
 * </ul>
 * Every API response carries {@code RateLimit-Policy} and {@code RateLimit}; errors are
 * {@code application/problem+json}.
 */
public final class MockBacen implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MockBacen.class);

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
  private final Sessions sessions;
  private final HttpServer server;
  private final ExecutorService executor;
  private final long originNanos = System.nanoTime();
  private final AtomicInteger threadIds = new AtomicInteger();
  private final DictApi dict;
  private final InFlight inFlight;
  private volatile boolean warming;

  private MockBacen(MockConfig config) throws IOException {
    this.config = config;
    this.dict = new DictApi(config.dict(), config.dictPrefix(), this::delay);
    this.inFlight = new InFlight(config.maxInFlight());
    this.sessions = new Sessions(config.integrators(), config.tokenTtlSeconds());
    this.quota = config.redisUrl() == null ? new LocalQuota(config.policy())
        : new RedisSlidingWindowQuota(config.policy(), config.redisUrl(), "bacen-mock:");
    this.executor = Executors.newFixedThreadPool(config.threads(), r -> {
      Thread t = new Thread(r, "bacen-mock-" + threadIds.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    if (config.redisUrl() == null) {
      warmUp(); // in shared mode a reset would clear the other instances' quota too
    }
    // The API's port opens only now: a client that calls as soon as it can connect finds the quota untouched.
    this.server = HttpServer.create(new InetSocketAddress(config.bind(), config.port()), 1024);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /**
   * Serves a few requests to itself, then forgets them: a cold JVM takes hundreds of milliseconds over its first
   * requests (class loading, interpreter), which would delay and bunch the arrivals it records; a provider that
   * measures arrivals late would blame its clients for its own start-up. On a listener of its own (loopback, a free
   * port), closed before the API's port opens, so no client's call meets the warm-up's quota or its reset.
   */
  private void warmUp() {
    HttpServer own = null;
    try {
      own = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
      own.setExecutor(executor);
      own.createContext("/", this::handle);
      own.start();
      URI url = URI.create("http://127.0.0.1:" + own.getAddress().getPort());
      warming = true;
      sessions.forget(SelfWarmUp.run(url, config.pixPrefix(), config.integrators().entrySet().iterator().next()));
    } catch (IOException | RuntimeException e) {
      LOG.debug("warm-up failed; the first requests will be slower: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      warming = false;
      if (own != null) {
        own.stop(0);
      }
      reset();
    }
  }

  /** Starts a mock with these settings; port 0 picks a free port. */
  public static MockBacen start(MockConfig config) throws IOException {
    return new MockBacen(config);
  }

  /** The server's root: {@code /oauth/token} and {@code /admin/...} are below it. */
  public URI url() {
    String host = config.bind().equals("0.0.0.0") ? "127.0.0.1" : config.bind();
    return URI.create("http://" + host + ":" + server.getAddress().getPort());
  }

  /** Where API Pix is served, ending in '/': a {@code PixClient}'s base URL. */
  public URI pixUrl() {
    return url().resolve(config.pixPrefix() + "/");
  }

  /** Where DICT is served, ending in '/': a {@code DictClient}'s base URL. */
  public URI dictUrl() {
    return url().resolve(config.dictPrefix() + "/");
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

  /** One integrator's requests in flight: the cap, the most seen at once, the refused, the number now. */
  public Map<String, Object> inFlightStats(String integrator) {
    return inFlight.stats(integrator);
  }

  /** Clears counters and the audit, and refills every quota, the DICT's buckets included. */
  public void reset() {
    inFlight.reset();
    audit.reset();
    quota.reset();
    dict.state().reset();
  }

  /** The DICT's audit: per participant and policy, and per payer (as {@code GET /admin/stats} serves it). */
  public Map<String, Object> dictStats() {
    return dict.state().stats();
  }

  /** Registers a DICT key (beyond the ones the mock knows from the start). */
  public void registerDictKey(String key) {
    dict.directory().add(key);
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
      if (dict.handles(path)) {
        dict.handle(exchange, method, path);
      } else if (path.startsWith("/admin/")) {
        MockAdmin.handle(this, exchange, method, path);
      } else if (path.equals("/oauth/token") && method.equals("POST")) {
        sessions.token(exchange);
      } else if (path.startsWith(config.pixPrefix() + "/")) {
        api(exchange, method, path);
      } else {
        Answers.sendProblem(exchange, 404, "NaoEncontrado", "Recurso não encontrado", "no such endpoint");
      }
    } catch (RuntimeException e) {
      LOG.warn("request failed: {}", e.toString());
      Answers.sendProblem(exchange, 500, "ErroInternoDoServidor", "Erro interno do servidor", null);
    }
  }

  private void api(HttpExchange exchange, String method, String path) throws IOException {
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    if (authorization == null || !authorization.startsWith("Bearer ")) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      Answers.sendProblem(exchange, 401, "AcessoNegado", "Não autorizado", "a bearer token is required");
      return;
    }
    Sessions.Session session = sessions.valid(authorization.substring("Bearer ".length()).trim());
    if (session == null) {
      Answers.sendProblem(exchange, 403, "AcessoNegado", "Acesso negado", "the bearer token is unknown or expired");
      return;
    }
    if (!method.equals("GET")) {
      Answers.sendProblem(exchange, 405, "RequisicaoInvalida", "Requisição inválida", "only GET is served");
      return;
    }
    String pix = path.substring(config.pixPrefix().length());
    if (pix.startsWith("/policies/")) {
      policies(exchange, session, pix.substring("/policies/".length()));
      return;
    }
    long arrival = System.nanoTime();
    if (!inFlight.enter(session.integrator())) {
      audit.record(session.integrator(), arrival, 429, exchange.getRequestHeaders().getFirst("X-Replica-Id"), false);
      Answers.sendProblem(exchange, 429, "LimiteDeRequisicoesExcedido", "Limite de requisições excedido",
          "more than " + inFlight.cap() + " requests in flight");
      return;
    }
    Runnable answering = inFlight.leaving(session.integrator());
    try {
      admitted(exchange, session, pix, answering);
    } finally {
      answering.run(); // a failure before any answer: out of flight all the same
    }
  }

  /** A request within the cap on calls in flight: the delay (in flight), the quota, the answer. */
  private void admitted(HttpExchange exchange, Sessions.Session session, String path, Runnable answering)
      throws IOException {
    delay();
    long arrival = System.nanoTime();
    Quota.Decision decision;
    try {
      decision = quota.acquire(session.integrator(), arrival);
    } catch (RedisSlidingWindowQuota.QuotaUnavailableException e) {
      answering.run();
      Answers.sendProblem(exchange, 503, "ServicoIndisponivel", "Serviço indisponível", "quota store unavailable");
      return;
    }
    rateLimitHeaders(exchange, decision);
    String replica = exchange.getRequestHeaders().getFirst("X-Replica-Id");
    if (!decision.allowed()) {
      audit.record(session.integrator(), arrival, 429, replica, false);
      if (config.retryAfter()) {
        exchange.getResponseHeaders().set("Retry-After", Long.toString(config.retryAfterSeconds() > 0
            ? config.retryAfterSeconds() : decision.retryAfterSeconds()));
      }
      answering.run();
      Answers.sendProblem(exchange, 429, "LimiteDeRequisicoesExcedido", "Limite de requisições excedido",
          "quota of " + config.policy() + " exceeded");
      return;
    }
    Answers.Answer answer = PixAnswers.serve(path);
    int status = answer.status();
    audit.record(session.integrator(), arrival, status, replica, true);
    Double cost = config.statusCosts().get(status);
    if (cost != null && cost > 1) {
      // charged before the answer leaves: a caller that sends its next request on this answer must find it charged
      try {
        quota.charge(session.integrator(), cost - 1, System.nanoTime());
      } catch (RedisSlidingWindowQuota.QuotaUnavailableException e) {
        LOG.warn("could not charge {} extra tokens for status {}: quota store unavailable", cost - 1, status);
      }
    }
    answering.run(); // its answer leaves: no longer in flight, as the provider counts
    Answers.send(exchange, answer);
  }

  private void policies(HttpExchange exchange, Sessions.Session session, String name) throws IOException {
    if (!name.equals(config.policyName())) {
      Answers.sendProblem(exchange, 404, "NaoEncontrado", "Política não encontrada", "no policy with this name");
      return;
    }
    Map<String, Object> body = policyJson();
    body.put("name", config.policyName());
    try {
      body.put("availableTokens", quota.state(session.integrator(), System.nanoTime()).available());
    } catch (RedisSlidingWindowQuota.QuotaUnavailableException e) {
      Answers.sendProblem(exchange, 503, "ServicoIndisponivel", "Serviço indisponível", "quota store unavailable");
      return;
    }
    Answers.send(exchange, Answers.json(200, body));
  }

  Map<String, Object> policyJson() {
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
    if (warming) {
      return; // its own warm-up: the code paths, not the latency
    }
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

}
