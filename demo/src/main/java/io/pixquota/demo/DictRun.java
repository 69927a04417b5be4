package io.pixquota.demo;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.dict.DictException;
import io.pixquota.bacen.dict.DictNotFoundException;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.bacen.dict.DictPolicy;
import io.pixquota.bacen.dict.DictRateLimitedException;
import io.pixquota.bacen.dict.DictReserve;
import io.pixquota.bacen.dict.DictReserveRefusedException;
import io.pixquota.bacen.dict.DictThrottledException;
import io.pixquota.bacen.dict.DictUserRefusedException;
import io.pixquota.throttle.redis.RedisAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.api.RedissonClient;

/**
 * One run of the DICT scenario on two replicas: a payer with standing on each (looking up keys of theirs once a
 * second, after {@code price} found lookups before the run earned them standing), new payers (one a replica every 2 s,
 * each looking up one existing key once), and a scanner on r1 ({@code threads} x 20 random keys a second, one in ten
 * existing, under a new end-user id for every lookup or one id for all). Direct: each replica calls DICT itself.
 * Through the SDK: each replica is a {@link DictClient} of its own (its own Redis connection, ledger and view of
 * refusals) on one shared mirror. DICT's buckets, and the mirror's participant buckets, are full when the run starts.
 */
final class DictRun {
  static final String ISPB = "12345678";

  /** What the run is made of. */
  record Scenario(DictPolicies table, long durationMillis, DictOptions.Scanner scanner, int threads,
      DictReserve reserve, Runnable resetDict) {}

  private final URI dict;
  private final String redisUrl;
  private final Scenario s;

  DictRun(URI dict, String redisUrl, Scenario scenario) {
    this.dict = dict;
    this.redisUrl = redisUrl;
    this.s = scenario;
  }

  /** A replica's way to look a key up: DICT itself, or a DictClient. */
  interface Lookups extends AutoCloseable {
    /** Outcome of one lookup: 200, 404, "429 policy", or "refused: kind" (the mirror's). */
    String lookup(String key, String user) throws InterruptedException;

    @Override
    void close();
  }

  DictResult run(String name, boolean throughSdk) throws Exception {
    DictResult result = new DictResult(name);
    List<Lookups> replicas = new ArrayList<>();
    List<RedissonClient> redissons = new ArrayList<>();
    List<SimpleMeterRegistry> registries = new ArrayList<>();
    String prefix = "dict-demo-" + name + "-" + System.nanoTime() + ":";
    ExecutorService pool = Executors.newCachedThreadPool();
    AtomicBoolean running = new AtomicBoolean(true);
    try {
      for (int i = 0; i < 2; i++) {
        if (throughSdk) {
          RedissonClient r = RedisAddress.parse(redisUrl).connect(Duration.ofSeconds(2));
          redissons.add(r);
          SimpleMeterRegistry registry = new SimpleMeterRegistry();
          DictClient client = DictClient.builder(DictClientConfig.builder().baseUrl(dict).participant(ISPB)
              .payerSecret("the-demo-psp-secret-0001").policies(s.table()).reserve(s.reserve()).keyPrefix(prefix)
              .build()).redisson(r).meterRegistry(registry).build();
          client.warmUp();
          registries.add(registry);
          replicas.add(new SdkLookups(client));
        } else {
          replicas.add(new DirectDictLookups(dict, ISPB));
        }
      }
      earnStanding(replicas);
      s.resetDict().run();
      if (throughSdk) { // the mirror's participant buckets full again, as DICT's: the payers keep their standing
        for (DictPolicy p : s.table().policies()) {
          if (p.scope() == DictPolicy.Scope.PSP) {
            redissons.get(0).getKeys().delete(prefix + "{dict-" + ISPB + "}:b:" + p.name());
          }
        }
      }
      registries.forEach(r -> result.roundTripsBefore(r));
      long start = System.nanoTime();
      DictSampler sampler = new DictSampler(dict, ISPB, start);
      pool.submit(() -> sampler.run(running));
      for (int replica = 0; replica < 2; replica++) {
        Lookups l = replicas.get(replica);
        int r = replica;
        pool.submit(() -> withStanding(l, r, running, result));
        pool.submit(() -> newcomers(l, r, running, result));
      }
      for (int t = 0; t < s.threads(); t++) {
        int thread = t;
        pool.submit(() -> scan(replicas.get(0), thread, running, result));
      }
      Thread.sleep(s.durationMillis());
      running.set(false);
      pool.shutdown();
      pool.awaitTermination(30, TimeUnit.SECONDS);
      result.samples(sampler.samples());
      result.seconds((System.nanoTime() - start) / 1e9);
      registries.forEach(result::roundTrips);
    } finally {
      running.set(false);
      pool.shutdownNow();
      replicas.forEach(Lookups::close);
      redissons.forEach(RedissonClient::shutdown);
    }
    return result;
  }

  /** Before the run: each replica's payer looks up {@code price} keys of theirs, which earns them standing. */
  private void earnStanding(List<Lookups> replicas) throws InterruptedException {
    int price = s.reserve().pricedFor(s.table()).price();
    for (int replica = 0; replica < 2; replica++) {
      for (int i = 0; i < price; i++) {
        replicas.get(replica).lookup(key(replica, i), customer(replica));
      }
    }
  }

  private static String customer(int replica) {
    return "customer-" + replica;
  }

  private static String key(int replica, int k) {
    return "user" + (replica * 10 + k % 3) + "@example.com";
  }

  /** A person with standing: a key of theirs, a second later the next. */
  private void withStanding(Lookups l, int replica, AtomicBoolean running, DictResult result) {
    Random r = new Random(replica);
    try {
      while (running.get()) {
        result.record("standing", l.lookup(key(replica, r.nextInt(3)), customer(replica)));
        Thread.sleep(900 + r.nextInt(200));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** People the participant has not seen: one every 2 s on each replica, one existing key each. */
  private void newcomers(Lookups l, int replica, AtomicBoolean running, DictResult result) {
    Random r = new Random(100 + replica);
    try {
      for (int n = 0; running.get(); n++) {
        Thread.sleep(1_800 + r.nextInt(400));
        result.record("new", l.lookup("user" + (100 + r.nextInt(900)) + "@example.com",
            "newcomer-" + replica + "-" + n));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A fraudster enumerating keys: random e-mails (one in ten exists), 20 a second per thread. */
  private void scan(Lookups l, int thread, AtomicBoolean running, DictResult result) {
    Random r = new Random(1000 + thread);
    try {
      for (long n = 0; running.get(); n++) {
        String key = r.nextInt(10) == 0 ? "user" + r.nextInt(999) + "@example.com"
            : "scan" + Long.toHexString(r.nextLong() >>> 8) + "@example.com";
        String who = s.scanner() == DictOptions.Scanner.ROTATE ? "scanner-" + thread + "-" + n : "the-scanner";
        result.record("scanner", l.lookup(key, who));
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Through the SDK: the client's exceptions are the outcomes. */
  private static final class SdkLookups implements Lookups {
    private final DictClient client;

    SdkLookups(DictClient client) {
      this.client = client;
    }

    @Override
    public String lookup(String key, String user) {
      try {
        client.getEntry(key, user);
        return "200";
      } catch (DictNotFoundException e) {
        return "404";
      } catch (DictUserRefusedException e) {
        return "refused: user";
      } catch (DictReserveRefusedException e) {
        return "refused: reserve";
      } catch (DictThrottledException e) {
        return "refused: participant";
      } catch (DictRateLimitedException e) {
        return "429 " + (e.policy() == null ? "unknown" : e.policy());
      } catch (DictException e) {
        return "failed";
      }
    }

    @Override
    public void close() {
      client.close();
    }
  }
}
