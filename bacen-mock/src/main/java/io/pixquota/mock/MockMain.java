package io.pixquota.mock;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar bacen-mock/target/bacen-mock.jar --port 8080}: runs a mock BACEN until stopped. */
@Command(name = "bacen-mock", mixinStandardHelpOptions = true, version = "bacen-mock 0.1.0-SNAPSHOT",
    description = "A mock BACEN (API Pix) that enforces its own quota per integrator and audits its callers.")
public final class MockMain implements Callable<Integer> {
  @Option(names = "--port", defaultValue = "8080",
      description = "API port; 0 for a free one (default ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--bind", defaultValue = "127.0.0.1",
      description = "Address to listen on; 0.0.0.0 for every interface (default ${DEFAULT-VALUE}).")
  String bind;

  @Option(names = "--policy", defaultValue = "BUCKET",
      description = "Quota kind: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
  QuotaPolicy.Kind policy;

  @Option(names = "--capacity", defaultValue = "10",
      description = "Bucket capacity, or requests per window (default ${DEFAULT-VALUE}).")
  long capacity;

  @Option(names = "--refill-tokens", defaultValue = "10",
      description = "Bucket: tokens added per period (default ${DEFAULT-VALUE}).")
  double refillTokens;

  @Option(names = "--period-ms", defaultValue = "1000",
      description = "Bucket refill period, or window length, in ms (default ${DEFAULT-VALUE}).")
  long periodMs;

  @Option(names = "--policy-name", defaultValue = "pix",
      description = "Name served at GET /policies/{name} (default ${DEFAULT-VALUE}).")
  String policyName;

  @Option(names = "--integrator", paramLabel = "ID=SECRET",
      description = "An accepted integrator (repeatable). None: demo=demo-secret.")
  Map<String, String> integrators = new LinkedHashMap<>();

  @Option(names = "--token-ttl-seconds", defaultValue = "3600",
      description = "Bearer token lifetime (default ${DEFAULT-VALUE}).")
  long tokenTtl;

  @Option(names = "--latency-ms", defaultValue = "0",
      description = "Delay before each quota decision, the request in flight meanwhile (default ${DEFAULT-VALUE}).")
  long latencyMs;

  @Option(names = "--jitter-ms", defaultValue = "0",
      description = "Extra random delay in [0, N] ms (default ${DEFAULT-VALUE}).")
  long jitterMs;

  @Option(names = "--no-retry-after", description = "Leave Retry-After out of 429s, as the real DICT does.")
  boolean noRetryAfter;

  @Option(names = "--retry-after-seconds", defaultValue = "0",
      description = "Every 429 asks for N s (default 0: until the quota has room, rounded up).")
  long retryAfterSeconds;

  @Option(names = "--status-cost", paramLabel = "STATUS=COST",
      description = "Tokens a response of that status costs in all, e.g. 404=20 (repeatable).")
  Map<Integer, Double> statusCosts = new LinkedHashMap<>();

  @Option(names = "--redis-url",
      description = "Share the quota through Redis (a sliding window; requires --policy SLIDING): redis://host:port, "
          + "redis-sentinel://host:port,.../MASTER or redis-cluster://host:port,... Redis down: 503.")
  String redisUrl;

  @Option(names = "--admin-from-anywhere", description = "Serve /admin to any caller, not only loopback.")
  boolean adminFromAnywhere;

  @Option(names = "--threads", defaultValue = "64", description = "Request threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--max-in-flight", defaultValue = "0", description = "Requests of one integrator in flight at "
      + "once (BACEN's SPI: 6); the one over it gets 429; 0: no cap (default ${DEFAULT-VALUE}).")
  int maxInFlight;

  @Option(names = "--idle-timeout-seconds", defaultValue = "0", description = "Close a connection that sends no "
      + "request for this long, as a gateway does; 0: the JDK server's 30 s (default ${DEFAULT-VALUE}).")
  int idleTimeoutSeconds;

  @Option(names = "--dict-counting", defaultValue = "v1.2.0",
      description = "The DICT's policies: v1.2.0 (the spec's) or later:<category A..H> (every key type, a person-type "
          + "split, a 404 costing 20 at the user scope and 3 at the participant's, the participant's anti-scan "
          + "bucket by its category) (default ${DEFAULT-VALUE}).")
  String dictCounting;

  @Option(names = "--pix-prefix", defaultValue = "/api/v2",
      description = "The path API Pix is served under, as BACEN's OpenAPI (/api/v2) or a PSP's (/v2, ...) "
          + "(default ${DEFAULT-VALUE}).")
  String pixPrefix;

  @Option(names = "--dict-prefix", defaultValue = "/api/v1",
      description = "The path DICT is served under, as its published specification 1.8.0 (default ${DEFAULT-VALUE}).")
  String dictPrefix;

  /** The configuration these options describe (after parsing); validated. */
  public MockConfig config() {
    QuotaPolicy quota = switch (policy) {
      case BUCKET -> QuotaPolicy.bucket(capacity, refillTokens, periodMs);
      case SLIDING -> QuotaPolicy.sliding(capacity, periodMs);
      case FIXED -> QuotaPolicy.fixed(capacity, periodMs);
    };
    MockConfig.Builder b = MockConfig.builder().bind(bind).port(port).policy(quota).policyName(policyName)
        .tokenTtlSeconds(tokenTtl).latency(latencyMs, jitterMs).retryAfter(!noRetryAfter)
        .retryAfterSeconds(retryAfterSeconds).redisUrl(redisUrl).adminFromAnywhere(adminFromAnywhere).threads(threads)
        .dict(DictPolicies.parse(dictCounting)).maxInFlight(maxInFlight).pixPrefix(pixPrefix).dictPrefix(dictPrefix)
        .idleTimeoutSeconds(idleTimeoutSeconds);
    integrators.forEach(b::integrator);
    statusCosts.forEach(b::statusCost);
    return b.build();
  }

  @Override
  public Integer call() throws Exception {
    MockConfig config = config();
    MockBacen mock = MockBacen.start(config);
    System.out.println("bacen-mock listening on " + mock.url() + " (bind " + config.bind() + ")");
    System.out.println("quota per integrator: " + config.policy()
        + (config.redisUrl() != null ? ", shared through Redis" : ""));
    System.out.println("integrators: " + String.join(", ", List.copyOf(config.integrators().keySet())));
    System.out.println("API Pix at " + mock.pixUrl() + " (its clients' base URL): pix/{e2eid}, cob/{txid}");
    System.out.println("DICT at " + mock.dictUrl() + " (its clients' base URL): entries/{key}; policies: "
        + config.dict());
    System.out.println("admin endpoints: " + (config.adminFromAnywhere() ? "any caller" : "loopback callers only"));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      mock.close();
      stopped.countDown();
    }, "bacen-mock-stop"));
    stopped.await();
    return 0;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new MockMain()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
  }
}
