package io.pixquota.throttle.okhttp;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;

/**
 * Throttled calls that wait for their slot holding no connection and no thread: a {@link Call.Factory} over an
 * {@link OkHttpClient} that has a {@link ThrottlingInterceptor}. {@link Call#enqueue} books the slot with the
 * throttle's {@link io.pixquota.throttle.AsyncBooking} (the bucket's async operation, the wait on the process's one
 * timer thread, the slot checked again when it comes), and only then enqueues the real call on the client;
 * {@link Call#execute} books the same way and parks the calling thread until the slot
 * ({@link io.pixquota.throttle.BlockingBooking}: a virtual thread unmounts), then executes the real call on it. Either
 * way the real call is tagged with its {@link io.pixquota.throttle.Slot}, so that the interceptor checks the slot once
 * more right before the send instead of booking another, and OkHttp takes a connection only for a call whose slot has
 * come: connections follow the calls in flight, not the calls waiting. Blocking calls to a host hold a connection at
 * most {@code maxRequestsPerHost} at once, as the dispatcher runs async ones (read from the client's dispatcher when
 * this factory first calls the host); the rest, their slots come, wait their turn in the order they came, parked and
 * holding no connection (each gives its place back when its {@link okhttp3.Response} is closed, as OkHttp gives the
 * connection back). Size the dispatcher for the calls in flight ({@code maxRequestsPerHost >= rate x response time}),
 * not for the ones waiting: a call that waits for its turn past the late limit books again.
 *
 * <p>The guarantees are the interceptor's: at most one send per call, never before its slot; the same max wait
 * (shortened to the client's call timeout, which also counts the wait); the same meters. {@link Call#cancel} before
 * the send gives the booked tokens back and fails the call with an {@link java.io.InterruptedIOException}, never
 * sending it; so does an interrupt of a thread parked in {@code execute}. A call whose slot came but that ends
 * without being sent on it (its connection could not be made, it was cancelled or timed out at the gate, the client's
 * cache answered it) gives its permit back as it ends, not at the permit's lease. OkHttp's own retry of a call sent on
 * a connection that failed under it (one the provider closed while it sat in the pool) books a slot of its own the
 * same way, holding no connection, at most twice a call. Callbacks run on the client's dispatcher threads, never on
 * the store's I/O threads nor on the timer. This class is threadsafe.
 */
public final class ThrottledCallFactory implements Call.Factory {
  static {
    GatedBody.loadAhead(); // once per JVM, when the first factory is made: not on a first burst's calls
  }

  private final OkHttpClient client;
  private final ThrottlingInterceptor interceptor;
  private final Map<String, WireGate> gates = new ConcurrentHashMap<>();

  private ThrottledCallFactory(OkHttpClient client, ThrottlingInterceptor interceptor) {
    this.client = client;
    this.interceptor = interceptor;
  }

  /**
   * Calls made by {@code client}, which must have a {@link ThrottlingInterceptor} (a network interceptor, as
   * {@code PixClient} adds it, or an application one).
   *
   * @throws IllegalArgumentException when the client has none
   */
  public static ThrottledCallFactory of(OkHttpClient client) {
    Objects.requireNonNull(client, "client cannot be null");
    return new ThrottledCallFactory(client, client.networkInterceptors().stream()
        .filter(ThrottlingInterceptor.class::isInstance).map(ThrottlingInterceptor.class::cast).findFirst()
        .or(() -> client.interceptors().stream().filter(ThrottlingInterceptor.class::isInstance)
            .map(ThrottlingInterceptor.class::cast).findFirst())
        .orElseThrow(() -> new IllegalArgumentException("client has no ThrottlingInterceptor: add one with "
            + "OkHttpClient.Builder.addNetworkInterceptor")));
  }

  /** The gate of {@code host}'s blocking calls, sized by the client's dispatcher when first asked for. */
  WireGate gate(String host) {
    WireGate gate = gates.get(host);
    return gate != null ? gate
        : gates.computeIfAbsent(host, h -> new WireGate(Math.max(1, client.dispatcher().getMaxRequestsPerHost())));
  }

  @Override
  public Call newCall(Request request) {
    return new ThrottledCall(client, interceptor.throttle(), Objects.requireNonNull(request,
        "request cannot be null"), this);
  }
}
