package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.ReplicaProcess;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * {@code count} {@link PeerReplica} processes of one limiter and setting, sharing one bucket: started together,
 * driven workload by workload, stopped together. Their error output goes to {@code childLog}.
 */
final class PeerFleet implements AutoCloseable {
  private final List<ReplicaProcess> replicas = new ArrayList<>();
  private final ObjectMapper json = new ObjectMapper();
  private final File childLog;

  private PeerFleet(File childLog) {
    this.childLog = childLog;
  }

  /** Starts the replicas and waits until every one is READY. */
  static PeerFleet start(Limiter limiter, List<String> settingArgs, int count, URI bacen, URI redis, File childLog)
      throws IOException {
    return start(limiter, Collections.nCopies(count, settingArgs), bacen, redis, childLog);
  }

  /**
   * Starts replica {@code i + 1} with {@code settingsByReplica.get(i)} (a fleet that disagrees on its settings) and
   * waits until every one is READY.
   */
  static PeerFleet start(Limiter limiter, List<List<String>> settingsByReplica, URI bacen, URI redis,
      File childLog) throws IOException {
    String bucket = "fleet-" + limiter.label() + "-" + System.nanoTime();
    PeerFleet fleet = new PeerFleet(childLog);
    try {
      for (int i = 1; i <= settingsByReplica.size(); i++) {
        List<String> args = new ArrayList<>(List.of("peer-replica", "--limiter", limiter.name(), "--bacen-url",
            bacen.toString(), "--redis-url", redis.toString(), "--bucket-name", bucket, "--replica-id",
            Integer.toString(i)));
        args.addAll(settingsByReplica.get(i - 1));
        fleet.replicas.add(ReplicaProcess.start(BenchMain.class, args,
            ProcessBuilder.Redirect.appendTo(childLog)));
      }
      for (ReplicaProcess r : fleet.replicas) {
        r.awaitReady();
      }
      return fleet;
    } catch (IOException | RuntimeException e) {
      fleet.close();
      throw new IllegalStateException("a " + limiter.label() + " replica did not start; see " + childLog, e);
    }
  }

  int size() {
    return replicas.size();
  }

  /**
   * One workload on every replica at {@code goMs}: {@code kind} (burst, saturate, paced) with {@code callers}
   * threads each, {@code ms} long (or apart, when paced).
   *
   * @return every replica's RESULT
   */
  List<JsonNode> run(long goMs, String kind, int callers, long ms) throws IOException {
    int n = replicas.size();
    return run(Collections.nCopies(n, goMs), kind, callers, Collections.nCopies(n, ms));
  }

  /** The same, replica {@code i + 1} starting at {@code goMsByReplica.get(i)}, running {@code msByReplica.get(i)}. */
  List<JsonNode> run(List<Long> goMsByReplica, String kind, int callers, List<Long> msByReplica) throws IOException {
    for (int i = 0; i < replicas.size(); i++) {
      replicas.get(i).go(goMsByReplica.get(i), kind, Integer.toString(callers), Long.toString(msByReplica.get(i)),
          Integer.toString(replicas.size()));
    }
    List<JsonNode> results = new ArrayList<>();
    for (ReplicaProcess r : replicas) {
      try {
        results.add(json.readTree(r.result(line -> { })));
      } catch (IllegalStateException e) {
        throw new IllegalStateException("a replica exited mid-run; see " + childLog, e);
      }
    }
    return results;
  }

  /** Ends every replica's input and waits for them; kills what does not stop. */
  @Override
  public void close() {
    for (ReplicaProcess r : replicas) {
      try {
        r.finish();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        r.close();
      }
    }
  }
}
