package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A gateway closes connections that wait idle: the mock does too, with {@code --idle-timeout-seconds}. The JDK server
 * reads the setting once per JVM, so the mock runs in a JVM of its own (its main, as a user starts it).
 */
class MockIdleTimeoutTest {

  @Test
  void aConnectionIdleForTheTimeoutIsClosedAndABusyOneIsNot() throws Exception {
    Process mock = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), MockMain.class.getName(), "--port", "0", "--idle-timeout-seconds", "2")
        .redirectErrorStream(true).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(mock.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      assertThat(line).startsWith("bacen-mock listening on ");
      URI url = URI.create(line.substring("bacen-mock listening on ".length(), line.indexOf(" (bind")));
      try (Socket idle = new Socket(url.getHost(), url.getPort());
          Socket busy = new Socket(url.getHost(), url.getPort())) {
        idle.setSoTimeout(10_000);
        busy.setSoTimeout(10_000);
        long opened = System.nanoTime();
        // the busy one sends a request every 500 ms for 5 s: more than twice the timeout, never idle that long
        for (int i = 0; i < 10; i++) {
          assertThat(exchange(busy)).startsWith("HTTP/1.1 ");
          Thread.sleep(500);
        }
        // the idle one, accepted and never used, was closed meanwhile: its read ends at once
        long readAt = System.nanoTime();
        assertThat(idle.getInputStream().read()).isEqualTo(-1);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - readAt)).isLessThan(1_000);
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - opened)).isGreaterThanOrEqualTo(2);
        // and one that answered a request is closed once idle for the timeout (2 s, checked every second)
        long lastAnswer = System.nanoTime();
        assertThat(busy.getInputStream().read()).isEqualTo(-1);
        long idleMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastAnswer);
        assertThat(idleMillis).isBetween(1_500L, 6_000L);
      }
    } finally {
      mock.destroy();
      if (!mock.waitFor(10, TimeUnit.SECONDS)) {
        mock.destroyForcibly();
      }
    }
  }

  /** One keep-alive request for a path the mock answers (401 without a token), its whole answer read. */
  private static String exchange(Socket socket) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(("GET /api/v2/pix/x HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed while answering: " + head);
      }
      head.append((char) b);
    }
    int length = 0;
    for (String h : head.toString().split("\r\n")) {
      if (h.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(h.substring(15).trim());
      }
    }
    in.readNBytes(length);
    return head.toString();
  }
}
