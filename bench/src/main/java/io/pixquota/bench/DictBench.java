package io.pixquota.bench;

import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.Redissons;
import io.pixquota.harness.RespConnection;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.GroupBucket;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.redis.RedisBucketGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * DICT's per-user buckets at scale, on a private redis-server: Redis memory per idle user bucket ({@code MEMORY USAGE}
 * and {@code used_memory}), a million users touched once and then idle (memory back to the baseline once their
 * buckets are full again), the same million again each earning standing (their keys then live for the standing ttl:
 * memory per user against the users without standing, same run), and decisions per second of a three-bucket decision
 * against a one-bucket decision and a trivial script, in the same run. The round trips of a lookup are
 * {@code bench dict-lookups}.
 */
@Command(name = "dict", mixinStandardHelpOptions = true,
    description = "DICT per-user buckets: memory per bucket, 1M users idle, 3-bucket vs 1-bucket decisions/s.")
final class DictBench implements Callable<Integer> {
  static final GroupBucket PSP = new GroupBucket("ENTRIES_READ_PARTICIPANT_ANTISCAN", Limit.of(50_000,
      25_000 / 60.0));
  static final GroupBucket READ = new GroupBucket("ENTRIES_READ", Limit.of(120_000, 400));
  /** The participant's buckets for the million users: as large as needed, so that every one of them is admitted. */
  static final GroupBucket PSP_ANY = new GroupBucket("ENTRIES_READ_PARTICIPANT_ANTISCAN", Limit.of(1e9, 1e6));
  static final GroupBucket READ_ANY = new GroupBucket("ENTRIES_READ", Limit.of(1e9, 1e6));

  @Option(names = "--users", defaultValue = "1000000", description = "Users touched once (default ${DEFAULT-VALUE}).")
  int users;

  @Option(names = "--seconds", defaultValue = "5", description = "Each throughput phase (default ${DEFAULT-VALUE}).")
  double seconds;

  @Option(names = "--in-flight", defaultValue = "64", description = "Decisions in flight (default ${DEFAULT-VALUE}).")
  int inFlight;

  static GroupBucket user(long n) {
    return new GroupBucket("u:" + String.format("%022d", n), Limit.of(100, 2 / 60.0)); // 22 characters, as the SDK's
  }

  @Override
  public Integer call() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start(); RespConnection admin = redis.rawConnection()) {
      RedissonClient redisson = Redisson.create(Redissons.smallPool(redis.uri().toString()));
      try {
        RedisBucketGroup group = RedisBucketGroup.create(RedissonStore.of(redisson), "dict-12345678", "pixquota:",
            Duration.ofSeconds(10));
        System.out.printf(Locale.ROOT, "bench dict: private redis-server on %s, %d cores%n", redis.uri(),
            Runtime.getRuntime().availableProcessors());
        memory(group, admin);
        throughput(group, redisson);
      } finally {
        redisson.shutdown();
      }
    }
    return 0;
  }

  /** Users touched once, each spending {@code cost} tokens (1: a 200 lookup after its refund, full 30 s later). */
  private void touch(BucketGroup group, long from, long count, double cost) throws Exception {
    touch(group, from, count, cost, 0);
  }

  /** {@link #touch(BucketGroup, long, long, double)}, each user also earning {@code standing}. */
  private void touch(BucketGroup group, long from, long count, double cost, double standing) throws Exception {
    Semaphore window = new Semaphore(inFlight);
    List<CompletableFuture<?>> last = new ArrayList<>();
    for (long n = from; n < from + count; n++) {
      window.acquire();
      CompletableFuture<?> f = group.acquireAsync(List.of(new Take(user(n), cost, 1, false),
          new Take(PSP_ANY, 1, true), new Take(READ_ANY, 1, true)), Duration.ZERO, standing == 0 ? List.of()
          : List.of(new Give(user(n), Give.Kind.EARN, standing)), List.of()).toCompletableFuture()
          .whenComplete((a, e) -> window.release());
      if (n >= from + count - inFlight) {
        last.add(f);
      }
    }
    CompletableFuture.allOf(last.toArray(CompletableFuture[]::new)).join();
    window.acquire(inFlight);
    window.release(inFlight);
  }

  private void memory(RedisBucketGroup group, RespConnection admin) throws Exception {
    touch(group, -1, 1, 1); // the participant's buckets, the script cached: in the baseline
    admin.call("MEMORY", "PURGE");
    long baseline = usedMemory(admin);
    long sample = 10_000;
    touch(group, 0, sample, 1);
    long perKeyUsed = (usedMemory(admin) - baseline) / sample;
    long usage = (Long) admin.call("MEMORY", "USAGE", group.key(user(7).name()), "SAMPLES", "0");
    System.out.printf(Locale.ROOT, "%n| figure | value |%n|---|---|%n");
    System.out.printf(Locale.ROOT, "| MEMORY USAGE of an idle user bucket (key %d bytes) | %d bytes |%n",
        group.key(user(7).name()).length(), usage);
    System.out.printf(Locale.ROOT, "| used_memory per user bucket, %d users | %d bytes |%n", sample, perKeyUsed);
    long start = System.nanoTime();
    touch(group, sample, users - sample, 3); // 3 tokens each: full again 90 s later, after the last is touched
    double touchSeconds = (System.nanoTime() - start) / 1e9;
    long peak = usedMemory(admin);
    System.out.printf(Locale.ROOT, "| %d users touched once (3 tokens each, %.0f decisions/s): user keys, "
        + "used_memory above the baseline | %d keys, %.1f MB (%.0f bytes a user) |%n", users, users / touchSeconds,
        userKeys(admin), (peak - baseline) / 1e6, (peak - baseline) / (double) users);
    long idleFrom = System.nanoTime();
    long keys;
    do {
      Thread.sleep(2000);
      keys = userKeys(admin);
    } while (keys > 0 && System.nanoTime() - idleFrom < 600_000_000_000L);
    admin.call("MEMORY", "PURGE");
    long after = usedMemory(admin);
    System.out.printf(Locale.ROOT, "| idle: every user bucket full again (90 s), its key gone | %d user keys left, "
        + "used_memory %+.2f MB against the baseline, %.0f s after the last touch |%n", keys,
        (after - baseline) / 1e6, (System.nanoTime() - start) / 1e9 - touchSeconds);
    touch(group, sample, users - sample, 3, 5); // the same users again, each earning standing 5
    long withStanding = usedMemory(admin);
    System.out.printf(Locale.ROOT, "| the same %d users, each earning standing 5 (their keys kept %s) | %d keys, "
        + "%.1f MB above the baseline (%.0f bytes a user, %.3f x the users without standing) |%n", users - sample,
        BucketGroup.DEFAULT_STANDING_TTL, userKeys(admin), (withStanding - after) / 1e6,
        (withStanding - after) / (double) (users - sample), (withStanding - after) / (double) (users - sample)
        / ((peak - baseline) / (double) users));
    admin.call("FLUSHALL");
  }

  private void throughput(RedisBucketGroup group, RedissonClient redisson) throws Exception {
    RScript script = redisson.getScript(StringCodec.INSTANCE);
    String trivial = script.scriptLoad("return 1");
    List<Object> key = List.of("pixquota:{dict-12345678}:trivial");
    double[] rates = new double[3];
    for (int round = 0; round < 2; round++) { // the first round warms up
      long[] n = {0};
      rates[0] = rate(() -> script.evalShaAsync(key.get(0).toString(), RScript.Mode.READ_WRITE, trivial,
          RScript.ReturnType.VALUE, key).toCompletableFuture());
      rates[1] = rate(() -> group.acquireAsync(List.of(new Take(user(n[0]++ % 100_000), 1, false)),
          Duration.ZERO, List.of(), List.of()).toCompletableFuture());
      rates[2] = rate(() -> group.acquireAsync(List.of(new Take(user(n[0]++ % 100_000), 1, false),
          new Take(PSP, 0.001, true), new Take(READ, 0.001, true)), Duration.ZERO, List.of(), List.of())
          .toCompletableFuture());
    }
    System.out.printf(Locale.ROOT, "%n| decision (%d in flight, one connection pool, %.0f s each) | decisions/s | "
        + "against the trivial script |%n|---|---|---|%n", inFlight, seconds);
    String[] names = {"trivial script (return 1)", "one bucket (the user's)", "three buckets (user, participant, "
        + "entries read), all or none"};
    for (int i = 0; i < 3; i++) {
      System.out.printf(Locale.ROOT, "| %s | %.0f | %.2f |%n", names[i], rates[i], rates[i] / rates[0]);
    }
    System.out.printf(Locale.ROOT, "%nDICT's own ceiling, ENTRIES_READ 24000/min, is 400 lookups/s per "
        + "participant: the three-bucket decision on one slot has %.0fx headroom.%n", rates[2] / 400);
  }

  /** Decisions per second with {@code inFlight} outstanding, over {@link #seconds}. */
  private double rate(java.util.function.Supplier<CompletableFuture<?>> decision) throws Exception {
    Semaphore window = new Semaphore(inFlight);
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long count = 0;
    long start = System.nanoTime();
    while (System.nanoTime() < end) {
      window.acquire();
      decision.get().whenComplete((v, e) -> window.release());
      count++;
    }
    window.acquire(inFlight);
    window.release(inFlight);
    return count / ((System.nanoTime() - start) / 1e9);
  }

  /** The end users' keys (not the participant's): counted by Redis, so an expired key is not one. */
  private static long userKeys(RespConnection admin) {
    return ((List<?>) admin.call("KEYS", "pixquota:{dict-12345678}:b:u:*")).size();
  }

  private static long usedMemory(RespConnection admin) {
    String info = admin.call("INFO", "memory").toString();
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new IllegalStateException("no used_memory in INFO memory");
  }
}
