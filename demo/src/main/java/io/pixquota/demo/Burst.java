package io.pixquota.demo;

import io.pixquota.bacen.pix.PixException;
import io.pixquota.bacen.pix.PixRateLimitedException;
import io.pixquota.bacen.pix.PixThrottledException;
import io.pixquota.bacen.pix.PixTransportException;
import io.pixquota.harness.LeaveTimes;
import io.pixquota.harness.Sleep;
import io.pixquota.throttle.ThrottleRefusedException;
import java.io.IOException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * A replica's burst: {@code calls} threads that each fire one PIX status query at the same instant (or, with a
 * duration, call back to back until it ends), and a {@link CallRecord} of each query.
 */
final class Burst {
  /** One query by endToEndId; returns the HTTP status or throws the client's exception. */
  @FunctionalInterface
  interface Caller {
    int call(String endToEndId) throws Exception;
  }

  /** One burst's calls, and its start on this machine's monotonic clock (System.nanoTime). */
  record Run(long startNanos, List<CallRecord> records) {}

  private final Caller caller;
  private final LeaveTimes timing;
  private final int calls;
  private final long durationMs;
  private final long paceMs;
  private final int replicaId;
  private final boolean direct;
  private final IntConsumer onDone;
  private final AtomicInteger sequence = new AtomicInteger();

  /**
   * @param durationMs 0: each caller makes one call; else each calls until this long after the start
   * @param paceMs     with a duration: 0, back to back; else each caller calls once every this many ms
   */
  Burst(Caller caller, LeaveTimes timing, int calls, long durationMs, long paceMs, int replicaId, boolean direct,
      IntConsumer onDone) {
    this.caller = caller;
    this.timing = timing;
    this.calls = calls;
    this.durationMs = durationMs;
    this.paceMs = paceMs;
    this.replicaId = replicaId;
    this.direct = direct;
    this.onDone = onDone;
  }

  Run fire(long startAtEpochMs) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(calls);
    AtomicInteger done = new AtomicInteger();
    long startNanos = Sleep.nanoTimeAt(startAtEpochMs);
    long endNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(durationMs);
    String minute = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMddHHmm"));
    List<Future<List<CallRecord>>> futures = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      futures.add(pool.submit(() -> {
        Sleep.until(startNanos);
        List<CallRecord> mine = new ArrayList<>();
        long tick = 0;
        do {
          if (paceMs > 0) {
            long due = startNanos + TimeUnit.MILLISECONDS.toNanos(paceMs * tick++);
            if (tick > 1 && due >= endNanos) {
              break;
            }
            Sleep.until(due);
          }
          // ends in a letter: never in 404, which the mock treats as an unknown Pix
          String id = String.format("E12345678%sR%02dC%06dA", minute, replicaId,
              (System.nanoTime() / 1000 + sequence.incrementAndGet()) % 1_000_000);
          mine.add(one(id, startNanos));
          onDone.accept(done.incrementAndGet());
        } while (durationMs > 0 && System.nanoTime() < endNanos);
        return mine;
      }));
    }
    List<CallRecord> records = new ArrayList<>();
    for (Future<List<CallRecord>> f : futures) {
      records.addAll(f.get());
    }
    pool.shutdown();
    pool.awaitTermination(5, TimeUnit.SECONDS);
    return new Run(startNanos, records);
  }

  private CallRecord one(String id, long startNanos) {
    long t0 = System.nanoTime();
    int status;
    String outcome;
    try {
      status = caller.call(id);
      outcome = CallRecord.outcomeOf(status);
    } catch (PixRateLimitedException e) {
      status = 429;
      outcome = CallRecord.TOO_MANY_REQUESTS;
    } catch (PixThrottledException e) {
      status = 0;
      outcome = e.getCause() instanceof ThrottleRefusedException ? CallRecord.REFUSED_MAX_WAIT
          : CallRecord.BUCKET_UNAVAILABLE;
    } catch (PixTransportException | IOException e) {
      status = 0;
      outcome = CallRecord.TRANSPORT;
    } catch (Exception e) {
      status = e instanceof PixException p ? p.status() : 0;
      outcome = status == 0 ? CallRecord.OTHER : CallRecord.outcomeOf(status);
    }
    long t1 = System.nanoTime();
    Long leftAt = timing.take();
    double waitMs = leftAt == null ? 0 : (leftAt - t0) / 1e6;
    double leftAtMs = ((leftAt == null ? t0 : leftAt) - startNanos) / 1e6;
    return new CallRecord(status, direct ? 0 : waitMs, leftAtMs, (t1 - startNanos) / 1e6, outcome);
  }
}
