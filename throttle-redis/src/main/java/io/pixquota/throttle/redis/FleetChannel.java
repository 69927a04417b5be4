package io.pixquota.throttle.redis;

import io.pixquota.throttle.internal.StoredState;
import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.redis.internal.ScriptClient;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's news of one bucket on its channel ({@code <key>:fleet}): a process that cut the rate publishes
 * {@code <epoch>:<generation>} so that every process voids the slots its callers sleep on at once. Anyone who can
 * publish on the channel can send anything, so a message is only a hint: it makes this process read the bucket's state
 * (one round trip, at most one at a time), and only a generation that state confirms, and that the bucket's script
 * would trust, is taken. Garbage, a stale epoch, or a generation the state does not hold change nothing.
 * Threadsafe.
 */
final class FleetChannel {
  private static final Logger LOG = LoggerFactory.getLogger(RedisTokenBucket.class);
  private static final LuaScript STATE = LuaScript.fromResource("bucket_state.lua");

  private final ScriptClient scripts;
  private final String key;
  private final String bucket;
  private final BucketNews news;
  private final long timeoutNanos;
  private final long maxHoldMicros;
  private final LongSupplier nanoClock;
  private final AtomicLong nextSubscribeNanos = new AtomicLong(System.nanoTime());
  private final AtomicBoolean reading = new AtomicBoolean();
  private final AtomicLong wanted = new AtomicLong(); // the highest generation a message claimed, not yet read
  private volatile boolean subscribed;
  private final AtomicInteger reads = new AtomicInteger();
  private final boolean listens;

  FleetChannel(ScriptClient scripts, String key, String bucket, BucketNews news, long timeoutNanos,
      long maxHoldMicros, LongSupplier nanoClock, boolean listens) {
    this.listens = listens;
    this.scripts = scripts;
    this.key = key;
    this.bucket = bucket;
    this.news = news;
    this.timeoutNanos = timeoutNanos;
    this.maxHoldMicros = maxHoldMicros;
    this.nanoClock = nanoClock;
  }

  boolean subscribed() {
    return subscribed;
  }

  /** For tests: how many reads of the state messages have made (each one done). */
  int reads() {
    return reads.get();
  }

  /**
   * Subscribes, without waiting. A failed subscription is tried again 10 s later; meanwhile the news arrives with
   * this process's next reply.
   */
  void subscribe() {
    long next = nextSubscribeNanos.get();
    long now = System.nanoTime();
    if (!listens || subscribed || now - next < 0
        || !nextSubscribeNanos.compareAndSet(next, now + TimeUnit.SECONDS.toNanos(10))) {
      return;
    }
    try {
      scripts.guard().send(() -> scripts.subscribe(key + ":fleet", this::heard))
          .whenComplete((id, failure) -> {
            if (failure == null) {
              subscribed = true;
            } else {
              LOG.debug("Bucket '{}': no subscription to the fleet's news yet ({})", bucket, failure.toString());
            }
          });
    } catch (RuntimeException e) {
      LOG.debug("Bucket '{}': no subscription to the fleet's news yet ({})", bucket, e.toString());
    }
  }

  /** {@code <epoch>:<generation>}: worth a read when it claims a newer generation of the state this process knows. */
  void heard(String message) {
    int colon = message == null ? -1 : message.indexOf(':');
    try {
      long epoch = Long.parseLong(message.substring(0, colon));
      long generation = Long.parseLong(message.substring(colon + 1));
      if (epoch == news.epochs.current() && generation > news.generations.current()) {
        wanted.accumulateAndGet(generation, Math::max);
        read();
      }
    } catch (RuntimeException e) {
      LOG.debug("Bucket '{}': ignored a message on its channel ({})", bucket, e.toString());
    }
  }

  /** Reads the bucket's state, once at a time; a claim heard meanwhile is read again after. */
  private void read() {
    if (!reading.compareAndSet(false, true)) {
      return;
    }
    long claimed = wanted.getAndSet(0);
    STATE.callAsync(scripts, key, new Object[0], timeoutNanos, nanoClock).whenComplete((reply, failure) -> {
      if (failure == null) {
        confirm(reply.text());
      } else {
        LOG.debug("Bucket '{}': could not read its state after a message on its channel ({})", bucket,
            failure.toString());
      }
      reads.incrementAndGet();
      reading.set(false);
      if (wanted.get() > claimed && wanted.get() > news.generations.current()) {
        read();
      }
    });
  }

  /** Takes the generation the state holds, if the script would trust it: the hint is confirmed. */
  private void confirm(String text) {
    String[] parts = text.split(" ");
    long redisNow = Long.parseLong(parts[0]);
    Map<String, String> hash = new HashMap<>();
    for (int i = 1; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq > 0) {
        hash.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
      }
    }
    StoredState read = new StoredState(hash, redisNow, redisNow, maxHoldMicros);
    Long g = read.generation();
    if (!read.isFresh() && read.epoch() == news.epochs.current() && g != null && !read.repaired().contains("g")) {
      news.changes.observe(read.change()); // how the slots of the generation before moved: no round trip each
      news.generationHeard(g);
    }
  }
}
