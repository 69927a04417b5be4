package io.pixquota.mock;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link MockBacen}: {@link #defaults()}, or {@link #builder()} to change some; every value is
 * validated when built.
 *
 * @param bind              address of the API listener (default 127.0.0.1; 0.0.0.0 in a container)
 * @param port              port of the API listener, 0 for a free one
 * @param policy            the quota per integrator
 * @param policyName        the name under which {@code GET /policies/{policy}} serves it
 * @param integrators       client id to client secret
 * @param tokenTtlSeconds   lifetime of a bearer token
 * @param latencyMs         delay added before the quota decision, as network delay would; the request is in flight
 *                          meanwhile
 * @param jitterMs          extra uniform random delay in [0, jitterMs]
 * @param retryAfter        whether a 429 carries Retry-After (the real DICT sends none)
 * @param retryAfterSeconds the Retry-After of every 429, 1..86400; 0 (default): until the quota has room, rounded up
 * @param statusCosts       tokens a response of that status costs in all (e.g. 404 -> 20); others cost 1
 * @param redisUrl          when set, the quota (a sliding window) lives in Redis, shared by every instance
 * @param adminFromAnywhere whether /admin answers requests from other hosts than loopback
 * @param threads           request threads
 * @param dict              the DICT's rate-limiting policies ({@link DictPolicies#v120()} by default)
 * @param maxInFlight       requests of one integrator in flight at once, from arrival to answer (BACEN's SPI: 6);
 *                          the one over it is refused with 429; 0 (default): no cap
 * @param pixPrefix         the path API Pix is served under (default {@code /api/v2}, BACEN's OpenAPI; PSPs use
 *                          {@code /v2} and others): {@code {pixPrefix}/pix/{e2eid}}, {@code /cob/{txid}},
 *                          {@code /policies/{policy}}
 * @param dictPrefix        the path DICT is served under (default {@code /api/v1}, the published specification
 *                          1.8.0): {@code {dictPrefix}/entries/{Key}}, {@code /policies}, {@code /settlements}
 * @param idleTimeoutSeconds how long a connection may stay open without a request before the mock closes it, as a
 *                          provider's gateway does (1..3600); 0 (default): the JDK server's own 30 s. The JDK server
 *                          reads it once per JVM: the first mock started in a JVM sets it for every later one
 */
public record MockConfig(String bind, int port, QuotaPolicy policy, String policyName,
    Map<String, String> integrators, long tokenTtlSeconds, long latencyMs, long jitterMs, boolean retryAfter,
    long retryAfterSeconds, Map<Integer, Double> statusCosts, String redisUrl, boolean adminFromAnywhere, int threads,
    DictPolicies dict, int maxInFlight, String pixPrefix, String dictPrefix, int idleTimeoutSeconds) {

  public MockConfig {
    Objects.requireNonNull(integrators, "integrators cannot be null");
    Objects.requireNonNull(statusCosts, "statusCosts cannot be null");
    Objects.requireNonNull(bind, "bind cannot be null");
    Objects.requireNonNull(policy, "policy cannot be null");
    Objects.requireNonNull(policyName, "policyName cannot be null");
    Objects.requireNonNull(dict, "dict cannot be null");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be within 0..65535, but was " + port);
    }
    if (integrators.isEmpty()) {
      throw new IllegalArgumentException("integrators must not be empty");
    }
    if (tokenTtlSeconds < 1) {
      throw new IllegalArgumentException("tokenTtlSeconds must be >= 1, but was " + tokenTtlSeconds);
    }
    if (latencyMs < 0) {
      throw new IllegalArgumentException("latencyMs must be >= 0, but was " + latencyMs);
    }
    if (jitterMs < 0) {
      throw new IllegalArgumentException("jitterMs must be >= 0, but was " + jitterMs);
    }
    if (retryAfterSeconds < 0 || retryAfterSeconds > 86_400) {
      throw new IllegalArgumentException("retryAfterSeconds must be within 0..86400, but was " + retryAfterSeconds);
    }
    if (retryAfterSeconds > 0 && !retryAfter) {
      throw new IllegalArgumentException("retryAfterSeconds is " + retryAfterSeconds + ", but 429s carry no "
          + "Retry-After");
    }
    if (maxInFlight < 0 || maxInFlight > 10_000) {
      throw new IllegalArgumentException("maxInFlight must be within 0..10000, but was " + maxInFlight);
    }
    if (idleTimeoutSeconds < 0 || idleTimeoutSeconds > 3600) {
      throw new IllegalArgumentException("idleTimeoutSeconds must be within 0..3600, but was " + idleTimeoutSeconds);
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, but was " + threads);
    }
    pixPrefix = prefix("pixPrefix", pixPrefix);
    dictPrefix = prefix("dictPrefix", dictPrefix);
    if (pixPrefix.equals(dictPrefix)) {
      throw new IllegalArgumentException("pixPrefix and dictPrefix must differ (both serve /policies), but both were '"
          + pixPrefix + "'");
    }
    statusCosts.forEach((status, cost) -> {
      if (status < 100 || status > 599 || !(cost > 0)) {
        throw new IllegalArgumentException("status cost must be <status 100..599>=<cost > 0>, but was "
            + status + "=" + cost);
      }
    });
    integrators = Map.copyOf(integrators);
    statusCosts = Map.copyOf(statusCosts);
  }

  /** A path prefix: '/' and segments of letters, digits, '.', '_' or '-'; a trailing '/' is dropped. */
  private static String prefix(String field, String prefix) {
    Objects.requireNonNull(prefix, field + " cannot be null");
    String p = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    if (!p.matches("(/[A-Za-z0-9._-]+)+") || p.contains("/../") || p.endsWith("/..")) {
      throw new IllegalArgumentException(field + " must be a path such as /api/v2 (segments of letters, digits, "
          + "'.', '_' or '-'), but was '" + prefix + "'");
    }
    return p;
  }

  /** Loopback, a free port, the default token bucket (10, 10/s), integrator {@code demo} / {@code demo-secret}. */
  public static MockConfig defaults() {
    return builder().build();
  }

  /** A builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link MockConfig}; the record's constructor validates every value. */
  public static final class Builder {
    private String bind = "127.0.0.1";
    private int port;
    private QuotaPolicy policy = QuotaPolicy.defaultBucket();
    private String policyName = "pix";
    private final Map<String, String> integrators = new LinkedHashMap<>();
    private long tokenTtlSeconds = 3600;
    private long latencyMs;
    private long jitterMs;
    private boolean retryAfter = true;
    private long retryAfterSeconds;
    private final Map<Integer, Double> statusCosts = new LinkedHashMap<>();
    private String redisUrl;
    private boolean adminFromAnywhere;
    private int threads = 64;
    private DictPolicies dict = DictPolicies.v120();
    private int maxInFlight;
    private String pixPrefix = "/api/v2";
    private String dictPrefix = "/api/v1";
    private int idleTimeoutSeconds;

    private Builder() {}

    public Builder bind(String bind) {
      this.bind = bind;
      return this;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder policy(QuotaPolicy policy) {
      this.policy = policy;
      return this;
    }

    public Builder policyName(String name) {
      this.policyName = name;
      return this;
    }

    /** Adds an integrator; with none, {@code demo} / {@code demo-secret}. */
    public Builder integrator(String clientId, String secret) {
      integrators.put(Objects.requireNonNull(clientId, "clientId cannot be null"),
          Objects.requireNonNull(secret, "secret cannot be null"));
      return this;
    }

    public Builder tokenTtlSeconds(long ttl) {
      this.tokenTtlSeconds = ttl;
      return this;
    }

    public Builder latency(long latencyMs, long jitterMs) {
      this.latencyMs = latencyMs;
      this.jitterMs = jitterMs;
      return this;
    }

    public Builder retryAfter(boolean retryAfter) {
      this.retryAfter = retryAfter;
      return this;
    }

    /** Every 429 asks for this many seconds; 0 (default): until the quota has room, rounded up. */
    public Builder retryAfterSeconds(long seconds) {
      this.retryAfterSeconds = seconds;
      return this;
    }

    public Builder statusCost(int status, double cost) {
      statusCosts.put(status, cost);
      return this;
    }

    public Builder redisUrl(String redisUrl) {
      this.redisUrl = redisUrl;
      return this;
    }

    public Builder adminFromAnywhere(boolean anywhere) {
      this.adminFromAnywhere = anywhere;
      return this;
    }

    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    /** Requests of one integrator in flight at once; the one over it is refused with 429; 0: no cap. */
    public Builder maxInFlight(int max) {
      this.maxInFlight = max;
      return this;
    }

    /** The DICT's policies; default the spec's v1.2.0. */
    public Builder dict(DictPolicies policies) {
      this.dict = policies;
      return this;
    }

    /** The path API Pix is served under; default {@code /api/v2}. */
    public Builder pixPrefix(String prefix) {
      this.pixPrefix = prefix;
      return this;
    }

    /** The path DICT is served under; default {@code /api/v1}. */
    public Builder dictPrefix(String prefix) {
      this.dictPrefix = prefix;
      return this;
    }

    /**
     * Closes a connection that sends no request for this long (a gateway's idle timeout), 1..3600 s; 0: the JDK
     * server's 30 s. One value per JVM (the first mock started sets it).
     */
    public Builder idleTimeoutSeconds(int seconds) {
      this.idleTimeoutSeconds = seconds;
      return this;
    }

    public MockConfig build() {
      Map<String, String> ids = integrators.isEmpty() ? Map.of("demo", "demo-secret") : integrators;
      return new MockConfig(bind, port, policy, policyName, ids, tokenTtlSeconds, latencyMs, jitterMs, retryAfter,
          retryAfterSeconds, statusCosts, redisUrl, adminFromAnywhere, threads, dict, maxInFlight, pixPrefix,
          dictPrefix, idleTimeoutSeconds);
    }
  }

  @Override
  public String toString() {
    return "MockConfig{bind=" + bind + ", port=" + port + ", policy=" + policy + ", integrators="
        + integrators.keySet() + ", latencyMs=" + latencyMs + ", jitterMs=" + jitterMs + ", retryAfter="
        + retryAfter + ", statusCosts=" + statusCosts + ", shared=" + (redisUrl != null) + ", maxInFlight="
        + maxInFlight + ", idleTimeoutSeconds=" + idleTimeoutSeconds
        + ", pix=" + pixPrefix + ", dict=" + dictPrefix + ", " + dict + "}";
  }
}
