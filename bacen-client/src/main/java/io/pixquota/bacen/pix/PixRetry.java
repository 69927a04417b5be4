package io.pixquota.bacen.pix;

import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.pixquota.throttle.AskOrder;
import io.pixquota.throttle.support.Async;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;

/**
 * Runs one API call with retries: 429, 503 and I/O errors, GETs only, each attempt through the bucket again. One
 * resilience4j {@link Retry} per client decides whether and how long to wait (max of the Retry-After the exception
 * carries and a full-jitter backoff); this class adds the total budget (no wait that would end past
 * {@code maxTotal} since the first attempt), waits on the {@link TimeSource}, and records the meters
 * {@code bacen.client.requests} and {@code bacen.client.retries}.
 */
final class PixRetry {
  /** One attempt of a call. */
  @FunctionalInterface
  interface Attempt<T> {
    T run();
  }

  private final Retry retry;
  private final long maxTotalMillis;
  private final TimeSource time;
  private final MeterRegistry registry;

  /**
   * @param random {@code bound -> a random long in [0, bound]}: the backoff's jitter
   */
  PixRetry(RetrySettings config, TimeSource time, MeterRegistry registry, LongUnaryOperator random) {
    this.time = time;
    this.registry = registry;
    this.maxTotalMillis = config.maxTotal().toMillis();
    long initial = config.initialBackoff().toMillis();
    long max = config.maxBackoff().toMillis();
    IntervalBiFunction<Object> interval = (attempt, outcome) -> {
      long cap = Math.min(max, initial << Math.min(attempt - 1, 20));
      long wait = random.applyAsLong(cap);
      Duration retryAfter = outcome.isLeft() && outcome.getLeft() instanceof PixException e
          ? e.retryAfter().orElse(null) : null;
      return retryAfter == null ? wait : Math.max(wait, retryAfter.toMillis());
    };
    this.retry = Retry.of("bacen", RetryConfig.custom().maxAttempts(config.maxAttempts())
        .retryOnException(PixRetry::retriable).intervalBiFunction(interval).build());
  }

  /** 429, 503 and I/O failures, unless the caller was interrupted. */
  private static boolean retriable(Throwable e) {
    return e instanceof PixRateLimitedException
        || (e instanceof PixUnavailableException u && u.status() == 503)
        || (e instanceof PixTransportException && !Thread.currentThread().isInterrupted());
  }

  /**
   * The call's attempts, the call marked as asked now ({@link AskOrder}): its booking keeps its place among the calls
   * asked at nearly the same time, whatever delays its thread before it books (its token, a preemption).
   */
  <T> T call(String operation, Attempt<T> attempt) {
    try (AskOrder asked = AskOrder.mark()) {
      return attempts(operation, attempt);
    }
  }

  private <T> T attempts(String operation, Attempt<T> attempt) {
    Retry.AsyncContext<Object> context = retry.asyncContext();
    long start = time.nanoTime();
    String status = "none";
    String outcome = "success";
    try {
      while (true) {
        try {
          T result = attempt.run();
          context.onComplete();
          status = "200";
          return result;
        } catch (PixException e) {
          long waitMillis = context.onError(e);
          long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(time.nanoTime() - start);
          if (waitMillis < 0 || elapsedMillis + waitMillis > maxTotalMillis) {
            status = e.status() > 0 ? Integer.toString(e.status()) : "none";
            outcome = outcomeOf(e);
            throw e;
          }
          retries(operation).increment();
          backOff(waitMillis, e);
        }
      }
    } catch (RuntimeException e) {
      if (!(e instanceof PixException)) {
        outcome = "error";
      }
      throw e;
    } finally {
      record(operation, start, status, outcome);
    }
  }

  /** One async attempt of a call. */
  @FunctionalInterface
  interface AsyncAttempt<T> {
    CompletableFuture<T> start();
  }

  /**
   * {@link #call} without blocking: the same decisions, the waits between attempts on the {@link TimeSource}'s
   * timer, the same meters. A cancelled {@code result} starts no further attempt.
   */
  <T> CompletableFuture<T> callAsync(String operation, AsyncAttempt<T> attempt) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Retry.AsyncContext<Object> context = retry.asyncContext();
    long start = time.nanoTime();
    try (AskOrder asked = AskOrder.mark()) { // the first attempt books on this thread
      tryAsync(operation, attempt, context, start, result);
    }
    return result;
  }

  private <T> void tryAsync(String operation, AsyncAttempt<T> attempt, Retry.AsyncContext<Object> context,
      long start, CompletableFuture<T> result) {
    if (result.isDone()) {
      return;
    }
    CompletableFuture<T> once;
    try {
      once = attempt.start();
    } catch (RuntimeException e) {
      once = CompletableFuture.failedFuture(e);
    }
    once.whenComplete((value, failure) -> {
      if (failure == null) {
        context.onComplete();
        record(operation, start, "200", "success");
        result.complete(value);
        return;
      }
      Throwable cause = Async.cause(failure);
      if (!(cause instanceof PixException e)) {
        record(operation, start, "none", "error");
        result.completeExceptionally(cause);
        return;
      }
      long waitMillis = context.onError(e);
      long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(time.nanoTime() - start);
      if (waitMillis < 0 || elapsedMillis + waitMillis > maxTotalMillis || result.isDone()) {
        record(operation, start, e.status() > 0 ? Integer.toString(e.status()) : "none", outcomeOf(e));
        result.completeExceptionally(e);
        return;
      }
      retries(operation).increment();
      time.schedule(() -> tryAsync(operation, attempt, context, start, result),
          time.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis));
    });
  }

  private void record(String operation, long start, String status, String outcome) {
    Timer.builder("bacen.client.requests").description("API Pix calls, retries and waits included")
        .tag("operation", operation).tag("status", status).tag("outcome", outcome).register(registry)
        .record(time.nanoTime() - start, TimeUnit.NANOSECONDS);
  }

  private void backOff(long waitMillis, PixException last) {
    long until = time.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
    try {
      time.sleepUntil(until, Long.MAX_VALUE, () -> { });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // an interrupted caller gets the failure it has, at once
      throw last;
    }
  }

  /** Registered up front per operation so that the first retry does not pay for it. */
  Counter retries(String operation) {
    return Counter.builder("bacen.client.retries").description("Retries of provider calls")
        .tag("operation", operation).register(registry);
  }

  /** {@code PixNotFoundException} -> {@code not_found}: the outcome tag of a failure. */
  static String outcomeOf(PixException e) {
    return OUTCOMES.get(e.getClass());
  }

  /** Each exception's outcome tag, worked out once a class: a retry storm's every refusal asks for one. */
  private static final ClassValue<String> OUTCOMES = new ClassValue<>() {
    @Override
    protected String computeValue(Class<?> type) {
      String name = type.getSimpleName().replace("Pix", "").replace("Exception", "");
      return name.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
    }
  };
}
