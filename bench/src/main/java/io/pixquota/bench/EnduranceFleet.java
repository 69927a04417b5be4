package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.ReplicaProcess;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The replica JVMs of {@code bench endurance}: started, read (each SAMPLE line kept with the run's time and the
 * replica's incarnation: a replica killed and started again is a new incarnation, its samples a new series), killed
 * and started again, and finished.
 */
final class EnduranceFleet implements AutoCloseable {
  /** One SAMPLE of one incarnation of a replica, at {@code atMs} into the run. */
  record Sample(int replica, int incarnation, long atMs, JsonNode values) {}

  private final ObjectMapper json = new ObjectMapper();
  private final URI bacenUrl;
  private final URI spiUrl;
  private final String redisUrl;
  private final long sampleMs;
  private final long startNanos;
  private final File log;
  private final Map<Integer, ReplicaProcess> live = new ConcurrentHashMap<>();
  private final Map<Integer, Integer> incarnations = new ConcurrentHashMap<>();
  private final Map<Integer, Double> rates = new ConcurrentHashMap<>();
  private final List<Sample> samples = new CopyOnWriteArrayList<>();

  EnduranceFleet(URI bacenUrl, URI spiUrl, String redisUrl, long sampleMs, long startNanos, File log) {
    this.bacenUrl = bacenUrl;
    this.spiUrl = spiUrl;
    this.redisUrl = redisUrl;
    this.sampleMs = sampleMs;
    this.startNanos = startNanos;
    this.log = log;
  }

  /** Starts replica {@code id} (again, when it ran before) with its bucket's refill {@code rate} per second. */
  void start(int id, double rate) throws IOException {
    rates.put(id, rate);
    int incarnation = incarnations.merge(id, 1, Integer::sum);
    List<String> args = new ArrayList<>(List.of("endurance-replica", "--bacen-url", bacenUrl.toString(),
        "--spi-url", spiUrl.toString(), "--redis-url", redisUrl, "--replica-id", Integer.toString(id),
        "--rate", Double.toString(rate), "--sample-ms", Long.toString(sampleMs)));
    if (id == 1) {
      args.add("--scanner");
    }
    ReplicaProcess p = ReplicaProcess.start(BenchMain.class, args, ProcessBuilder.Redirect.appendTo(log));
    p.awaitReady();
    live.put(id, p);
    Thread reader = new Thread(() -> read(p, id, incarnation), "endurance-reader-" + id + "-" + incarnation);
    reader.setDaemon(true);
    reader.start();
  }

  private void read(ReplicaProcess p, int id, int incarnation) {
    try {
      p.result(line -> {
        if (line.startsWith("SAMPLE ")) {
          try {
            samples.add(new Sample(id, incarnation, (System.nanoTime() - startNanos) / 1_000_000,
                json.readTree(line.substring("SAMPLE ".length()))));
          } catch (IOException e) {
            System.err.println("replica " + id + ": unreadable sample: " + e.getMessage());
          }
        }
      });
    } catch (IOException | IllegalStateException ended) {
      // the replica exited (finished, or killed): its samples end here
    }
  }

  /** {@code kill -9} replica {@code id}: it dies holding its permits, bookings and connections. */
  void kill(int id) throws InterruptedException {
    ReplicaProcess p = live.remove(id);
    if (p != null) {
      p.kill();
    }
  }

  /** Replica {@code id} finished (its input closed) and started again with {@code rate}: a rolling change. */
  void restart(int id, double rate) throws IOException, InterruptedException {
    ReplicaProcess p = live.remove(id);
    if (p != null) {
      p.finish();
    }
    start(id, rate);
  }

  double rate(int id) {
    return rates.getOrDefault(id, 0.0);
  }

  List<Sample> samples() {
    return List.copyOf(samples);
  }

  /** The replicas alive now, by id. */
  List<Integer> alive() {
    return live.entrySet().stream().filter(e -> e.getValue().isAlive()).map(Map.Entry::getKey).sorted().toList();
  }

  @Override
  public void close() throws InterruptedException {
    for (ReplicaProcess p : live.values()) {
      p.finish();
    }
    live.clear();
  }
}
