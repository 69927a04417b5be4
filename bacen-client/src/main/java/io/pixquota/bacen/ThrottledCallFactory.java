package io.pixquota.bacen;

import io.pixquota.bacen.internal.Async;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kotlin.jvm.JvmClassMappingKt;
import kotlin.jvm.functions.Function0;
import kotlin.reflect.KClass;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okio.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Throttled calls that wait for their slot without holding a thread: a {@link Call.Factory} over an
 * {@link OkHttpClient} that has a {@link ThrottlingInterceptor}. {@link Call#enqueue} books the slot with the bucket's
 * async operation (one EVALSHA with Redisson's async API for a {@link RedisTokenBucket}), waits for it on the
 * process's one timer thread, checks it again (late, its state lost, its rate cut: then it books again), and only then
 * enqueues the real call on the client, tagged so that the interceptor checks the slot once more right before the
 * send instead of booking another. No thread and no dispatcher slot is held while a call waits: size the dispatcher
 * for the calls in flight ({@code maxRequestsPerHost >= rate x response time}), not for the ones waiting.
 *
 * <p>The guarantees are the interceptor's: at most one send per call, never before its slot; the same max wait
 * (shortened to the client's call timeout, which also counts the wait); the same meters. {@link Call#cancel} before
 * the send gives the booked tokens back and fails the call with an {@link InterruptedIOException}, never sending it.
 * Callbacks run on the client's dispatcher threads, never on Redisson's I/O threads nor on the timer.
 * {@link Call#execute} is the interceptor's blocking path.
 *
 * <p>This class is threadsafe.
 */
public final class ThrottledCallFactory implements Call.Factory {
  private static final Logger LOG = LoggerFactory.getLogger(ThrottledCallFactory.class);

  private final OkHttpClient client;
  private final ThrottlingInterceptor interceptor;

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

  @Override
  public Call newCall(Request request) {
    return new ThrottledCall(Objects.requireNonNull(request, "request cannot be null"));
  }

  /**
   * Where a call is on its way. A call of a class with a horizon is QUEUED until the one of its class before it on
   * the same bucket has booked (or given up), so that one of them asks at a time; DEFERRED waits, holding no slot, to
   * ask again.
   */
  private enum State { NEW, QUEUED, ASKING, DEFERRED, WAITING, SENT, DONE }


  /** One call: booked and waited for without a thread, then the client's own call. */
  private final class ThrottledCall implements Call {
    private final Request request;
    private final AtomicBoolean executed = new AtomicBoolean();
    private final Map<Class<?>, Object> tags = new ConcurrentHashMap<>();
    private final Timeout timeout = new Timeout();
    private volatile boolean canceled;
    private State state = State.NEW; // guarded by this
    private SlotBooking.Booking booking;
    private Callback callback;
    private Future<?> timer;
    private Future<?> queuedUntil; // a QUEUED call's max wait
    private CompletableFuture<Void> turn; // while it asks in its class's line: done passes the turn on
    private Call real;

    ThrottledCall(Request request) {
      this.request = request;
      long callTimeout = client.callTimeoutMillis();
      if (callTimeout > 0) {
        timeout.timeout(callTimeout, TimeUnit.MILLISECONDS);
      }
    }

    @Override
    public Request request() {
      return request;
    }

    @Override
    public Response execute() throws IOException {
      if (!executed.compareAndSet(false, true)) {
        throw new IllegalStateException("Already Executed");
      }
      Call c = client.newCall(request);
      synchronized (this) {
        real = c;
        to(State.SENT);
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
      synchronized (this) {
        callback = responseCallback;
        if (canceled) { // cancelled before it was enqueued: as OkHttp does, fail it without asking for a slot
          to(State.DONE);
          deliverFailure(new IOException("Canceled"));
          return;
        }
        booking = interceptor.booking(request, interceptor.maxWaitWithin(timeout.timeoutNanos()));
        if (booking.horizon != null) {
          state = State.QUEUED;
        } else {
          to(State.ASKING);
        }
      }
      if (booking.horizon != null) {
        queue();
      } else {
        ask();
      }
    }

    /** Sets the state; a call that leaves its class's line (booked, or done) lets the next one ask. */
    private void to(State next) {
      state = next;
      if (turn != null && next != State.ASKING && next != State.DEFERRED) {
        CompletableFuture<Void> mine = turn;
        turn = null;
        mine.complete(null);
      }
    }

    /**
     * Joins its class's line on the bucket: it asks once the call before it has booked or given up, so that one
     * waiting call asks at each free slot, not all of them. Refused if its max wait ends in the line.
     */
    private void queue() {
      AskingLine.Place place = interceptor.slots().line().join(booking.bucket);
      synchronized (this) {
        if (state == State.QUEUED) {
          queuedUntil = interceptor.time().schedule(this::queuedTooLong,
              booking.askedAtNanos() + booking.maxWait.toNanos());
        }
      }
      place.before().whenComplete((ignored, failure) -> takeTurn(place.mine()));
    }

    /** The call before it in line has booked or given up: ask, unless this one gave up meanwhile. */
    private void takeTurn(CompletableFuture<Void> mine) {
      synchronized (this) {
        if (state != State.QUEUED) {
          mine.complete(null); // cancelled or out of time while in line: the next one asks
          return;
        }
        if (queuedUntil != null) {
          queuedUntil.cancel(false);
        }
        turn = mine;
        to(State.ASKING);
      }
      ask();
    }

    /** Its max wait ended while it was in line: refused, never sent, nothing booked. */
    private void queuedTooLong() {
      synchronized (this) {
        if (state != State.QUEUED) {
          return;
        }
        to(State.DONE);
      }
      interceptor.metrics().refused(booking.bucket.name(), booking.priority);
      deliverFailure(ThrottleRefusedException.queuedTooLong(booking.bucket.name(), booking.priority,
          booking.maxWait));
    }

    /** Asks the bucket for a slot without blocking; its answer comes on the store's I/O thread. */
    private void ask() {
      SlotBooking.Booking b;
      synchronized (this) {
        if (state != State.ASKING) {
          return;
        }
        b = booking;
      }
      try {
        b.bucket.acquireAsync(b.cost, b.askWait()).whenComplete(this::answered);
      } catch (RuntimeException e) {
        fail(new IOException("could not ask bucket '" + b.bucket.name() + "' for a slot: " + e.getMessage(), e));
      }
    }

    /** The bucket answered: wait for the slot on the timer, or fail. On the store's thread: nothing here blocks. */
    private void answered(Acquisition a, Throwable failure) {
      if (failure != null) {
        Throwable cause = Async.cause(failure);
        if (cause instanceof BucketUnavailableException) {
          interceptor.metrics().redisError(booking.bucket.name());
        }
        fail(cause instanceof IOException io ? io : new IOException("bucket '" + booking.bucket.name()
            + "' failed: " + cause, cause));
        return;
      }
      synchronized (this) {
        if (state != State.ASKING) {
          return;
        }
        boolean booked;
        try {
          booked = booking.booked(a);
        } catch (ThrottleRefusedException refused) {
          to(State.DONE);
          deliverFailure(refused);
          return;
        }
        if (!booked) { // no slot within its class's horizon: ask again when the bucket said one would be free
          if (canceled) {
            to(State.DONE);
            deliverFailure(new InterruptedIOException("call canceled while waiting to ask for its slot; not sent"));
            return;
          }
          to(State.DEFERRED);
          timer = interceptor.time().schedule(this::askAgain, booking.slotNanos());
          return;
        }
        if (canceled) {
          giveBackAndFail();
          return;
        }
        to(State.WAITING);
        timer = interceptor.time().schedule(this::due, booking.slotNanos());
      }
    }

    /** The time to ask again has come (on the timer thread). */
    private void askAgain() {
      synchronized (this) {
        if (state != State.DEFERRED) {
          return;
        }
        to(State.ASKING);
      }
      ask();
    }

    /** The slot has come (on the timer thread): check it again, then book again or enqueue the real call. */
    private void due() {
      Call c;
      synchronized (this) {
        if (state != State.WAITING) {
          return;
        }
        if (booking.slotNanos() - interceptor.time().nanoTime() > 0) {
          timer = interceptor.time().schedule(this::due, booking.slotNanos()); // woke early
          return;
        }
        try {
          if (booking.mustRebook()) {
            to(State.ASKING);
          }
        } catch (BucketUnavailableException e) {
          to(State.DONE);
          deliverFailure(e);
          return;
        }
        if (state == State.ASKING) {
          c = null;
        } else {
          c = client.newCall(request.newBuilder()
              .tag(ThrottlingInterceptor.Prebooked.class, new ThrottlingInterceptor.Prebooked(interceptor, booking,
                  new AtomicBoolean()))
              .build());
          long left = timeout.timeoutNanos() == 0 ? 0
              : timeout.timeoutNanos() - (interceptor.time().nanoTime() - booking.askedAtNanos());
          if (timeout.timeoutNanos() > 0) {
            c.timeout().timeout(Math.max(1, left), TimeUnit.NANOSECONDS);
          }
          real = c;
          to(State.SENT);
        }
      }
      if (c == null) {
        ask();
        return;
      }
      c.enqueue(new Callback() {
        @Override
        public void onFailure(Call call, IOException e) {
          if (e instanceof ThrottlingInterceptor.SlotMissedException && missed(call)) {
            ask(); // nothing was sent: book again, without a thread
            return;
          }
          callback.onFailure(ThrottledCall.this, e);
        }

        @Override
        public void onResponse(Call call, Response response) throws IOException {
          callback.onResponse(ThrottledCall.this, response);
        }
      });
    }

    /** The real call {@code missed} its slot before the send: back to asking, unless cancelled meanwhile. */
    private synchronized boolean missed(Call missed) {
      if (state != State.SENT || real != missed || canceled) {
        return false;
      }
      real = null;
      to(State.ASKING);
      return true;
    }

    private void fail(IOException e) {
      synchronized (this) {
        if (state == State.DONE || state == State.SENT) {
          return;
        }
        to(State.DONE);
      }
      deliverFailure(e);
    }

    /** Gives the booked tokens back (without waiting for the store) and fails the call as cancelled. */
    private void giveBackAndFail() {
      to(State.DONE);
      SlotBooking.Booking b = booking;
      try {
        b.bucket.refundAsync(b.cost).whenComplete((left, failure) -> {
          if (failure != null) {
            LOG.debug("Bucket '{}': could not give back {} tokens of an unsent call: {}", b.bucket.name(), b.cost,
                Async.cause(failure).toString());
          }
        });
      } catch (RuntimeException e) {
        LOG.debug("Bucket '{}': could not give back {} tokens of an unsent call: {}", b.bucket.name(), b.cost,
            e.toString());
      }
      deliverFailure(new InterruptedIOException("call canceled while waiting for its slot; not sent"));
    }

    /**
     * On the client's dispatcher executor, as OkHttp calls back: never on Redisson's threads nor the timer. A client
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
      Call r;
      synchronized (this) {
        canceled = true;
        r = real;
        if (state == State.WAITING) {
          timer.cancel(false);
          giveBackAndFail();
        } else if (state == State.DEFERRED || state == State.QUEUED) { // nothing booked: nothing to give back
          Future<?> pending = state == State.DEFERRED ? timer : queuedUntil;
          if (pending != null) {
            pending.cancel(false);
          }
          to(State.DONE);
          deliverFailure(new InterruptedIOException("call canceled while waiting to ask for its slot; not sent"));
        }
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
    public <T> T tag(Class<? extends T> type) {
      @SuppressWarnings("unchecked")
      T t = (T) tags.get(type);
      return t;
    }

    @Override
    public <T> T tag(KClass<T> type) {
      return tag(JvmClassMappingKt.getJavaClass(type));
    }

    @Override
    public <T> T tag(Class<T> type, Function0<? extends T> computeIfAbsent) {
      return type.cast(tags.computeIfAbsent(type, k -> computeIfAbsent.invoke()));
    }

    @Override
    public <T> T tag(KClass<T> type, Function0<? extends T> computeIfAbsent) {
      return tag(JvmClassMappingKt.getJavaClass(type), computeIfAbsent);
    }

    @Override
    public Call clone() {
      return newCall(request);
    }

    @Override
    public String toString() {
      return "ThrottledCall{" + request.method() + " " + request.url().host() + "}"; // a path may hold an id
    }
  }
}
