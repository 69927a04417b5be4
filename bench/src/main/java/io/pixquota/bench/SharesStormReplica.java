package io.pixquota.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.ReplicaProtocol;
import io.pixquota.harness.Sleep;
import io.pixquota.throttle.Priority;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One replica of {@code bench shares --storm-retry}'s storming service, in a process of its own: its callers call
 * again at once when refused, from the GO line's instant for {@code --seconds}; prints one RESULT line of JSON with
 * its counts and each served call's {asked, left} in ms after the start.
 */
@Command(name = "shares-storm-replica", hidden = true,
    description = "One replica of bench shares' storming service (started by bench shares --storm-retry).")
final class SharesStormReplica implements Callable<Integer> {
  @Option(names = "--pix-url", required = true)
  URI pixUrl;

  @Option(names = "--redis-url", required = true)
  String redisUrl;

  @Option(names = "--bucket", required = true)
  String bucket;

  @Option(names = "--code", required = true)
  int code;

  @Option(names = "--callers", required = true)
  int callers;

  @Option(names = "--seconds", required = true)
  int seconds;

  @Option(names = "--shares", defaultValue = "true", arity = "1")
  boolean shares;

  private volatile boolean stopped;

  @Override
  public Integer call() throws Exception {
    ReplicaProtocol protocol = new ReplicaProtocol(System.out);
    try (SharesService s = new SharesService("merchant-api", code, pixUrl, redisUrl, bucket,
        shares ? SharesBench.GUARANTEES : null)) {
      s.warmUp();
      protocol.ready("storm-" + code);
      ReplicaProtocol.Go go = protocol.next().orElseThrow(() -> new IllegalStateException("no GO"));
      long start = go.startNanos();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        Thread t = new Thread(() -> {
          try {
            Sleep.until(start);
          } catch (InterruptedException e) {
            return;
          }
          while (!stopped) {
            s.call(Priority.INTERACTIVE); // refused or served: at once again
          }
        }, "storm-" + i);
        t.start();
        threads.add(t);
      }
      Sleep.until(start + seconds * 1_000_000_000L);
      stopped = true;
      for (Thread t : threads) {
        t.join();
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("offered", s.offered.sum());
      result.put("served", s.served.sum());
      result.put("refused", s.refused.sum());
      result.put("tooMany", s.tooMany.sum());
      result.put("failed", s.failed.sum());
      result.put("rebooked", s.registry.find("bacen.throttle.rebooked").counters().stream()
          .mapToDouble(c -> c.count()).sum()); // woke past the late limit: booked again, the slot lost
      result.put("remembered", s.registry.find("bacen.throttle.refused.remembered").functionCounters().stream()
          .mapToDouble(c -> c.count()).sum());
      System.err.println("storm replica " + code + ": " + result);
      List<double[]> calls = new ArrayList<>();
      for (long[] c : s.servedCalls()) {
        calls.add(new double[] {(c[0] - start) / 1e6, (c[1] - start) / 1e6});
      }
      result.put("calls", calls);
      protocol.result(new ObjectMapper().writeValueAsString(result));
    }
    return 0;
  }
}
