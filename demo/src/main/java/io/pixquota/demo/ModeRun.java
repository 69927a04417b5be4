package io.pixquota.demo;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.ForeignConsumer;
import io.pixquota.harness.ReplicaProcess;
import io.pixquota.harness.Sleep;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One run of the demo: its replica processes started and fired together, the foreign consumer or the person's calls
 * beside them, the Redis commands counted, and what every replica and the mock saw read into a {@link ModeResult}.
 */
final class ModeRun {
  private final DemoMain demo;
  private final PrintStream out;
  private final boolean terminal;
  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  ModeRun(DemoMain demo, PrintStream out, boolean terminal) {
    this.demo = demo;
    this.out = out;
    this.terminal = terminal;
  }

  /** A run of one replica per entry of {@code each}, with its arguments. */
  ModeResult run(String name, ReplicaCommand.Mode replicaMode, List<List<String>> each, URI provider,
      String redisUrl) throws Exception {
    drained(provider);
    post(provider.resolve("/admin/reset"));
    String bucketName = "demo-" + System.currentTimeMillis();
    ModeResult result = new ModeResult(name);
    List<ReplicaProcess> children = new ArrayList<>();
    try {
      for (int i = 1; i <= each.size(); i++) {
        List<String> args = new ArrayList<>(List.of("replica", "--bacen-url", provider.toString(),
            "--redis-url", redisUrl, "--mode", replicaMode.name(),
            "--start-on-stdin", "--capacity", Double.toString(demo.bucket.capacity), "--rate",
            Double.toString(demo.bucket.rate),
            "--max-wait-ms", Long.toString(maxWaitMs()), "--bucket-name", bucketName,
            "--replica-id", Integer.toString(i), "--redis-client", demo.redisClientOf(i)));
        if (demo.inFlight != null && replicaMode == ReplicaCommand.Mode.THROTTLED) {
          args.addAll(List.of("--in-flight", Integer.toString(demo.inFlight)));
          if (demo.callTimeoutMs > 0) { // the provider's timeout: its answer time, which the pool must outlast
            args.addAll(List.of("--provider-timeout-ms", Long.toString(demo.latencyMs + demo.jitterMs + 1000)));
          }
        }
        if (demo.callTimeoutMs > 0) {
          args.addAll(List.of("--call-timeout-ms", Long.toString(demo.callTimeoutMs)));
        }
        args.addAll(each.get(i - 1));
        children.add(ReplicaProcess.start(DemoMain.class, args, ProcessBuilder.Redirect.INHERIT));
      }
      if (demo.sentinels != null && demo.failoverAtMs < 0) {
        Thread.sleep(-demo.failoverAtMs - 1); // while the replicas start and warm up: they wait for the promotion
        demo.sentinels.master().kill();
      }
      // Every replica has started its JVM, its Redis connections and its token: now fire them all together.
      for (ReplicaProcess child : children) {
        child.awaitReady();
      }
      long startAt = System.currentTimeMillis() + 300;
      try (RedisCommandCount counter = replicaMode == ReplicaCommand.Mode.THROTTLED
          ? RedisCommandCount.start(redisUrl, startAt) : null) {
        for (ReplicaProcess child : children) {
          child.go(startAt);
        }
        if (demo.sentinels != null && demo.failoverAtMs >= 0) {
          Thread killer = new Thread(() -> {
            try {
              Sleep.until(Sleep.nanoTimeAt(startAt + demo.failoverAtMs));
              demo.sentinels.master().kill();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }, "failover");
          killer.setDaemon(true);
          killer.start();
        }
        ForeignConsumer foreign = demo.foreignRate == null ? null
            : ForeignConsumer.paced(provider, demo.foreignRate, startAt, demo.foreignDuringBurst
                ? (int) Math.min(86_400, maxWaitMs() / 1000 + 60) : demo.durationSeconds);
        if ((foreign != null && !demo.foreignDuringBurst || demo.priorities) && !demo.jsonOnly && terminal) {
          out.printf(Locale.ROOT, "  %s: running for %d s...%n", name, demo.durationSeconds);
        }
        ProgressLine progress = new ProgressLine(out, name,
            demo.priorities || demo.foreignRate != null && !demo.foreignDuringBurst ? " calls" : "/" + demo.calls,
            terminal && !demo.jsonOnly);
        List<Thread> readers = new ArrayList<>();
        List<Exception> failures = new ArrayList<>();
        for (ReplicaProcess child : children) {
          Thread t = new Thread(() -> {
            try {
              read(child.result(progress::take), result);
            } catch (IOException | RuntimeException e) {
              synchronized (failures) {
                failures.add(e);
              }
            }
          });
          t.start();
          readers.add(t);
        }
        for (Thread t : readers) {
          t.join();
        }
        progress.end();
        if (!failures.isEmpty()) {
          throw new IllegalStateException("a replica failed (see its error output above)", failures.get(0));
        }
        if (foreign != null) {
          if (demo.foreignDuringBurst) {
            foreign.stop(); // the burst is over: so is the foreign system's part in it
          }
          foreign.join();
          result.foreign = true;
        }
        if (counter != null) {
          counter.settle();
          result.redisCommands = counter.commands();
          result.redisCountPartial = counter.partial();
        }
      }
      for (int i = 0; i < children.size(); i++) {
        if (children.get(i).finish() != 0) {
          throw new IllegalStateException("replica " + (i + 1) + " failed (see its error output above)");
        }
      }
    } finally {
      children.forEach(ReplicaProcess::close);
    }
    JsonNode all = json.readTree(get(provider.resolve("/admin/stats?events=true")));
    JsonNode stats = all.path("integrators").path("demo");
    result.providerMaxInWindow = stats.path("maxInWindow").asLong();
    result.providerMostInFlight = stats.path("inFlight").path("mostSeen").asLong(-1);
    result.latencyMs = demo.latencyMs;
    result.replicaMaxWaitMs = maxWaitMs();
    result.inFlightCap = stats.path("inFlight").path("max").asLong();
    result.providerOriginNanoTime = all.path("originNanoTime").asLong();
    result.providerEvents = json.convertValue(stats.path("events"), new TypeReference<List<Map<String, Object>>>() {});
    if (demo.timeline) {
      System.err.println(result.timeline(16));
    }
    return result;
  }

  /**
   * Waits until the provider has no request of the run before in flight (calls that timed out at the client are still
   * at the provider until it answers them): each run starts with the provider's room whole.
   */
  private void drained(URI provider) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + (demo.latencyMs + demo.jitterMs + 5_000) * 1_000_000;
    while (json.readTree(get(provider.resolve("/admin/stats"))).path("integrators").path("demo").path("inFlight")
        .path("now").asLong(0) > 0 && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
  }

  /** The replicas' max wait: the demo's, shorter than their call timeout when one is given. */
  private long maxWaitMs() {
    return demo.callTimeoutMs > 0 ? Math.min(demo.maxWaitMs, demo.callTimeoutMs / 2) : demo.maxWaitMs;
  }

  private void read(String resultJson, ModeResult result) throws IOException {
    JsonNode node = json.readTree(resultJson);
    List<CallRecord> records = json.convertValue(node.get("calls"), new TypeReference<List<CallRecord>>() {});
    synchronized (result) {
      result.callsByReplica.put(node.get("replica").asText(), records);
      result.replicaStartNanoTime.put(node.get("replica").asText(), node.path("startNanoTime").asLong());
      result.effectiveRate.put(node.get("replica").asText(), json.convertValue(node.path("effectiveRate"),
          new TypeReference<List<double[]>>() {}));
      result.jitterMaxMs = Math.max(result.jitterMaxMs, node.path("latenessMaxMs").asDouble()
          + node.path("answerMaxMs").asDouble());
      node.path("quotaHeaders").properties().forEach(e -> result.quotaHeaders.merge(e.getKey(),
          e.getValue().asLong(), Long::sum));
      Map<String, Number> timing = new LinkedHashMap<>();
      timing.put("schedulingLagMaxMs", Math.round(node.path("schedulingLagMaxMs").asDouble() * 10) / 10.0);
      timing.put("latenessMaxMs", Math.round(node.path("latenessMaxMs").asDouble() * 10) / 10.0);
      timing.put("rebooked", node.path("rebooked").asLong());
      timing.put("superseded", node.path("superseded").asLong()); // slots a cut of the rate moved or rebooked
      result.timingByReplica.put(node.get("replica").asText(), timing);
    }
  }

  private void post(URI uri) throws IOException, InterruptedException {
    http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.discarding());
  }

  private String get(URI uri) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
  }
}
