package io.pixquota.throttle;

import io.pixquota.throttle.store.UnlimitedBucket;
import io.pixquota.throttle.store.LocalPermitPool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A request that has been sent is at the provider until the provider says otherwise: a call that times out, is
 * cancelled or loses its connection after its send keeps its permit until the provider can no longer be working on it
 * (its send plus the provider's timeout), counted as abandoned meanwhile; one that failed before any byte was written
 * gives it back at once. On a clock the test moves.
 */
class AbandonedPermitTest {
  private final FakeTime time = FakeTime.manual(1_000);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final LocalPermitPool permits = new LocalPermitPool("spi", 1, Duration.ofSeconds(60), time);
  private final Throttle throttle = Throttle.builder(new UnlimitedBucket("spi", time)).rule(null, "/spi/.*", permits)
      .maxWait(Duration.ZERO).providerTimeout(Duration.ofSeconds(10)).timeSource(time).meterRegistry(registry).build();

  /** A send that fails with {@code failure} after it was handed the request, or answers 200. */
  private record Send(IOException failure) implements Exchange<Integer> {
    @Override
    public Integer send() throws IOException {
      if (failure != null) {
        throw failure;
      }
      return 200;
    }

    @Override
    public int status(Integer response) {
      return response;
    }

    @Override
    public String header(Integer response, String name) {
      return null;
    }
  }

  private double gauge(String name) {
    return registry.get(name).tag("pool", "spi").gauge().value();
  }

  @Test
  void aCallThatTimesOutAfterItsSendKeepsItsPermitUntilTheProviderCanNoLongerBeWorkingOnIt() throws Exception {
    assertThatThrownBy(() -> throttle.exchange("POST", "/spi/pay", null, new Send(new SocketTimeoutException(
        "timeout")))).isInstanceOf(SocketTimeoutException.class);
    assertThat(gauge("bacen.throttle.pool.abandoned")).isEqualTo(1);
    assertThat(gauge("bacen.throttle.pool.in.use")).isEqualTo(1);
    assertThatThrownBy(() -> throttle.exchange("POST", "/spi/pay", null, new Send(null)))
        .as("the provider may still be working on the first: no permit").isInstanceOf(ThrottleRefusedException.class);
    time.advance(Duration.ofSeconds(10).minusMillis(1));
    assertThatThrownBy(() -> throttle.exchange("POST", "/spi/pay", null, new Send(null)))
        .as("1 ms before the provider's timeout").isInstanceOf(ThrottleRefusedException.class);
    time.advance(Duration.ofMillis(1));
    assertThat(gauge("bacen.throttle.pool.abandoned")).isZero();
    assertThat(gauge("bacen.throttle.pool.in.use")).isZero();
    assertThat(throttle.exchange("POST", "/spi/pay", null, new Send(null))).as("given back at the provider's timeout")
        .isEqualTo(200);
    assertThat(registry.get("bacen.throttle.pool.releases.late").counter().count()).isZero();
    assertThat(registry.get("bacen.throttle.pool.permits.lost").counter().count()).isZero();
  }

  @Test
  void aCallCancelledOrCutOffAfterItsSendKeepsItsPermitToo() throws Exception {
    for (IOException afterTheSend : List.of(new IOException("Canceled"), new IOException("unexpected end of stream"))) {
      assertThatThrownBy(() -> throttle.exchange("POST", "/spi/pay", null, new Send(afterTheSend)))
          .isSameAs(afterTheSend);
      assertThat(gauge("bacen.throttle.pool.abandoned")).as(afterTheSend.getMessage()).isEqualTo(1);
      time.advance(Duration.ofSeconds(10));
      assertThat(gauge("bacen.throttle.pool.abandoned")).isZero();
    }
  }

  @Test
  void aCallThatNeverReachedTheProviderGivesItsPermitBackAtOnce() throws Exception {
    IOException refused = new IOException("connect failed", new ConnectException("Connection refused"));
    assertThatThrownBy(() -> throttle.exchange("POST", "/spi/pay", null, new Send(refused))).isSameAs(refused);
    assertThat(gauge("bacen.throttle.pool.abandoned")).isZero();
    assertThat(gauge("bacen.throttle.pool.in.use")).isZero();
    assertThat(throttle.exchange("POST", "/spi/pay", null, new Send(null))).as("at once").isEqualTo(200);
  }

  @Test
  void anAnsweredCallGivesItsPermitBackAtOnce() throws Exception {
    assertThat(throttle.exchange("POST", "/spi/pay", null, new Send(null))).isEqualTo(200);
    assertThat(gauge("bacen.throttle.pool.in.use")).isZero();
    assertThat(throttle.exchange("POST", "/spi/pay", null, new Send(null))).isEqualTo(200);
  }

  @Test
  void aRouteWithAPoolNeedsTheProvidersTimeoutAndALeaseThatOutlastsItAndTheMaxWait() {
    assertThatThrownBy(() -> Throttle.builder(new UnlimitedBucket("spi", time)).rule(null, "/spi/.*", permits)
        .maxWait(Duration.ofSeconds(1)).build()).isInstanceOf(IllegalStateException.class)
        .hasMessageEndingWith(" holds permits of pool 'spi', but no providerTimeout was given: how long the "
            + "provider may keep working on a call after it was sent, which a permit must outlast "
            + "(ThrottleBuilder.providerTimeout)");
    LocalPermitPool shortLease = new LocalPermitPool("spi", 6, Duration.ofSeconds(1), time);
    assertThatThrownBy(() -> Throttle.builder(new UnlimitedBucket("spi", time)).defaultPool(shortLease)
        .maxWait(Duration.ofMillis(500)).providerTimeout(Duration.ofSeconds(3)).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("requests no rule matches: pool 'spi' leases its permits for 1000 ms, not longer than the max "
            + "wait 500 ms plus the provider's timeout 3000 ms; a permit is held from the slot's booking until the "
            + "provider can no longer be working on the call, so a shorter lease would let the pool give it to "
            + "another call while the provider still counts it");
  }
}
