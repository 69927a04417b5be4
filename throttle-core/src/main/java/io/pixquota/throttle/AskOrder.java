package io.pixquota.throttle;

/**
 * When the call on this thread was asked for: a client marks the moment its caller entered it, before anything that
 * may delay the call on its way to the throttle (its token, its retries, a thread preempted, a virtual thread waiting
 * for a carrier), and the call's booking carries the mark. Thousands of callers that ask at nearly the same time reach
 * the bucket in no particular order; a store that books the calls reaching it together in one step
 * ({@code RedisTokenBucket}) books them in the order of their marks instead, so the calls that meet there leave in
 * the order they were asked. {@code PixClient} marks every call; a service calling the throttle through a client of
 * its own (RestClient, RestTemplate, an OkHttp client) marks its own entry point:
 *
 * <pre>{@code
 * try (AskOrder asked = AskOrder.mark()) {
 *   return restClient.get().uri("/api/v2/pix/{id}", id).retrieve().body(Pix.class);
 * }
 * }</pre>
 *
 * The first mark stands: a client called within another's call keeps the outer mark. A call without one is asked
 * when the throttle books it. A mark is this thread's alone: one thread at a time, closed by the thread that made it.
 */
public final class AskOrder implements AutoCloseable {
  private static final ThreadLocal<AskOrder> CURRENT = new ThreadLocal<>();
  private static final AskOrder INNER = new AskOrder(0); // a mark within another: closing it leaves the outer one

  private final long nanos;

  private AskOrder(long nanos) {
    this.nanos = nanos;
  }

  /** Marks this thread's call as asked now ({@link System#nanoTime()}), unless it is marked already. */
  public static AskOrder mark() {
    if (CURRENT.get() != null) {
      return INNER;
    }
    AskOrder mark = new AskOrder(System.nanoTime());
    CURRENT.set(mark);
    return mark;
  }

  /** Ends the mark: calls this thread books from now on are asked when they are booked (or at their own mark). */
  @Override
  public void close() {
    if (this != INNER && CURRENT.get() == this) {
      CURRENT.remove();
    }
  }

  /** The {@link System#nanoTime()} at which this thread's call was asked: its mark, else now. */
  static long current() {
    AskOrder mark = CURRENT.get();
    return mark != null ? mark.nanos : System.nanoTime();
  }
}
