package io.pixquota.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.BucketOptions;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RedisSentinels;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import io.pixquota.throttle.redis.RedisAddress;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code java -jar demo/target/bacen-demo.jar}: the reference scenario. Two replica processes fire 20 PIX status
 * queries each at the same instant, first straight at the mock BACEN (10 per second), then through the shared bucket
 * (burst 8, 9 per second), and the two runs are printed side by side.
 */
@Command(name = "bacen-demo", mixinStandardHelpOptions = true, version = "bacen-demo 0.1.0-SNAPSHOT",
    description = "Replicas in a burst against a mock BACEN: direct vs through the shared Redis bucket.",
    subcommands = ReplicaCommand.class)
public final class DemoMain implements Callable<Integer> {
  /** Which runs to make. */
  enum Mode { DIRECT, THROTTLED, BOTH }

  @Option(names = "--replicas", defaultValue = "2", description = "Replica processes (default ${DEFAULT-VALUE}).")
  int replicas;

  @Option(names = "--calls", defaultValue = "20", description = "Queries per replica (default ${DEFAULT-VALUE}).")
  int calls;

  @Mixin
  BucketOptions bucket;

  @Option(names = "--max-wait", defaultValue = "10000",
      description = "Max wait for a slot, ms (default ${DEFAULT-VALUE}).")
  long maxWaitMs;

  @Option(names = "--mode", defaultValue = "BOTH", description = "${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
  Mode mode;

  @Option(names = "--redis-url", description = "The shared bucket's Redis: redis://host:port[/db], "
      + "redis-sentinel://host:port,.../MASTER or redis-cluster://host:port,... (default: REDIS_URL, else an "
      + "embedded Redis).")
  String redisUrlOption;

  /** Which Redis client the replicas' buckets run on. */
  enum RedisClients { REDISSON, LETTUCE, MIXED }

  @Option(names = "--redis-client", defaultValue = "REDISSON", description = "The replicas' Redis client: "
      + "${COMPLETION-CANDIDATES}; MIXED puts odd replicas on Lettuce and even ones on Redisson, on one bucket "
      + "(default ${DEFAULT-VALUE}).")
  RedisClients redisClient;

  /** The client of replica {@code i} (from 1), for its --redis-client. */
  String redisClientOf(int i) {
    return switch (redisClient) {
      case REDISSON -> "REDISSON";
      case LETTUCE -> "LETTUCE";
      case MIXED -> i % 2 == 1 ? "LETTUCE" : "REDISSON";
    };
  }

  @Option(names = "--bacen-url",
      description = "Use this mock BACEN instead of one in-process (its /admin on loopback).")
  URI bacenUrl;

  @Option(names = "--latency-ms", defaultValue = "0",
      description = "Latency of the in-process mock (default ${DEFAULT-VALUE}).")
  long latencyMs;

  @Option(names = "--jitter-ms", defaultValue = "0",
      description = "Jitter of the in-process mock (default ${DEFAULT-VALUE}).")
  long jitterMs;

  @Option(names = "--report", description = "Write a self-contained HTML report with timelines to this file.")
  Path report;

  @Option(names = "--timeline", hidden = true,
      description = "Print when each call left and when the provider saw it (for explaining a 429).")
  boolean timeline;

  @Option(names = "--foreign-rate",
      description = "Also run another system on the same credentials, not throttled, at this many calls per second; "
          + "the replicas then call back to back for --duration s with --calls threads each, and three runs compare "
          + "a fixed rate (fixed), the SDK's rate adaptation (adaptive) and adaptation with the provider's RateLimit "
          + "header read on every answer (headers).")
  Double foreignRate;

  @Option(names = "--failover-at-ms",
      description = "Run the shared bucket on a Sentinel-managed master and replica of the demo's own (three "
          + "Sentinels, down after 1 s) and kill the master this many ms after the replicas fire; a negative value: "
          + "-N ms after the replica processes start, while they start and warm up; throttled only.")
  Long failoverAtMs;

  RedisSentinels sentinels; // with --failover-at-ms: the group whose master the run kills

  @Option(names = "--foreign-during-burst",
      description = "With --foreign-rate: one run of the replicas' burst instead (each fires --calls at once, "
          + "throttled unless --mode says otherwise), the foreign system calling from its start until its last call "
          + "ends.")
  boolean foreignDuringBurst;

  @Option(names = "--duration", defaultValue = "30",
      description = "With --foreign-rate or --priorities: seconds of saturating demand per run (default "
          + "${DEFAULT-VALUE}); with --in-flight: seconds the pool's run lasts, callers back to back (10 unless "
          + "given).")
  int durationSeconds;

  @Option(names = "--priorities",
      description = "Two replicas on one bucket for --duration s: r1 a batch job with --calls threads back to back, "
          + "r2 a person's status check once a second; the runs compare one class for all (one-class) with r1's "
          + "calls in the BATCH class (priorities).")
  boolean priorities;

  @Mixin
  DictOptions dictOptions = new DictOptions();

  @Option(names = "--in-flight", description = "The SPI's cap on calls in flight: the mock refuses the call over N "
      + "at once; 3 replicas x 20 concurrent calls, direct (once each) vs through a permit pool (back to back for "
      + "--duration s, or once each with --call-timeout-ms); each answer takes --latency-ms, 200 unless given.")
  Integer inFlight;

  @Option(names = "--call-timeout-ms", defaultValue = "0", description = "With --in-flight: each replica's call "
      + "timeout, e.g. 3000 with --latency-ms 10000: the calls time out at the client while the provider still works "
      + "on them, which the pool must count; 0 (default): none.")
  long callTimeoutMs;

  @Option(names = "--json", description = "Print only a JSON object {\"direct\": {...}, \"throttled\": {...}}.")
  boolean jsonOnly;

  @Spec
  CommandSpec spec;

  private final ObjectMapper json = new ObjectMapper();
  private PrintStream out = System.out;
  private boolean terminal = ProgressLine.isTerminal();

  @Override
  public Integer call() throws Exception {
    if (replicas < 1 || replicas > 99) {
      throw bad("--replicas must be within 1..99, but was " + replicas);
    }
    if (calls < 1) {
      throw bad("--calls must be >= 1, but was " + calls);
    }
    ModeChecks.check(this);
    String redisUrl = failoverAtMs != null ? null
        : redisUrlOption != null ? redisUrlOption : System.getenv("REDIS_URL");
    boolean ownRedis = failoverAtMs == null && (redisUrl == null || redisUrl.isBlank());
    if (!ownRedis && failoverAtMs == null) {
      try {
        RedisAddress.parse(redisUrl);
      } catch (IllegalArgumentException e) {
        throw bad((redisUrlOption != null ? "--redis-url" : "REDIS_URL") + " is invalid: " + e.getMessage());
      }
    }
    if (dictOptions.dict) {
      return DictDemo.fromOptions(this, ownRedis ? null : redisUrl);
    }
    if (inFlight != null) {
      ModeChecks.inFlightDefaults(this);
    }
    try (PrivateRedisServer redis = ownRedis ? PrivateRedisServer.start() : null;
        RedisSentinels sentinels = failoverAtMs != null ? RedisSentinels.start() : null;
        MockBacen mock = bacenUrl == null ? MockBacen.start(mockConfig())
            : null) {
      this.sentinels = sentinels;
      redisUrl = ownRedis ? redis.uri().toString() : sentinels != null ? sentinels.url() : redisUrl;
      URI provider = mock != null ? mock.url() : bacenUrl;
      if (!jsonOnly) {
        out.printf(Locale.ROOT, "Provider %s (quota per integrator: a burst of 10, refilled at 10 per second), "
            + "Redis %s through %s%n", provider,
            ownRedis ? "embedded" : RedisAddress.parse(redisUrl), switch (redisClient) {
              case REDISSON -> "Redisson";
              case LETTUCE -> "Lettuce";
              case MIXED -> "Lettuce (odd replicas) and Redisson (even ones)";
            });
        if (priorities) {
          out.printf(Locale.ROOT, "r1: a batch job, %d threads back to back; r2: a person's status check once a "
              + "second; %d s per run%n", calls, durationSeconds);
        } else if (backToBackInFlight()) {
          out.printf(Locale.ROOT, "%d replicas x %d PIX status queries: direct, fired at the same instant; throttled, "
              + "%d callers each back to back for %d s%n", replicas, calls, calls, durationSeconds);
        } else if (foreignRate == null || foreignDuringBurst) {
          out.printf(Locale.ROOT, "%d replicas x %d PIX status queries, fired at the same instant%s%n", replicas,
              calls, foreignRate == null ? "" : ", and a foreign system on the same credentials at "
                  + ResultTable.number(foreignRate) + " per second meanwhile");
        } else {
          out.printf(Locale.ROOT, "%d replicas x %d callers back to back for %d s, and a foreign system on the same "
              + "credentials at %s per second%n", replicas, calls, durationSeconds, ResultTable.number(foreignRate));
        }
        if (terminal) {
          out.println(); // between this and the progress lines; the table starts with a blank line of its own
        }
      }
      Map<String, ModeResult> results = new LinkedHashMap<>();
      if (priorities) {
        for (String run : List.of("one-class", "priorities")) {
          String batchClass = run.equals("priorities") ? "BATCH" : "INTERACTIVE";
          results.put(run, runEach(run, ReplicaCommand.Mode.THROTTLED, List.of(
              List.of("--calls", Integer.toString(calls), "--duration-ms", Long.toString(durationSeconds * 1000L),
                  "--priority", batchClass),
              List.of("--calls", "1", "--duration-ms", Long.toString(durationSeconds * 1000L), "--pace-ms", "1000",
                  "--priority", "INTERACTIVE")), provider, redisUrl));
        }
      } else if (foreignRate != null && !foreignDuringBurst) {
        if (mode == Mode.BOTH) {
          results.put("fixed", run("fixed", ReplicaCommand.Mode.THROTTLED, List.of("--no-rate-adaptation"), provider,
              redisUrl));
        }
        results.put("adaptive", run("adaptive", ReplicaCommand.Mode.THROTTLED, List.of(), provider, redisUrl));
        results.put("headers", run("headers", ReplicaCommand.Mode.THROTTLED, List.of("--quota-headers", "IETF"),
            provider, redisUrl)); // the provider's RateLimit header read on every answer, on top of adaptation
      } else {
        if (mode != Mode.THROTTLED) {
          results.put("direct", run("direct", ReplicaCommand.Mode.DIRECT, List.of(), provider, redisUrl));
        }
        if (mode != Mode.DIRECT) {
          results.put("throttled", run("throttled", ReplicaCommand.Mode.THROTTLED, List.of(), provider, redisUrl));
        }
      }
      if (jsonOnly) {
        Map<String, Object> all = new LinkedHashMap<>();
        results.forEach((k, v) -> {
          Map<String, Object> run = v.toJson();
          String hint = v.maxWaitHint(replicas * calls, bucket.capacity, bucket.rate, maxWaitMs,
              !priorities && foreignRate == null);
          if (hint != null) {
            run.put("hint", hint);
          }
          all.put(k, run);
        });
        out.println(json.writeValueAsString(all));
      } else {
        ResultTable.print(out, results, replicas * calls, bucket.capacity, bucket.rate, foreignRate,
            priorities ? durationSeconds : 0, maxWaitMs);
      }
      if (report != null) {
        String heading = priorities ? "r1: a batch job, " + calls + " threads back to back; r2: a person's status "
            + "check once a second; " + durationSeconds + " s per run"
            : foreignRate == null ? null : foreignDuringBurst ? "a foreign system at " + ResultTable.number(foreignRate)
                + " per second during the burst" : "a foreign system at " + ResultTable.number(foreignRate)
                + " per second, " + calls + " callers per replica back to back for " + durationSeconds + " s";
        Files.writeString(report, Report.html(results, bucket.capacity, bucket.rate, replicas, calls, heading,
            priorities ? durationSeconds : 0), StandardCharsets.UTF_8);
        if (!jsonOnly) {
          out.println("Report written to " + report.toAbsolutePath());
        }
      }
      ModeResult throttled = results.get("throttled");
      return throttled != null && throttled.tooManyRequests() > 0 ? 2 : 0;
    }
  }

  /** The mock of the run: with {@code --in-flight}, a cap on calls in flight and no rate that binds. */
  private MockConfig mockConfig() {
    MockConfig.Builder b = MockConfig.builder().latency(latencyMs, jitterMs);
    return inFlight == null ? b.build() : b.maxInFlight(inFlight).policy(QuotaPolicy.bucket(100_000, 100_000, 1000))
        .build();
  }

  boolean given(String option) {
    return spec.commandLine().getParseResult().hasMatchedOption(option);
  }

  CommandLine.ParameterException bad(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  /**
   * The cap's throughput: the pool's run calls back to back for --duration s (a slow provider's, with
   * --call-timeout-ms, stays one burst: its calls time out and keep their permits).
   */
  boolean backToBackInFlight() {
    return inFlight != null && callTimeoutMs == 0;
  }

  /** A run of {@code --replicas} replicas of {@code --calls} each, with {@code extra} arguments. */
  private ModeResult run(String name, ReplicaCommand.Mode replicaMode, List<String> extra, URI provider,
      String redisUrl) throws Exception {
    List<List<String>> each = new ArrayList<>();
    for (int i = 1; i <= replicas; i++) {
      List<String> args = new ArrayList<>(List.of("--calls", Integer.toString(calls)));
      if (foreignRate != null && !foreignDuringBurst
          || backToBackInFlight() && replicaMode == ReplicaCommand.Mode.THROTTLED) {
        args.addAll(List.of("--duration-ms", Long.toString(durationSeconds * 1000L)));
      }
      args.addAll(extra);
      each.add(args);
    }
    return runEach(name, replicaMode, each, provider, redisUrl);
  }

  /** A run of one replica per entry of {@code each}, with its arguments. */
  private ModeResult runEach(String name, ReplicaCommand.Mode replicaMode, List<List<String>> each, URI provider,
      String redisUrl) throws Exception {
    return new ModeRun(this, out, terminal).run(name, replicaMode, each, provider, redisUrl);
  }

  PrintStream out() {
    return out;
  }

  /** For tests: whether the output is a terminal (default: {@link ProgressLine#isTerminal()}). */
  DemoMain terminal(boolean terminal) {
    this.terminal = terminal;
    return this;
  }

  /** For tests: where the demo prints. */
  DemoMain printTo(PrintStream stream) {
    this.out = stream;
    return this;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new DemoMain()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
  }
}
