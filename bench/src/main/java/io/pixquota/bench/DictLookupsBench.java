package io.pixquota.bench;

import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.dict.DictException;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.Redissons;
import io.pixquota.harness.RespConnection;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Redis round trips per DICT lookup, counted by Redis itself ({@code INFO commandstats}: EVALSHA and EVAL calls):
 * lookups that answer 200 (their refund and credit ride on a later lookup's round trip, or on a flush of their own
 * after the flush delay) and lookups that answer 404 (which cost their worst case: nothing to give back), back to back
 * from 8 threads and paced one a second. Against the judge's DICT in this process, a private redis-server.
 */
@Command(name = "dict-lookups", mixinStandardHelpOptions = true,
    description = "Redis round trips per DICT lookup (200 and 404), counted by Redis.")
final class DictLookupsBench implements Callable<Integer> {
  @Option(names = "--lookups", defaultValue = "4000", description = "Lookups back to back (default ${DEFAULT-VALUE}).")
  int lookups;

  @Option(names = "--paced", defaultValue = "15", description = "Lookups paced a second apart (default "
      + "${DEFAULT-VALUE}).")
  int paced;

  @Override
  public Integer call() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start(); RespConnection admin = redis.rawConnection();
        MockBacen mock = MockBacen.start(MockConfig.builder().dict(io.pixquota.mock.DictPolicies.later('A'))
            .build())) {
      RedissonClient redisson = Redisson.create(Redissons.smallPool(redis.uri().toString()));
      try (DictClient dict = DictClient.builder(DictClientConfig.builder().baseUrl(mock.dictUrl())
          .participant("12345678").payerSecret("the-bench-psp-secret-0001").policies(DictPolicies.later('A'))
          .build()).redisson(redisson).build()) {
        dict.warmUp();
        System.out.printf(Locale.ROOT, "bench dict-lookups: private redis-server, the judge's DICT (later "
            + "counting, category A), %d cores%n%n| lookups | answer | Redis scripts (EVALSHA + EVAL) | per "
            + "lookup |%n|---|---|---|---|%n", Runtime.getRuntime().availableProcessors());
        run(dict, admin, "back to back, 8 threads", lookups, 8, 0, true);
        run(dict, admin, "back to back, 8 threads", lookups, 8, 0, false);
        run(dict, admin, "one a second", paced, 1, 1000, true);
        run(dict, admin, "one a second", paced, 1, 1000, false);
      } finally {
        redisson.shutdown();
      }
    }
    return 0;
  }

  private void run(DictClient dict, RespConnection admin, String pace, int count, int threads, long paceMs,
      boolean found) throws Exception {
    if (count == 0) {
      return;
    }
    Thread.sleep(1500); // what the last run owes is flushed before counting starts
    long before = admin.scriptCalls();
    AtomicLong next = new AtomicLong();
    AtomicLong answered = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> all = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        all.add(pool.submit(() -> {
          for (long i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
            // a found key: 100 users in turn; an unknown key: a user of its own (5 x 404 spend a user's bucket)
            String user = found ? "user-" + (i % 100) : "scanner-" + i + "-" + System.nanoTime();
            try {
              dict.getEntry(found ? "user" + (i % 1000) + "@example.com" : "none" + i + "@example.com", user);
              answered.incrementAndGet();
            } catch (DictException e) {
              answered.incrementAndGet();
            }
            if (paceMs > 0) {
              Thread.sleep(paceMs);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : all) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    Thread.sleep(1500); // the flush delay: what these lookups owe reaches Redis and is counted
    long scripts = admin.scriptCalls() - before;
    System.out.printf(Locale.ROOT, "| %d, %s | %s | %d | %.3f |%n", answered.get(), pace, found ? "200" : "404",
        scripts, scripts / (double) answered.get());
  }
}
