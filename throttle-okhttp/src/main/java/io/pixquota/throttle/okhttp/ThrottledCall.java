package io.pixquota.throttle.okhttp;

import io.pixquota.throttle.AsyncBooking;
import io.pixquota.throttle.BlockingBooking;
import io.pixquota.throttle.Flow;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Slot;
import io.pixquota.throttle.SlotMissedException;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRequest;
import io.pixquota.throttle.Unthrottled;
import io.pixquota.throttle.store.TokenBucket;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okio.Timeout;

/**
 * One call of a {@link ThrottledCallFactory}: what OkHttp's {@link Call} requires (its request, timeout, tags, one
 * execution, cancel), around the throttle's {@link AsyncBooking}, which holds the call's way to its slot. When the slot
 * comes, the client's own call is enqueued ({@link #enqueue}) or executed on the caller's thread, parked until then
 * and, while the host's blocking calls in flight fill its {@link WireGate}, until a place is free ({@link #execute}),
 * with the slot as its tag; when the interceptor finds the slot gone bad before the send
 * ({@link SlotMissedException}), the booking asks again. Threadsafe.
 */
final class ThrottledCall extends TaggedCall {
  private final OkHttpClient client;
  private final Throttle throttle;
  private final Request request;
  private final ThrottledCallFactory factory;
  private final AtomicBoolean executed = new AtomicBoolean();
  private final Timeout timeout = new Timeout();
  private final CallBudget budget = new CallBudget(timeout);
  private volatile boolean canceled;
  private volatile AsyncBooking booking;
  private volatile Callback callback;
  private volatile Thread atGate; // a thread parked at the wire gate, woken by cancel
  private Call real; // guarded by this

  ThrottledCall(OkHttpClient client, Throttle throttle, Request request, ThrottledCallFactory factory) {
    this.client = client;
    this.throttle = throttle;
    this.request = request;
    this.factory = factory;
    long callTimeout = client.callTimeoutMillis();
    if (callTimeout > 0) {
      timeout.timeout(callTimeout, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public Request request() {
    return request;
  }

  /**
   * Books the slot and parks this thread until it has come ({@link BlockingBooking}: no connection, no store
   * connection held meanwhile), then executes the client's own call on it, tagged with the slot so that the
   * interceptor checks it instead of booking another; a slot that connection set-up made late is booked again.
   */
  @Override
  public Response execute() throws IOException {
    if (!executed.compareAndSet(false, true)) {
      throw new IllegalStateException("Already Executed");
    }
    budget.start();
    ThrottleRequest throttled = throttleRequest();
    if (request.tag(Unthrottled.class) != null || !throttle.throttles(throttled)) {
      return execute(client.newCall(request)); // no quota takes it, or it opted out: untouched
    }
    BlockingBooking blocking = BlockingBooking.of(throttle.book(throttled));
    booking = blocking.booking();
    if (canceled) {
      booking.cancel();
    }
    Slot slot = blocking.await();
    WireGate gate = factory.gate(request.url().host());
    while (true) {
      try {
        return GatedBody.of(onSlot(gate, slot), gate); // its place given back with its connection, when closed
      } catch (SlotMissedException missed) {
        slot = blocking.awaitAgain(slot); // nothing was sent: booked again, this thread parked again
      } catch (TransportRetryException retry) {
        blocking = BlockingBooking.of(bookAgain(retry)); // sent, and OkHttp retries it: a slot of its own
        slot = blocking.await();
      }
    }
  }

  /** A booking for OkHttp's retry of a call sent on its slot; cancelled, or too many: the failure it retries. */
  private AsyncBooking bookAgain(TransportRetryException retry) throws IOException {
    if (canceled || !budget.retry()) {
      throw retry.retried();
    }
    AsyncBooking b = throttle.book(throttleRequest());
    booking = b;
    return b;
  }

  /**
   * The client's own call on {@code slot}, once a place at the gate is free; one that ends without being sent on its
   * slot (no place in time, no connection, cancelled first, a cache's answer) gives the slot's permit back now.
   */
  private Response onSlot(WireGate gate, Slot slot) throws IOException {
    boolean in = false;
    try {
      long gateNanos = enter(gate, slot);
      in = true;
      Response response = execute(onSlot(slot, gateNanos));
      slot.ended(null); // nothing, when the interceptor claimed it: it was sent
      return response;
    } catch (IOException | RuntimeException | Error e) {
      if (in) {
        gate.leave();
      }
      slot.ended(e); // nothing, when the interceptor claimed it (a SlotMissedException: the booking asks again)
      throw e;
    }
  }

  /**
   * Takes a place at the host's {@link WireGate}, parked until one is free (holding no connection), within what the
   * call timeout left after the slot's wait; the nanoseconds it waited there.
   */
  private long enter(WireGate gate, Slot slot) throws IOException {
    long start = System.nanoTime();
    long deadline = budget.timed() ? start + Math.max(0, budget.leftNanos(slot, 0)) : Long.MAX_VALUE;
    atGate = Thread.currentThread();
    try {
      return gate.enter(deadline, () -> canceled) ? System.nanoTime() - start : 0;
    } finally {
      atGate = null;
    }
  }

  private Response execute(Call c) throws IOException {
    synchronized (this) {
      real = c;
    }
    if (canceled) {
      c.cancel();
    }
    return c.execute();
  }

  @Override
  public void enqueue(Callback responseCallback) {
    Objects.requireNonNull(responseCallback, "responseCallback cannot be null");
    if (!executed.compareAndSet(false, true)) {
      throw new IllegalStateException("Already Executed");
    }
    callback = responseCallback;
    budget.start();
    if (canceled) { // cancelled before it was enqueued: as OkHttp does, fail it without asking for a slot
      deliverFailure(new IOException("Canceled"));
      return;
    }
    ThrottleRequest throttled = throttleRequest();
    if (request.tag(Unthrottled.class) != null || !throttle.throttles(throttled)) {
      untouched(); // no quota takes it, or it opted out: the client's own call, as it would be without us
      return;
    }
    AsyncBooking b = throttle.book(throttled);
    booking = b;
    b.start(this::due, this::deliverFailure);
  }

  private void untouched() {
    enqueue(client.newCall(request), null);
  }

  /** The throttle's view of the request: its class, bucket and host, what the call timeout left as its max wait. */
  private ThrottleRequest throttleRequest() {
    Flow flow = request.tag(Flow.class);
    return new ThrottleRequest(request.method(), request.url().encodedPath(), request.tag(Priority.class),
        budget.maxWait(), () -> canceled, request.tag(TokenBucket.class), request.url().host(),
        flow == null ? null : flow.name());
  }

  /**
   * The client's own call on {@code slot}, with what the call timeout has left after the wait for the slot and
   * {@code gateNanos} at the gate.
   */
  private Call onSlot(Slot slot, long gateNanos) {
    Call c = client.newCall(request.newBuilder().tag(Slot.class, slot).build());
    if (budget.timed()) {
      c.timeout().timeout(Math.max(1, budget.leftNanos(slot, gateNanos)), TimeUnit.NANOSECONDS);
    }
    return c;
  }

  /** The slot has come (on the timer thread): enqueue the client's own call on it. Nothing here blocks. */
  private void due(Slot slot) {
    enqueue(onSlot(slot, 0), slot);
  }

  /** Enqueues the client's own call {@code c} and relays its end; with a {@code slot}, a missed one asks again. */
  private void enqueue(Call c, Slot slot) {
    synchronized (this) {
      real = c;
    }
    if (canceled) {
      c.cancel();
    }
    c.enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        if (slot != null && e instanceof SlotMissedException && booking.missed(slot)) {
          return; // nothing was sent: the booking asks again, without a thread
        }
        if (slot != null) {
          slot.ended(e); // no connection, or cancelled before its send: its permit goes back now
        }
        if (e instanceof TransportRetryException retry) { // sent, and OkHttp retries it: a slot of its own
          try {
            bookAgain(retry).start(ThrottledCall.this::due, ThrottledCall.this::deliverFailure);
            return;
          } catch (IOException retried) {
            e = retried;
          }
        }
        callback.onFailure(ThrottledCall.this, e);
      }

      @Override
      public void onResponse(Call call, Response response) throws IOException {
        if (slot != null) {
          slot.ended(null); // answered without the interceptor (a cache): nothing was sent on it
        }
        callback.onResponse(ThrottledCall.this, response);
      }
    });
  }

  /**
   * On the client's dispatcher executor, as OkHttp calls back: never on the store's threads nor the timer. A client
   * already shut down (its executor refuses work) gets it on this thread, rather than not at all.
   */
  private void deliverFailure(IOException e) {
    Callback cb = callback;
    try {
      client.dispatcher().executorService().execute(() -> cb.onFailure(this, e));
    } catch (RejectedExecutionException rejected) {
      cb.onFailure(this, e);
    }
  }

  @Override
  public void cancel() {
    canceled = true;
    Thread waiting = atGate;
    if (waiting != null) {
      LockSupport.unpark(waiting);
    }
    AsyncBooking b = booking;
    if (b != null) {
      b.cancel();
    }
    Call r;
    synchronized (this) {
      r = real;
    }
    if (r != null) {
      r.cancel();
    }
  }

  @Override
  public boolean isExecuted() {
    return executed.get();
  }

  @Override
  public boolean isCanceled() {
    return canceled;
  }

  @Override
  public Timeout timeout() {
    return timeout;
  }

  @Override
  public Call clone() {
    return factory.newCall(request);
  }

  @Override
  public String toString() {
    return "ThrottledCall{" + request.method() + " " + request.url().host() + "}"; // a path may hold an id
  }
}
