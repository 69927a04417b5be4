package io.pixquota.harness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Reads some values every period on a daemon thread while a workload runs, and keeps a row
 * {@code [System.nanoTime(), values...]} each time they change (and one at the end): a timeline of a replica's state,
 * such as the rate its bucket has in force.
 */
public final class Sampler {
  private final Supplier<double[]> read;
  private final List<double[]> rows = new ArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sampler");
    t.setDaemon(true);
    return t;
  });

  private Sampler(Supplier<double[]> read) {
    this.read = read;
  }

  /**
   * Samples {@code read} every {@code periodMs} from {@code startNanos} (System.nanoTime; at once if it has passed).
   * {@code read} may return null when there is nothing to read yet.
   */
  public static Sampler start(long startNanos, long periodMs, Supplier<double[]> read) {
    Sampler s = new Sampler(read);
    long delayNanos = Math.max(0, startNanos - System.nanoTime());
    s.timer.scheduleAtFixedRate(() -> s.sample(false), delayNanos, TimeUnit.MILLISECONDS.toNanos(periodMs),
        TimeUnit.NANOSECONDS);
    return s;
  }

  private synchronized void sample(boolean last) {
    double[] values = read.get();
    if (values == null) {
      return;
    }
    double[] previous = rows.isEmpty() ? null : rows.get(rows.size() - 1);
    if (last || previous == null || !Arrays.equals(values, 0, values.length, previous, 1, previous.length)) {
      double[] row = new double[values.length + 1];
      row[0] = System.nanoTime();
      System.arraycopy(values, 0, row, 1, values.length);
      rows.add(row);
    }
  }

  /** Stops sampling, takes a last row, and returns the rows. */
  public List<double[]> stop() throws InterruptedException {
    timer.shutdown();
    timer.awaitTermination(1, TimeUnit.SECONDS);
    sample(true);
    synchronized (this) {
      return new ArrayList<>(rows);
    }
  }
}
