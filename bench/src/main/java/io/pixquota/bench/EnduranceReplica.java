package io.pixquota.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.dict.DictEntry;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.redis.RedisAddress;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.redisson.api.RedissonClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One replica of {@code bench endurance}: a service with the three named quotas of {@code examples/psp-service}, each
 * on its own client over one Redisson client: API Pix (a {@link PixClient} on the fleet's bucket, blocking callers
 * of a person beside async batch calls), DICT (a {@link DictClient}: honest payers, and with {@code --scanner} a
 * scanner taking a new payer id for every lookup) and an SPI-style cap of calls in flight (a second
 * {@link PixClient} with {@code maxInFlight}). Prints READY, then a SAMPLE line of JSON every {@code --sample-ms}
 * (its vitals and its outcomes so far) until its input ends.
 */
@Command(name = "endurance-replica", hidden = true, description = "One JVM of bench endurance.")
final class EnduranceReplica implements Callable<Integer> {
  @Option(names = "--bacen-url", required = true) URI bacenUrl;
  @Option(names = "--spi-url", required = true) URI spiUrl;
  @Option(names = "--redis-url", required = true) String redisUrl;
  @Option(names = "--replica-id", required = true) int replicaId;
  @Option(names = "--rate", defaultValue = "9") double rate;
  @Option(names = "--scanner") boolean scanner;
  @Option(names = "--sample-ms", defaultValue = "10000") long sampleMs;
  @Option(names = "--dict-counting", defaultValue = DICT_COUNTING) String dictCounting;

  static final String PIX_BUCKET = "endurance-pix";
  static final int SPI_CAP = 6;
  static final String ISPB = "12345678";
  /** Each replica's honest payers: one looks a key of theirs up every 40 s, below their own bucket's 2 a minute. */
  static final int HONEST_PAYERS = 12;
  /** DICT's later counting, a participant of category E: its anti-scan bucket 1000 at 500 a minute. */
  static final String DICT_COUNTING = "later:E";
  /**
   * How long a lookup's credit waits for its payment (the SDK's default is 1 h): the credits a process and Redis
   * keep grow for that long, then level off; 5 minutes lets the warm-up see them level, not the leak check.
   */
  static final Duration CREDIT_TTL = Duration.ofMinutes(5);

  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  @Override
  public Integer call() throws Exception {
    RedissonClient redisson = RedisAddress.parse(redisUrl).connect(Duration.ofSeconds(2), 8);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    EnduranceLoad load = new EnduranceLoad(replicaId);
    try (PixClient pix = PixClient.builder(PixClientConfig.builder().baseUrl(bacenUrl.resolve("/api/v2/"))
            .credentials("demo", "demo-secret").bucketName(PIX_BUCKET).bucket(8, rate)
            .maxWait(Duration.ofSeconds(5)).build()).redisson(redisson).meterRegistry(registry).build();
        PixClient spi = PixClient.builder(PixClientConfig.builder().baseUrl(spiUrl.resolve("/api/v2/"))
            .credentials("demo", "demo-secret").bucketName("endurance-spi").bucket(1000, 1000)
            .maxInFlight(SPI_CAP).maxWait(Duration.ofSeconds(5)).build()).redisson(redisson)
            .meterRegistry(registry).build();
        DictClient dict = DictClient.builder(DictClientConfig.builder().baseUrl(bacenUrl.resolve("/api/v1/"))
            .participant(ISPB).payerSecret("the-endurance-psp-secret-0001")
            .policies(DictPolicies.parse(dictCounting)).creditTtl(CREDIT_TTL).build()).redisson(redisson)
            .meterRegistry(registry).build()) {
      warm(pix, spi, dict);
      for (int payer = 0; payer < HONEST_PAYERS; payer++) { // a settled payment earns the standing the reserve asks
        try {
          honest(dict, payer);
          load.count("dict-honest", "served");
        } catch (RuntimeException | IOException e) { // a restarted replica's payers may have their standing already
          load.count("dict-honest", EnduranceLoad.outcome(e));
        }
      }
      // API Pix: a person's calls (about 6.5/s over 4 replicas) and batch calls (4/s) on a quota of 9/s: the batch
      // calls take what the persons leave
      load.start("pix-person", 1, n -> pix.getPix(load.endToEndId("P", n), Priority.INTERACTIVE), 600);
      load.startAsync("pix-batch", 1, n -> pix.getPixAsync(load.endToEndId("B", n), Priority.BATCH));
      load.start("spi", 3, n -> spi.getPix(load.endToEndId("S", n)), 0);
      load.start("dict-honest", 3, n -> honest(dict, (int) (n % HONEST_PAYERS)), 10_000);
      if (scanner) {
        load.start("dict-scanner", 1, n -> dict.getEntry((n % 10 == 0 ? "user" + n % 999 : "scan" + n)
            + "@example.com", "scanner-" + replicaId + "-" + n), 50);
      }
      System.out.println("READY " + replicaId);
      System.out.flush();
      sampleUntilInputEnds(registry, new ReplicaVitals(registry, URI.create(redisUrl).getPort()), load);
    } finally {
      load.stop();
      redisson.shutdown();
    }
    return 0;
  }

  /**
   * An honest payer's payment: a lookup of a key of theirs that exists, the payment settled at the SPI (the mock's
   * DICT credits the lookup), and the application's word of it to the mirror ({@code paymentSettled}: the credit
   * back, the standing a settled payment earns).
   */
  private void honest(DictClient dict, int payer) throws IOException, InterruptedException {
    DictEntry entry = dict.getEntry("user" + (replicaId * 100 + payer) + "@example.com", "customer-" + replicaId
        + "-" + payer);
    HttpResponse<Void> settled = http.send(HttpRequest.newBuilder(bacenUrl.resolve("/api/v1/settlements/"
        + entry.endToEndId())).header("PI-RequestingParticipant", ISPB).POST(HttpRequest.BodyPublishers.noBody())
        .build(),
        HttpResponse.BodyHandlers.discarding());
    if (settled.statusCode() / 100 != 2) {
      throw new IOException("the SPI's settlement answered " + settled.statusCode());
    }
    dict.paymentSettled(entry.endToEndId());
  }

  /** One call of each kind before the load starts: classes loaded, tokens fetched, connections open. */
  private static void warm(PixClient pix, PixClient spi, DictClient dict) throws InterruptedException {
    AsyncReplica.warmUp(() -> {
      pix.warmUp();
      spi.warmUp();
      dict.warmUp();
    });
  }

  private static double timerMaxMs(SimpleMeterRegistry registry, String name) {
    return registry.find(name).tag("bucket", PIX_BUCKET).timers().stream()
        .mapToDouble(t -> t.max(java.util.concurrent.TimeUnit.MILLISECONDS)).max().orElse(0);
  }

  private void sampleUntilInputEnds(SimpleMeterRegistry registry, ReplicaVitals vitals, EnduranceLoad load)
      throws Exception {
    CountDownLatch ended = new CountDownLatch(1);
    Thread reader = new Thread(() -> {
      try {
        InputStream in = System.in;
        while (in.read() >= 0) {
          // the orchestrator says nothing more; the end of input is the stop
        }
      } catch (IOException e) {
        // gone: stop as well
      }
      ended.countDown();
    }, "endurance-input");
    reader.setDaemon(true);
    reader.start();
    long start = System.nanoTime();
    do {
      Map<String, Object> sample = new LinkedHashMap<>();
      sample.put("replica", replicaId);
      sample.put("uptimeMs", (System.nanoTime() - start) / 1_000_000);
      sample.putAll(vitals.sample());
      // how far after its slot a call may have reached the provider lately (the meters' max over their last 2 min):
      // "0 x 429" holds while it stays within the plan's J
      sample.put("pixLatenessMaxMs", timerMaxMs(registry, "bacen.throttle.lateness"));
      sample.put("pixAnswerMaxMs", timerMaxMs(registry, "bacen.throttle.answer"));
      sample.put("outcomes", load.outcomes());
      System.out.println("SAMPLE " + json.writeValueAsString(sample));
      System.out.flush();
    } while (!ended.await(sampleMs, java.util.concurrent.TimeUnit.MILLISECONDS));
  }
}
