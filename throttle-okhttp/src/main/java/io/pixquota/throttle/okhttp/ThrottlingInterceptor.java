package io.pixquota.throttle.okhttp;

import io.pixquota.throttle.Exchange;
import io.pixquota.throttle.Flow;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Slot;
import io.pixquota.throttle.SlotMissedException;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRequest;
import io.pixquota.throttle.Unthrottled;
import io.pixquota.throttle.store.TokenBucket;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OkHttp interceptor that lets each request through its {@link Throttle}: the slot is booked and slept for before
 * {@code chain.proceed}, which is called exactly once, and the answer is settled after it. The throttle does the work
 * (routing, booking, waiting, rebooking, 429s, response costs, metrics); this class only reads OkHttp's request and
 * call into a {@link ThrottleRequest}.
 *
 * <p><b>Where to add it.</b> A call must wait for its slot <em>before</em> OkHttp takes a connection: a waiting call
 * must hold no connection to the provider (each one a TLS handshake, capped per client and closed when idle). Two ways:
 * <ul>
 *   <li>as a <em>network</em> interceptor ({@code addNetworkInterceptor}, what {@code PixClient} does), with every call
 *       made by {@link ThrottledCallFactory} ({@code execute} or {@code enqueue}): the factory's call waits for its
 *       slot holding no connection, and this interceptor only checks the slot once the connection is there, booking
 *       again when connection set-up made it late (so a cold start's handshakes cannot make calls bunch). A call made
 *       with the client's own {@code newCall} waits here holding its connection: logged once at WARN;</li>
 *   <li>as an <em>application</em> interceptor ({@code addInterceptor}) on a client used directly: the wait is before
 *       the connection too, and connection set-up happens after it (a cold connection makes its call leave later).</li>
 * </ul>
 *
 * <p>A request's class is its {@link Priority} tag ({@code new Request.Builder().tag(Priority.class, Priority.BATCH)}),
 * a {@code TokenBucket} tag books on that bucket instead of the route's ({@link ThrottleRequest#withBucket}), and an
 * {@link Unthrottled} tag sends it untouched, as is one no quota takes (its host, method and path);
 * else the throttle's default. Its max wait is the throttle's, shortened to what the call's timeout leaves. Failures
 * are the throttle's {@link IOException}s, as OkHttp expects of interceptors; a call cancelled while it waits is never
 * sent, and its tokens are given back.
 *
 * <p><b>Async calls.</b> With {@code client.newCall(request).enqueue()}, the wait happens on an OkHttp dispatcher
 * thread, which holds one of the dispatcher's slots while it parks. To wait without a thread, make the calls with
 * {@link ThrottledCallFactory}: it books and waits on a timer, and enqueues the call only once its slot has come;
 * this interceptor then checks that slot once more instead of booking another. This class is threadsafe.
 */
public final class ThrottlingInterceptor implements Interceptor {
  private static final Logger LOG = LoggerFactory.getLogger(ThrottlingInterceptor.class);
  /**
   * Loaded and initialized with this class, not on a call's path: a slot missed at the network level throws
   * SlotMissedException into OkHttp's retry check, which tests it against classes a plaintext client never loaded,
   * and gathers suppressed failures over Kotlin's empty list; their first loading or initialization, under a lock,
   * was seen pinning a virtual thread to its carrier for 0.4-9 ms (bench async). A name another OkHttp or Kotlin
   * release does not have is left out.
   */
  private static final List<Class<?>> LOADED_AHEAD = loadedAhead(SlotMissedException.class.getName(),
      TransportRetryException.class.getName(),
      "java.net.ProtocolException", "java.net.SocketTimeoutException", "java.io.FileNotFoundException",
      "javax.net.ssl.SSLHandshakeException", "java.security.cert.CertificateException",
      "javax.net.ssl.SSLPeerUnverifiedException", "okhttp3.internal.http2.ConnectionShutdownException",
      "kotlin.collections.EmptyIterator");

  private final Throttle throttle;
  private final AtomicBoolean warnedNetworkWait = new AtomicBoolean();

  private ThrottlingInterceptor(Throttle throttle) {
    this.throttle = throttle;
    // OkHttp 5 reads request tags through Kotlin's reflection, whose classes initialize on first use: do it here,
    // not on a call's path, where a virtual thread would be pinned to its carrier while they load.
    new Request.Builder().url("http://localhost/").build().tag(Slot.class);
    new Request.Builder().url("http://localhost/").build().tag(Priority.class);
    // and OkHttp's failure path adds suppressed exceptions through Kotlin's platform classes (seen pinning a carrier
    // once, at the first failed call on a virtual thread)
    kotlin.ExceptionsKt.addSuppressed(new IOException(), new IOException());
  }

  /** The classes loaded with this one, ahead of any call. */
  static List<Class<?>> loadedAhead() {
    return LOADED_AHEAD;
  }

  private static List<Class<?>> loadedAhead(String... names) {
    List<Class<?>> loaded = new ArrayList<>();
    for (String name : names) {
      try {
        loaded.add(Class.forName(name, true, ThrottlingInterceptor.class.getClassLoader()));
      } catch (ClassNotFoundException e) {
        // another OkHttp or Kotlin release: not on its path
      }
    }
    return List.copyOf(loaded);
  }

  /** The interceptor of {@code throttle}. */
  public static ThrottlingInterceptor of(Throttle throttle) {
    return new ThrottlingInterceptor(Objects.requireNonNull(throttle, "throttle cannot be null"));
  }

  /** The throttle this interceptor lets requests through. */
  public Throttle throttle() {
    return throttle;
  }

  /** The throttle's buckets: {@link Throttle#buckets()}. */
  public List<TokenBucket> buckets() {
    return throttle.buckets();
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    Call call = chain.call();
    OkHttpExchange exchange = new OkHttpExchange(chain);
    Slot slot = request.tag(Slot.class);
    if (slot != null && slot.bookedBy(throttle)) {
      if (slot.claim()) {
        // booked by a ThrottledCallFactory call, which waited without a thread: checked again, not booked again
        return throttle.send(slot, call::isCanceled, exchange);
      }
      if (slot.failedWithoutAnswer()) {
        // OkHttp retries the call sent on it (its connection failed): the factory's call books the retry's slot
        // holding no connection, where a booking here would wait holding this one (a follow-up books below)
        throw new TransportRetryException();
      }
    }
    if (request.tag(Unthrottled.class) != null) {
      return chain.proceed(request); // opted out: untouched
    }
    Flow flow = request.tag(Flow.class);
    ThrottleRequest throttled = new ThrottleRequest(request.method(), request.url().encodedPath(),
        request.tag(Priority.class), maxWait(call), call::isCanceled, request.tag(TokenBucket.class),
        request.url().host(), flow == null ? null : flow.name());
    if (slot == null && chain.connection() != null && throttle.throttles(throttled)
        && warnedNetworkWait.compareAndSet(false, true)) {
      LOG.warn("ThrottlingInterceptor is a network interceptor and this call was not made by ThrottledCallFactory: "
          + "it waits for its slot holding a connection to {} (idle while it waits, which providers close and cap). "
          + "Make the calls with ThrottledCallFactory.of(client).newCall(request) (execute or enqueue), or add the "
          + "interceptor with addInterceptor; logged once", request.url().host());
    }
    return throttle.exchange(throttled, exchange); // no quota takes it: sent untouched
  }

  /**
   * What the call's timeout leaves for the wait; null without one. OkHttp keeps its deadlines on
   * {@link System#nanoTime()}, so they are read on that clock.
   */
  private static Duration maxWait(Call call) {
    long left = Long.MAX_VALUE;
    if (call.timeout().hasDeadline()) {
      left = call.timeout().deadlineNanoTime() - System.nanoTime();
    }
    if (call.timeout().timeoutNanos() > 0) {
      left = Math.min(left, call.timeout().timeoutNanos());
    }
    return left == Long.MAX_VALUE ? null : Duration.ofNanos(Math.max(0, left));
  }

  /** OkHttp's chain as the throttle sends it. */
  private record OkHttpExchange(Chain chain) implements Exchange<Response> {
    @Override
    public Response send() throws IOException {
      return chain.proceed(chain.request());
    }

    @Override
    public int status(Response response) {
      return response.code();
    }

    @Override
    public String header(Response response, String name) {
      return response.header(name);
    }
  }

  @Override
  public String toString() {
    return "ThrottlingInterceptor{" + throttle + "}";
  }
}
