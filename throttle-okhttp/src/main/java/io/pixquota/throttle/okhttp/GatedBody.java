package io.pixquota.throttle.okhttp;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;
import okio.ForwardingSource;
import okio.Okio;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A blocking call's answer body that gives its {@link WireGate} place back when it is closed (the response, the body
 * or its source, as {@code string()} does): OkHttp gives the call's connection back then, not when {@code execute}
 * returns, so the place follows the connection. A body never closed (a caller's leak, which OkHttp reports too) gives
 * its place back once it is collected, logged at WARN once, so that a leak cannot close the gate for good.
 */
final class GatedBody extends ResponseBody {
  private static final Logger LOG = LoggerFactory.getLogger(GatedBody.class);
  private static final Cleaner LEAKS = Cleaner.create(r -> {
    Thread t = new Thread(r, "pixquota-leaked-bodies");
    t.setDaemon(true);
    return t;
  });
  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private final ResponseBody body;
  private final Place place;
  private final Cleaner.Cleanable cleanable;
  private BufferedSource source; // the caller's thread reads a body, as OkHttp's own

  private GatedBody(ResponseBody body, Place place) {
    this.body = body;
    this.place = place;
    this.cleanable = LEAKS.register(this, place::leaked);
  }

  /**
   * Loads and initializes what a blocking call's way through the gate uses (this class, its cleaner's thread, the
   * gate, okio's forwarding source), so that a service's first burst does not: their first loading was seen making a
   * call of the demo's first burst leave past the late limit and book again.
   */
  static void loadAhead() {
    WireGate gate = new WireGate(1);
    Response r = new Response.Builder().request(new Request.Builder().url("http://localhost/").build())
        .protocol(Protocol.HTTP_1_1).code(200).message("OK").body(ResponseBody.create("", null)).build();
    try {
      gate.enter(Long.MAX_VALUE, () -> false);
    } catch (InterruptedIOException e) {
      Thread.currentThread().interrupt();
      return;
    }
    try (Response gated = of(r, gate)) {
      gated.body().source().close();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // an empty body in memory
    }
  }

  /** {@code response} with its body in place of the gate's place taken; the place given back on close. */
  static Response of(Response response, WireGate gate) {
    return response.newBuilder().body(new GatedBody(response.body(), new Place(gate))).build();
  }

  @Override
  public MediaType contentType() {
    return body.contentType();
  }

  @Override
  public long contentLength() {
    return body.contentLength();
  }

  @Override
  public BufferedSource source() {
    if (source == null) {
      source = Okio.buffer(new ForwardingSource(body.source()) {
        @Override
        public void close() throws IOException {
          try {
            super.close();
          } finally {
            closed();
          }
        }
      });
    }
    return source;
  }

  @Override
  public void close() {
    try {
      body.close();
    } finally {
      closed();
    }
  }

  private void closed() {
    place.run(); // once: the place given back
    cleanable.clean(); // the cleaner's hold dropped; its action finds the place given back
  }

  /** The place, given back once: on close, or by the cleaner after a leak. Holds nothing of the body. */
  private static final class Place implements Runnable {
    private final WireGate gate;
    private final AtomicBoolean closed = new AtomicBoolean();

    Place(WireGate gate) {
      this.gate = gate;
    }

    @Override
    public void run() {
      if (closed.compareAndSet(false, true)) {
        gate.leave();
      }
    }

    void leaked() {
      if (!closed.get() && WARNED.compareAndSet(false, true)) {
        LOG.warn("A response of ThrottledCallFactory's execute was never closed: its place among the calls to its host "
            + "in flight at once was held until it was collected. Close every Response (try-with-resources); "
            + "logged once");
      }
      run();
    }
  }
}
