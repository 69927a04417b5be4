package io.pixquota.bench;

import io.pixquota.harness.Redissons;
import java.util.List;
import java.util.concurrent.Callable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One process of the hot-key scenario: threads that take decisions on one shared key back to back for a while, with
 * a limiter (set so that every decision grants: each one writes the key's state) or with a trivial EVALSHA (the
 * ceiling). After a warm-up that is not counted, prints {@code RESULT {"decisions": n}}: the decisions that
 * started within the counted window.
 */
@Command(name = "peer-hot", hidden = true, description = "Child process of 'bench peers' (hot key).")
final class PeerHot implements Callable<Integer> {
  /** The trivial script of the ceiling: one key, no work. */
  static final String TRIVIAL = "return 1";

  @Option(names = "--limiter", description = "A limiter, or omit for the trivial EVALSHA ceiling.") Limiter limiter;
  @Option(names = "--redis-url", required = true) String redisUrl;
  @Option(names = "--key", required = true) String key;
  @Option(names = "--threads", defaultValue = "16") int threads;
  @Option(names = "--seconds", defaultValue = "5") double seconds;
  @Option(names = "--start-at-ms", required = true) long startAtMs;
  @Option(names = "--warmup-seconds", defaultValue = "2",
      description = "Decisions from the start for this long warm the JIT up and are not counted.") double warmup;

  @Override
  public Integer call() throws Exception {
    RedissonClient redisson = Redissons.defaults(redisUrl);
    if (limiter != null && limiter.onLettuce()) {
      Limiter.useLettuceAt(redisUrl);
    }
    try {
      Decision decision;
      if (limiter == null) {
        RScript script = redisson.getScript(StringCodec.INSTANCE);
        String sha = script.scriptLoad(TRIVIAL);
        List<Object> keys = List.of(key);
        decision = () -> script.<Long>evalSha(RScript.Mode.READ_WRITE, sha, RScript.ReturnType.INTEGER, keys) == 1L;
      } else {
        Limiter.Gate gate = limiter.open(redisson, key, 1_000_000_000, 1_000_000_000);
        decision = gate::tryTake;
      }
      for (int i = 0; i < 200; i++) { // connections and code paths warm before the start
        decision.take();
      }
      DecisionRun.countAndReport(threads, startAtMs, warmup, seconds, (thread, i) -> decision.take());
    } finally {
      redisson.shutdown();
      Limiter.closeLettuce();
    }
    return 0;
  }

  @FunctionalInterface
  interface Decision {
    boolean take() throws Exception;
  }
}
