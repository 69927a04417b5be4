package io.pixquota.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code java -jar bench/target/bench.jar <command>}: benchmarks that print figures and ratios. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmarks of the pixquota SDK; every figure is quoted against a baseline of the same run.",
    subcommands = {BucketBench.class, BucketLoad.class, SoakBench.class, LoadBench.class, PeersBench.class,
        PeerReplica.class, PeerHot.class, ScaleOutBench.class, SpreadChild.class, FleetBench.class, AsyncBench.class,
        AsyncReplica.class, PriorityBench.class, LatencyChild.class, DictBench.class, DictLookupsBench.class,
        PermitBench.class, EnduranceBench.class, EnduranceReplica.class, SharesBench.class,
        SharesStormReplica.class})
public final class BenchMain implements Runnable {
  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new BenchMain()).execute(args));
  }
}
