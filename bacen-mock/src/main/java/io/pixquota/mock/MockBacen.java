package io.pixquota.mock;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
  private final PixApi pix;
  private final Incident incident = new Incident();

  private MockBacen(MockConfig config) throws IOException {
    this.config = config;
    idleTimeout(config.idleTimeoutSeconds()); // before the warm-up's server, the JVM's first
    this.inFlight = new InFlight(config.maxInFlight());
    this.sessions = new Sessions(config.integrators(), config.tokenTtlSeconds());
    this.quota = config.redisUrl() == null ? new LocalQuota(config.policy())
        : new RedisSlidingWindowQuota(config.policy(), config.redisUrl(), "bacen-mock:");
    this.pix = new PixApi(config, sessions, quota, inFlight, audit, incident);
    this.dict = new DictApi(config.dict(), config.dictPrefix(), pix::delay);
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
      pix.warming(true);
      sessions.forget(SelfWarmUp.run(url, config.pixPrefix(), config.integrators().entrySet().iterator().next()));
    } catch (IOException | RuntimeException e) {
      LOG.debug("warm-up failed; the first requests will be slower: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      pix.warming(false);
      if (own != null) {
        own.stop(0);
      }
      reset();
    }
  }

  /**
   * A gateway's idle timeout: the JDK server closes a connection idle (kept alive after an answer, or accepted and
   * never sent a request) for {@code seconds}, checked every second. Its settings are read when its first server
   * starts in the JVM, so they are set before it and hold for the JVM.
   */
  private static void idleTimeout(int seconds) {
    if (seconds > 0 && System.getProperty("sun.net.httpserver.idleInterval") == null) {
      System.setProperty("sun.net.httpserver.idleInterval", Integer.toString(seconds));
      System.setProperty("sun.net.httpserver.clockTick", "1000");
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

  /** The API Pix policy's JSON, as {@code GET /policies/{name}} and {@code /admin/stats} serve it. */
  Map<String, Object> policyJson() {
    return pix.policyJson();
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

  /**
   * A provider incident: for {@code millis} from now, every API Pix request is answered {@code status} (503, or a
   * 429 of the provider's own, with {@code Retry-After: retryAfterSeconds} when above 0), outside the quota.
   *
   * @throws IllegalArgumentException for a status other than 429 or 5xx, a length outside 1 ms..1 h, a negative
   *                                  Retry-After
   */
  public void incident(int status, long millis, long retryAfterSeconds) {
    incident.start(status, millis, retryAfterSeconds);
  }

  /** The API Pix requests incidents answered so far (not in the audit, which keeps the quota's 429s only). */
  public long incidentAnswers() {
    return incident.answered();
  }

  /**
   * DICT moves the participants to category {@code category} (A..H) of the later counting: their anti-scan buckets
   * take its size at once (tokens kept up to the new capacity), and {@code GET /policies} answers it.
   *
   * @throws IllegalArgumentException for a category outside A..H, or a DICT that is not the later counting
   */
  public void dictCategory(char category) {
    dict.state().recategorize(category);
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
        pix.handle(exchange, method, path);
      } else {
        Answers.sendProblem(exchange, 404, "NaoEncontrado", "Recurso não encontrado", "no such endpoint");
      }
    } catch (RuntimeException e) {
      LOG.warn("request failed: {}", e.toString());
      Answers.sendProblem(exchange, 500, "ErroInternoDoServidor", "Erro interno do servidor", null);
    }
  }

}
