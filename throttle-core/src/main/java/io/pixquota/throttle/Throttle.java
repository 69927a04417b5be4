package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.PermitPool;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.pixquota.throttle.support.TimeSource;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The throttle, for any HTTP client: routes a request to its bucket (the most specific {@link ThrottleBuilder#quota
 * quota} or rule that matches it, {@link #routing()}; else the default bucket at cost 1, or untouched without one),
 * books its slot, waits for it, books again when the slot went bad (woken too late, the bucket's state lost, the rate
 * cut by a 429), sends it once through its {@link Exchange}, and settles the answer. No request leaves before its slot.
 *
 * <p>Two ways to wait, one booking (the bucket's async operation, the wait on the process's timer): {@link #exchange}
 * parks the caller's thread until its slot ({@link BlockingBooking}) and sends on it (OkHttp, RestClient);
 * {@link #book} holds no thread: its {@link AsyncBooking} hands over a {@link Slot}, sent with {@link #send} (async
 * clients). Same buckets, line, order, meters and guarantees; a waiting call holds no store connection.
 *
 * <p>Failures are {@link IOException}s: {@link ThrottleRefusedException} when the slot is further than the max wait
 * (the smaller of the configured one and the request's own); {@link BucketUnavailableException} when the bucket cannot
 * be reached and no local fallback takes the call; {@link java.io.InterruptedIOException} when the thread is
 * interrupted or the request cancelled while waiting (the request is never sent, and the booked tokens are given
 * back). This class is threadsafe; build it with {@link #builder}.
 */
public final class Throttle {
  /** Default of {@link ThrottleBuilder#maxWait}: 10 s. */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(10);
  /** Default of {@link ThrottleBuilder#lateLimit}: 50 ms. */
  public static final Duration DEFAULT_LATE_LIMIT = Duration.ofMillis(50);
  /** Default local share of {@link ThrottleBuilder#redisUnavailable}: {@value}. */
  public static final double DEFAULT_LOCAL_SHARE = 0.5;
  /** Default of how often {@link RedisUnavailablePolicy#LOCAL_FALLBACK} asks the store again: 1 s. */
  public static final Duration DEFAULT_LOCAL_RETRY_INTERVAL = Duration.ofSeconds(1);

  private final Routes routes;
  private final List<TokenBucket> buckets;
  private final Duration maxWait;
  private final Priority defaultPriority;
  private final String flow;
  private final Map<Priority, Duration> horizons;
  private final TimeSource time;
  private final ThrottleMetrics metrics;
  private final SlotWaits waits;
  private final Settlement settlement;
  private final ObservationRegistry observations;

  Throttle(ThrottleBuilder.Settings s, Routes routes, List<TokenBucket> buckets, ThrottleMetrics metrics) {
    this.routes = routes;
    this.buckets = List.copyOf(buckets);
    this.maxWait = s.maxWait();
    this.defaultPriority = s.defaultPriority();
    this.flow = s.flow();
    this.horizons = new EnumMap<>(s.horizons()); // the builder's EnumMap: copied even when empty
    this.time = s.time();
    this.metrics = metrics;
    this.waits = new SlotWaits(s.lateLimit(), time, metrics, s.providerTimeout());
    for (PermitPool pool : pools()) {
      metrics.permits().register(pool, waits.holds().register(pool));
    }
    this.settlement = new Settlement(s.assumedJitter(), s.quotaSignal(), s.quotaHeaders(), time, metrics);
    this.observations = s.observations();
  }

  /** A builder whose default bucket takes every request that no rule matches. */
  public static ThrottleBuilder builder(TokenBucket defaultBucket) {
    return new ThrottleBuilder(Objects.requireNonNull(defaultBucket, "defaultBucket cannot be null"));
  }

  /**
   * A builder of named quotas ({@link ThrottleBuilder#quota}) and no default: a request no quota matches is passed
   * through untouched (no store command, no wait, no span, no meter).
   */
  public static ThrottleBuilder builder() {
    return new ThrottleBuilder(null);
  }

  /** Whether a quota, rule or the default route takes this request; an adapter sends one it does not take as is. */
  public boolean throttles(ThrottleRequest request) {
    return routes.route(Objects.requireNonNull(request, "request cannot be null")) != null;
  }

  /**
   * The buckets this throttle books on, as they were given to its builder (the default bucket first, then those of
   * the rules, each once): for warming them up and for showing their state.
   */
  public List<TokenBucket> buckets() {
    return buckets;
  }

  /** The permit pools this throttle's routes hold permits of, each once (none: an empty list). */
  public List<PermitPool> pools() {
    return routes.pools();
  }

  /** Which quota or rule takes which requests, in the order a request tries them: "quota 'pix': host path". */
  public List<String> routing() {
    return routes.describe();
  }

  /**
   * Prepares every bucket's and pool's store now ({@link TokenBucket#preload()}, {@link PermitPool#preload()}), so
   * that the first calls of a burst do not each pay for a script load, a connection or a subscription, and takes a
   * call's way through the engine once (on an in-memory bucket, sending nothing), so that they do not pay for loading
   * it either; throws {@link BucketUnavailableException} when a store does not answer.
   */
  public void preload() throws BucketUnavailableException, InterruptedException {
    try {
      routes.preload(buckets);
    } catch (StoreUnavailableException e) {
      throw BucketUnavailableException.of(e);
    }
    EngineWarmUp.once(time);
  }

  /** The configured max wait. */
  public Duration maxWait() {
    return maxWait;
  }

  /** The class of requests that name none. */
  public Priority defaultPriority() {
    return defaultPriority;
  }

  /** What this process saw of each of its {@link #buckets()}, in the same order; no I/O. */
  public List<BucketStatus> status() {
    return metrics.statuses(buckets, time.nanoTime());
  }

  /**
   * Books the request's slot, sleeps until it (checking for a cancel), calls {@link Exchange#send} once, then settles
   * the answer.
   *
   * @throws ThrottleRefusedException   when the slot is further than the max wait
   * @throws BucketUnavailableException when the bucket cannot be reached and no local fallback takes the call
   * @throws java.io.InterruptedIOException when interrupted or cancelled while waiting (nothing sent, tokens given
   *                                    back)
   * @throws IOException                what {@code send} throws
   */
  public <R> R exchange(ThrottleRequest request, Exchange<R> exchange) throws IOException {
    try {
      return exchangeNow(request, exchange);
    } catch (StoreUnavailableException e) {
      throw BucketUnavailableException.of(e);
    }
  }

  private <R> R exchangeNow(ThrottleRequest request, Exchange<R> exchange) throws IOException {
    Objects.requireNonNull(request, "request cannot be null");
    Objects.requireNonNull(exchange, "exchange cannot be null");
    Route route = routes.route(request);
    if (route == null) {
      return exchange.send(); // no quota takes it: untouched
    }
    // Booked as an async call is, this thread parked until the slot: no store connection held, one wake-up.
    Booking booking = booking(request, route);
    booking.observed = WaitObservation.start(observations, booking, null, time.nanoTime());
    BlockingBooking blocking = BlockingBooking.of(new AsyncBooking(booking, waits));
    Slot slot;
    try (CancelWatch.Watched watched = CancelWatch.watch(request.canceled(), blocking.booking())) {
      slot = blocking.await();
      while (true) {
        try {
          return sendNow(slot, request.canceled(), exchange);
        } catch (SlotMissedException missed) {
          slot = blocking.awaitAgain(slot); // late or gone bad before the send: booked again, nothing sent
        }
      }
    }
  }

  /**
   * {@link #exchange(ThrottleRequest, Exchange)} for a request of this method, encoded path and class (null: the
   * default), with the throttle's max wait; only an interrupt cancels its wait.
   */
  public <R> R exchange(String method, String encodedPath, Priority priority, Exchange<R> exchange)
      throws IOException {
    return exchange(ThrottleRequest.of(method, encodedPath).withPriority(priority), exchange);
  }

  /**
   * A booking of the request's slot that waits for it without a thread: nothing is asked until
   * {@link AsyncBooking#start}. Bad input throws at once.
   */
  public AsyncBooking book(ThrottleRequest request) {
    return book(request, null);
  }

  /**
   * {@link #book(ThrottleRequest)}, its wait observed under {@code parent} (the HTTP client's observation, which an
   * async client keeps in its own context rather than on the thread; null: none).
   */
  public AsyncBooking book(ThrottleRequest request, Observation parent) {
    Route route = routes.route(Objects.requireNonNull(request, "request cannot be null"));
    if (route == null) {
      throw new IllegalArgumentException("no quota takes this request: send it without the throttle (throttles() "
          + "says which requests it takes)");
    }
    Booking booking = booking(request, route);
    booking.observed = WaitObservation.start(observations, booking, parent, time.nanoTime());
    return new AsyncBooking(booking, waits);
  }

  /**
   * Sends a request whose {@link AsyncBooking} has handed over its slot: checks the slot once more (it may have gone
   * bad while the client queued the request), then sends and settles as {@link #exchange} does.
   *
   * @throws SlotMissedException when the slot went bad: nothing was sent; tell the booking ({@link
   *                             AsyncBooking#missed}), which books again
   * @throws IllegalArgumentException for a slot another throttle booked
   */
  public <R> R send(Slot slot, BooleanSupplier canceled, Exchange<R> exchange) throws IOException {
    try {
      return sendNow(slot, canceled, exchange);
    } catch (StoreUnavailableException e) {
      throw BucketUnavailableException.of(e);
    }
  }

  private <R> R sendNow(Slot slot, BooleanSupplier canceled, Exchange<R> exchange) throws IOException {
    Objects.requireNonNull(exchange, "exchange cannot be null");
    Booking booking = leaving(slot);
    boolean missed = false;
    Throwable failure = null;
    try {
      if (booking.checkBeforeLeaving()) {
        // Late (the client queued it), or its state lost or its rate cut since: not sent. The async caller books
        // again without a thread (keeping its permit); sleeping here would hold the client's thread.
        missed = true;
        throw new SlotMissedException(booking.bucket.name());
      }
      return settlement.sleepSendAndSettle(waits, booking, canceled != null ? canceled : () -> false, exchange);
    } catch (IOException | RuntimeException e) {
      failure = e;
      if (!missed) {
        booking.observed.failed(e, time.nanoTime()); // nothing, if it had left on its slot
        slot.sendFailed();
      }
      throw e;
    } finally {
      if (!missed) {
        booking.endPermit(failure);
      }
    }
  }

  /**
   * For a client whose send is itself asynchronous (Reactor's {@code WebClient}): checks the slot an
   * {@link AsyncBooking} handed over and leaves on it now, without blocking or sleeping (the booking hands a slot
   * when it has come). Send the request at once, then report how it ended to the {@link Departure}.
   *
   * @throws SlotMissedException        when the slot went bad (late, its state lost, its rate cut): nothing may be
   *                                    sent; tell the booking ({@link AsyncBooking#missed}), which moves the slot to
   *                                    the new rate or books again
   * @throws BucketUnavailableException never now: a slot gone bad waits again however often it does, within the max
   *                                    wait (kept for callers that catch it)
   * @throws IllegalArgumentException   for a slot another throttle booked
   */
  public Departure depart(Slot slot) throws BucketUnavailableException, SlotMissedException {
    return Departure.leave(leaving(slot), settlement, metrics, time);
  }

  boolean owns(Slot slot) {
    return slot.waits() == waits;
  }

  /** The booking of a slot this throttle booked, leaving now: its place in its {@link LeavingOrder} goes. */
  private Booking leaving(Slot slot) {
    Objects.requireNonNull(slot, "slot cannot be null");
    if (!owns(slot)) {
      throw new IllegalArgumentException("slot was booked by another throttle");
    }
    slot.leaveLine();
    return slot.booking();
  }

  /** A booking, not yet asked for, of the plan the request routes to, in its class. */
  private Booking booking(ThrottleRequest request, Route route) {
    Priority priority = request.priority() != null ? request.priority() : defaultPriority;
    Duration wait = request.maxWait() != null && request.maxWait().compareTo(maxWait) < 0 ? request.maxWait()
        : maxWait;
    return new Booking(route.plan(), request.bucket(), wait, maxWait, priority, horizons.get(priority), waits,
        request.flow() != null ? request.flow() : flow);
  }

  @Override
  public String toString() {
    return "Throttle{buckets=" + buckets.stream().map(TokenBucket::name).toList() + ", maxWait=" + maxWait
        + ", defaultPriority=" + defaultPriority + "}";
  }
}
