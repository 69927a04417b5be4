package io.pixquota.bench;

import io.pixquota.bacen.dict.DictNotFoundException;
import io.pixquota.bacen.dict.DictRateLimitedException;
import io.pixquota.bacen.dict.DictReserveRefusedException;
import io.pixquota.bacen.dict.DictThrottledException;
import io.pixquota.bacen.dict.DictUserRefusedException;
import io.pixquota.bacen.pix.PixNotFoundException;
import io.pixquota.bacen.pix.PixRateLimitedException;
import io.pixquota.bacen.pix.PixThrottledException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The callers of one endurance replica: threads that call back to back (a pause between calls), or one thread that
 * starts async calls at a rate; each outcome counted by caller kind ({@code pix-person:served}, {@code spi:429},
 * {@code dict-scanner:refused}, {@code pix-batch:PixTransportException}...).
 */
final class EnduranceLoad {
  /** One call; {@code n} counts this kind's calls. */
  interface Call {
    void run(long n) throws Exception;
  }

  /** One async call; {@code n} counts this kind's calls. */
  interface AsyncCall {
    CompletableFuture<?> run(long n);
  }

  private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyyMMddHHmm");

  private final int replicaId;
  private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong ids = new AtomicLong();
  private volatile boolean running = true;

  EnduranceLoad(int replicaId) {
    this.replicaId = replicaId;
  }

  /** {@code count} threads, each calling back to back with {@code pauseMs} between calls. */
  void start(String kind, int count, Call call, long pauseMs) {
    AtomicLong n = new AtomicLong();
    for (int t = 0; t < count; t++) {
      Thread thread = new Thread(() -> {
        while (running) {
          try {
            call.run(n.getAndIncrement());
            count(kind, "served");
          } catch (InterruptedException e) {
            return;
          } catch (Exception e) {
            count(kind, outcome(e));
          }
          if (!pause(pauseMs)) {
            return;
          }
        }
      }, "endurance-" + kind + "-" + t);
      threads.add(thread);
      thread.start();
    }
  }

  /** One thread starting {@code perSecond} async calls a second, evenly spaced. */
  void startAsync(String kind, double perSecond, AsyncCall call) {
    long gapMs = Math.round(1000 / perSecond);
    Thread thread = new Thread(() -> {
      for (long n = 0; running; n++) {
        call.run(n).whenComplete((v, t) -> count(kind, t == null ? "served" : outcome(t)));
        if (!pause(gapMs)) {
          return;
        }
      }
    }, "endurance-" + kind);
    threads.add(thread);
    thread.start();
  }

  private boolean pause(long ms) {
    if (ms <= 0) {
      return running;
    }
    try {
      Thread.sleep(ms);
      return running;
    } catch (InterruptedException e) {
      return false;
    }
  }

  void count(String kind, String outcome) {
    outcomes.computeIfAbsent(kind + ":" + outcome, k -> new LongAdder()).increment();
  }

  /** What a failed call counts as: the provider's 429, the SDK's refusal, an answer (404), or the exception. */
  static String outcome(Throwable t) {
    Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    if (cause instanceof PixRateLimitedException || cause instanceof DictRateLimitedException) {
      return "429";
    }
    if (cause instanceof PixNotFoundException || cause instanceof DictNotFoundException) {
      return "served"; // an answer all the same: the mock knows few of the ids and keys asked
    }
    if (cause instanceof DictReserveRefusedException) {
      return "refused-reserve"; // a payer without standing while the participant's bucket is in its reserve
    }
    if (cause instanceof DictUserRefusedException) {
      return "refused-user"; // the payer's own anti-scan bucket
    }
    if (cause instanceof PixThrottledException p) {
      return "refused-" + p.reason().getClass().getSimpleName().replace("Exception", "");
    }
    if (cause instanceof DictThrottledException) { // no slot within the max wait, or the store did not answer
      return cause.getCause() == null ? "refused-max-wait" : "refused-" + cause.getCause().getClass().getSimpleName();
    }
    return cause.getClass().getSimpleName();
  }

  /** A 32-character endToEndId of this replica, of this minute, unique in the run. */
  String endToEndId(String kind, long n) {
    return String.format("E12345678%s%s%02dC%06dA", LocalDateTime.now(ZoneOffset.UTC).format(MINUTE), kind,
        replicaId, ids.incrementAndGet() % 1_000_000);
  }

  /** The outcomes so far, by {@code kind:outcome}. */
  Map<String, Long> outcomes() {
    Map<String, Long> m = new TreeMap<>();
    outcomes.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }

  void stop() throws InterruptedException {
    running = false;
    for (Thread t : threads) {
      t.interrupt();
    }
    for (Thread t : threads) {
      t.join(10_000);
    }
  }
}
