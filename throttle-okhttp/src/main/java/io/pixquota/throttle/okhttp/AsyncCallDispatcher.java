package io.pixquota.throttle.okhttp;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import okhttp3.Dispatcher;

/**
 * An OkHttp {@link Dispatcher} for async calls ({@code enqueue}, {@link ThrottledCallFactory}'s calls) that holds no
 * platform thread for a call in flight where the JDK allows it: on Java 24 and later, where a monitor no longer pins a
 * virtual thread to its carrier (JEP 491), each call runs on a virtual thread of its own; before, on OkHttp's own
 * executor (a platform thread for each call in flight, kept idle a minute after it). OkHttp's I/O is blocking, so a
 * call in flight needs a thread: on platform threads, a burst of calls leaving at once starts as many threads, and
 * OkHttp starts one more each time a finishing call hands its place on to the next. A throttled call's wait holds no
 * thread on either (it waits on the throttle's timer, then enqueues).
 *
 * <p>Give it to a client of your own with {@code new OkHttpClient.Builder().dispatcher(AsyncCallDispatcher.create())}
 * and size it as for any dispatcher ({@code setMaxRequestsPerHost}). {@code PixClient} and {@code DictClient} build
 * their own clients with it. Shut the client down with {@code dispatcher().executorService().shutdown()}.
 */
public final class AsyncCallDispatcher {
  /** The first Java release whose monitors do not pin a virtual thread to its carrier (JEP 491). */
  static final int FIRST_UNPINNED_JAVA = 24;

  private AsyncCallDispatcher() {}

  /** A new dispatcher: a virtual thread per call on Java 24 and later, OkHttp's default executor before. */
  public static Dispatcher create() {
    ExecutorService virtual = virtualThreadPerCall();
    return virtual != null ? new Dispatcher(virtual) : new Dispatcher();
  }

  /** Whether {@link #create} runs calls on virtual threads on this JDK. */
  public static boolean onVirtualThreads() {
    return Runtime.version().feature() >= FIRST_UNPINNED_JAVA;
  }

  /** Java 21's {@code Executors.newVirtualThreadPerTaskExecutor()}, found at run time (this code is Java 17). */
  private static ExecutorService virtualThreadPerCall() {
    if (!onVirtualThreads()) {
      return null;
    }
    try {
      return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Java " + Runtime.version() + " has no virtual-thread executor", e);
    }
  }
}
