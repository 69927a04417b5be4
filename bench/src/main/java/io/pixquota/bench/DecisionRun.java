package io.pixquota.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.ReplicaProcess;
import io.pixquota.harness.ReplicaProtocol;
import io.pixquota.harness.Sleep;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decisions per second from 2 child processes that start together: the orchestrator's side ({@link #perSecond}) and
 * the child's ({@link #countAndReport}), shared by the hot-key scenario of {@code bench peers} and by
 * {@code bench scaleout}.
 */
final class DecisionRun {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The decision thread {@code thread} takes at its {@code i}-th turn; true when granted. */
  @FunctionalInterface
  interface Turn {
    boolean take(int thread, long i) throws Exception;
  }

  private DecisionRun() {}

  /**
   * Starts 2 children of {@code command} with {@code args} and a common {@code --start-at-ms} 6 s ahead (after both
   * JVMs have started and warmed up), and returns the decisions per second they counted together.
   */
  static double perSecond(String command, List<String> args, double seconds, File childLog) throws Exception {
    long startAt = System.currentTimeMillis() + 6000;
    List<ReplicaProcess> children = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        List<String> all = new ArrayList<>(List.of(command, "--seconds", Double.toString(seconds), "--start-at-ms",
            Long.toString(startAt)));
        all.addAll(args);
        children.add(ReplicaProcess.start(BenchMain.class, all, ProcessBuilder.Redirect.appendTo(childLog)));
      }
      long total = 0;
      for (ReplicaProcess child : children) {
        total += JSON.readTree(child.result(line -> { })).get("decisions").asLong();
        if (child.finish() != 0) {
          throw new IllegalStateException(command + " failed; see " + childLog);
        }
      }
      return total / seconds;
    } finally {
      children.forEach(ReplicaProcess::close);
    }
  }

  /**
   * In a child: {@code threads} threads take turns back to back from the common start, the first {@code warmup}
   * seconds not counted, then {@code seconds} counted; prints {@code RESULT {"decisions": n}}, n the decisions that
   * started within the counted window. Every decision must grant (the limits are set so): a refusal fails the run.
   */
  static void countAndReport(int threads, long startAtMs, double warmup, double seconds, Turn turn)
      throws Exception {
    AtomicLong decisions = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    long startNanos = Sleep.nanoTimeAt(startAtMs);
    long countFrom = startNanos + (long) (warmup * 1e9);
    long endNanos = countFrom + (long) (seconds * 1e9);
    if (System.nanoTime() > startNanos) {
      throw new IllegalStateException("set up after the common start time: the run would be shorter than asked");
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(pool.submit(() -> {
          Sleep.until(startNanos);
          long now;
          for (long i = 0; (now = System.nanoTime()) < endNanos; i++) {
            if (!turn.take(thread, i)) {
              refused.incrementAndGet();
            }
            if (now >= countFrom) {
              decisions.incrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    if (refused.get() > 0) {
      throw new IllegalStateException(refused.get() + " decisions refused: the limits were meant to grant all");
    }
    new ReplicaProtocol(System.out).result("{\"decisions\":" + decisions.get() + "}");
  }
}
