package io.pixquota.harness;

import java.util.List;
import picocli.CommandLine.Option;

/** A shared bucket's burst and rate, as every command of the demo and the benchmarks takes them: a {@code @Mixin}. */
public final class BucketOptions {
  @Option(names = "--capacity", defaultValue = "8", description = "Bucket burst (default ${DEFAULT-VALUE}).")
  public double capacity;

  @Option(names = "--rate", defaultValue = "9", description = "Bucket refill per second (default ${DEFAULT-VALUE}).")
  public double rate;

  /** The same settings as arguments for a child process. */
  public List<String> args() {
    return List.of("--capacity", Double.toString(capacity), "--rate", Double.toString(rate));
  }
}
