package com.example.pixstatus;

import static org.assertj.core.api.Assertions.assertThat;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The wait in a trace: with a tracing bridge (Brave) on the class path, a request that waits for quota has a
 * "waiting for quota" span under its server span, as long as the wait, tagged with its bucket and outcome. Spans are
 * kept in memory by a {@link SpanHandler} of the test's.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    // Spring Boot's tests switch tracing off by default; this test is about it (Boot 3 and Boot 4 names)
    "management.tracing.enabled=true", "management.tracing.export.enabled=true",
    "management.tracing.sampling.probability=1.0"})
@Import(WaitSpanTest.Spans.class)
class WaitSpanTest {
  private static final TestProvider PROVIDER = TestProvider.start();
  private static final String BUCKET = "pix"; // the quota's, in application.yml

  /** Every finished span, in memory. */
  @TestConfiguration(proxyBeanMethods = false)
  static class Spans {
    @Bean
    Queue<MutableSpan> finishedSpans() {
      return new ConcurrentLinkedQueue<>();
    }

    @Bean
    SpanHandler keepSpans(Queue<MutableSpan> finishedSpans) {
      return new SpanHandler() {
        @Override
        public boolean end(TraceContext context, MutableSpan span, Cause cause) {
          finishedSpans.add(span);
          return true;
        }
      };
    }
  }

  @Autowired
  private Queue<MutableSpan> spans;

  @Value("${local.server.port}")
  private int port;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    PROVIDER.register(registry, "traced-" + System.nanoTime() + ":");
  }

  @AfterAll
  static void stop() {
    PROVIDER.close();
  }

  @Test
  void aThrottledRequestsTraceHoldsItsWaitSpan() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
    for (int i = 0; i < 20; i++) { // beyond the planned burst: the last ones wait for their slots
      burst.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + port
          + "/pix/" + String.format("E12345678202611301200ABCDEF%05d", i))).timeout(Duration.ofSeconds(30))
          .build(), HttpResponse.BodyHandlers.ofString()));
    }
    burst.forEach(f -> assertThat(f.join().statusCode()).isEqualTo(200));
    List<MutableSpan> waits = spans.stream().filter(s -> "waiting for quota".equals(s.name())).toList();
    assertThat(waits).as("one wait span per call (and per retry)").hasSizeGreaterThanOrEqualTo(20);
    MutableSpan longest = waits.stream().max((a, b) -> Long.compare(a.finishTimestamp() - a.startTimestamp(),
        b.finishTimestamp() - b.startTimestamp())).orElseThrow();
    long spanMs = (longest.finishTimestamp() - longest.startTimestamp()) / 1000;
    System.out.printf("%d wait spans; the longest %d ms (wait.ms=%s), under span '%s'%n", waits.size(), spanMs,
        longest.tag("wait.ms"), longest.parentId());
    assertThat(spanMs).as("the longest wait: 20 calls at a planned rate under 10/s, past its burst")
        .isGreaterThan(200);
    // the tag is the throttle's own reading of the wait, the span's duration the observation's start and stop: the
    // same wait read on two threads' clocks, each a hand-off away from the other (CI, both cores busy: 7 ms apart)
    assertThat(Long.parseLong(longest.tag("wait.ms"))).as("its tag agrees with its duration")
        .isBetween(spanMs - 25, spanMs + 25);
    assertThat(longest.tag("bucket")).isEqualTo(BUCKET);
    assertThat(longest.tag("outcome")).isEqualTo("granted");
    MutableSpan parent = spans.stream().filter(s -> longest.parentId() != null && longest.parentId().equals(s.id()))
        .findFirst().orElseThrow(() -> new AssertionError("no parent span among " + spans.size()));
    assertThat(parent.traceId()).isEqualTo(longest.traceId());
    assertThat(parent.name()).as("the request's own server span").contains("/pix/");
  }
}
