package io.pixquota.demo;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.dict.DictException;
import io.pixquota.bacen.dict.DictNotFoundException;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.bacen.dict.DictRateLimitedException;
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
 * One run of the DICT scenario: two replicas serve honest users (each a few valid keys, paying for what they find:
 * the settlement reaches DICT, then the replica), one of them also a scanner (random keys, mostly 404, two threads
 * at 20 lookups a second each). Direct: each replica calls DICT itself. Through the SDK: each replica is a
 * {@link DictClient} of its own (its own Redis connection and ledger) on one shared mirror. DICT's participant bucket
 * is sampled four times a second for the report.
 */
final class DictRun {
  static final String ISPB = "12345678";
  static final int USERS_PER_REPLICA = 3;

  private final URI dict;
  private final String redisUrl;
  private final DictPolicies table;
  private final long durationMillis;

  DictRun(URI dict, String redisUrl, DictPolicies table, long durationMillis) {
    this.dict = dict;
    this.redisUrl = redisUrl;
    this.table = table;
    this.durationMillis = durationMillis;
  }

  /** A replica's way to look a key up: DICT itself, or a DictClient. */
  interface Lookups extends AutoCloseable {
    /** Outcome of one lookup: 200, 404, or a refusal's kind. */
    String lookup(String key, String user) throws InterruptedException;

    /** The payment of a lookup that found its key settled (DICT already credited it). */
    void settled(String endToEndId);

    @Override
    void close();
  }

  DictResult run(String name, boolean throughSdk) throws Exception {
    DictResult result = new DictResult(name);
    List<Lookups> replicas = new ArrayList<>();
    List<RedissonClient> redissons = new ArrayList<>();
    List<SimpleMeterRegistry> registries = new ArrayList<>();
    String prefix = "dict-demo-" + name + "-" + System.nanoTime() + ":";
    for (int i = 0; i < 2; i++) {
      if (throughSdk) {
        RedissonClient r = RedisAddress.parse(redisUrl).connect(Duration.ofSeconds(2));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DictClient client = DictClient.builder(DictClientConfig.builder().baseUrl(dict).participant(ISPB)
            .payerSecret("the-demo-psp-secret-0001").policies(table).keyPrefix(prefix).build()).redisson(r)
            .meterRegistry(registry).build();
        client.warmUp();
        redissons.add(r);
        registries.add(registry);
        replicas.add(new SdkLookups(client));
      } else {
        replicas.add(new DirectDictLookups(dict, ISPB));
      }
    }
    ExecutorService pool = Executors.newCachedThreadPool();
    AtomicBoolean running = new AtomicBoolean(true);
    long start = System.nanoTime();
    DictSampler sampler = new DictSampler(dict, ISPB, start);
    try {
      pool.submit(() -> sampler.run(running));
      for (int replica = 0; replica < 2; replica++) {
        for (int u = 0; u < USERS_PER_REPLICA; u++) {
          Lookups l = replicas.get(replica);
          int user = replica * USERS_PER_REPLICA + u;
          pool.submit(() -> honest(l, user, running, result));
        }
      }
      for (int t = 0; t < 2; t++) {
        int thread = t;
        pool.submit(() -> scan(replicas.get(0), thread, running, result));
      }
      Thread.sleep(durationMillis);
    } finally {
      running.set(false);
      pool.shutdown();
      pool.awaitTermination(30, TimeUnit.SECONDS);
      for (Lookups l : replicas) {
        l.close();
      }
      redissons.forEach(RedissonClient::shutdown);
    }
    result.samples(sampler.samples());
    result.seconds((System.nanoTime() - start) / 1e9);
    registries.forEach(result::roundTrips);
    return result;
  }

  /** A person: looks a key of theirs up, pays, and a second later the next one. */
  private void honest(Lookups l, int user, AtomicBoolean running, DictResult result) {
    Random r = new Random(user);
    try {
      while (running.get()) {
        String key = "user" + (user * 10 + r.nextInt(3)) + "@example.com";
        String outcome = l.lookup(key, "customer-" + user);
        result.countHonest(outcome);
        Thread.sleep(900 + r.nextInt(200));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A fraudster enumerating keys: random e-mails (one in ten exists), 20 a second per thread. */
  private void scan(Lookups l, int thread, AtomicBoolean running, DictResult result) {
    Random r = new Random(1000 + thread);
    try {
      while (running.get()) {
        String key = r.nextInt(10) == 0 ? "user" + r.nextInt(999) + "@example.com"
            : "scan" + Long.toHexString(r.nextLong() >>> 8) + "@example.com";
        result.countScanner(l.lookup(key, "the-scanner"));
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Through the SDK: the client's exceptions are the outcomes; a found key's payment settles, then is reported. */
  private final class SdkLookups implements Lookups {
    private final DictClient client;

    SdkLookups(DictClient client) {
      this.client = client;
    }

    @Override
    public String lookup(String key, String user) {
      try {
        String e2eid = client.getEntry(key, user).endToEndId();
        DirectDictLookups.settle(dict, ISPB, e2eid); // the payment settles at the SPI: DICT credits it
        settled(e2eid);
        return "200";
      } catch (DictNotFoundException e) {
        return "404";
      } catch (DictUserRefusedException e) {
        return "refused locally";
      } catch (DictRateLimitedException e) {
        return "429 " + (e.policy() == null ? "unknown" : e.policy());
      } catch (DictException e) {
        return "throttled";
      }
    }

    @Override
    public void settled(String endToEndId) {
      client.paymentSettled(endToEndId);
    }

    @Override
    public void close() {
      client.close();
    }
  }
}
