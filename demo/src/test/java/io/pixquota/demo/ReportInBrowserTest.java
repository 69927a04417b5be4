package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report as a person sees it: rendered by a real browser (Debian's headless Chromium, which .ci/run installs; the
 * test runs in the demo's "browser" profile, which .ci/run turns on),
 * its DOM read back and its pixels counted. The run is made up, so that what must be on the page is known: two
 * replicas, a direct mode with 429s and a throttled one without.
 */
class ReportInBrowserTest {
  private static final int WINDOW_WIDTH = 1300;
  private static Path chromium;

  @TempDir
  Path dir;

  @BeforeAll
  static void findChromium() {
    for (String name : new String[] {"chromium", "chromium-browser", "google-chrome"}) {
      for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
        Path candidate = Path.of(p, name);
        if (Files.isExecutable(candidate)) {
          chromium = candidate;
          return;
        }
      }
    }
    // This test runs only in the "browser" profile (demo/pom.xml), which asks for a browser: none fails it.
    throw new AssertionError("no chromium on the PATH: install Debian's chromium (`apt-get install chromium`; .ci/run "
        + "does), or leave the browser profile off (unset PIXQUOTA_BROWSER_TESTS)");
  }

  /** 20 calls of r1 and r2 in turn, 100 ms apart; in direct mode, all at once and every one after the 10th refused. */
  static Map<String, ModeResult> run() {
    Map<String, ModeResult> results = new LinkedHashMap<>();
    for (String mode : List.of("direct", "throttled")) {
      ModeResult r = new ModeResult(mode);
      List<Map<String, Object>> events = new ArrayList<>();
      for (String replica : List.of("r1", "r2")) {
        List<CallRecord> calls = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          int n = i * 2 + (replica.equals("r1") ? 0 : 1);
          boolean refused = mode.equals("direct") && n >= 10;
          double waitMs = mode.equals("direct") ? 0 : Math.max(0, n - 8) * 111.0;
          calls.add(new CallRecord(refused ? 429 : 200, waitMs, waitMs, waitMs + 20,
              refused ? CallRecord.TOO_MANY_REQUESTS : CallRecord.SERVED));
          long atMicros = 1_000_000L + (mode.equals("direct") ? n * 1_000L : (long) (waitMs * 1000) + n * 10L);
          events.add(Map.of("atMicros", atMicros, "status", refused ? 429 : 200, "replica", replica));
        }
        r.callsByReplica.put(replica, calls);
      }
      r.providerEvents = events;
      r.providerMaxInWindow = mode.equals("direct") ? 10 : 18;
      results.put(mode, r);
    }
    return results;
  }

  private String chromium(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox",
        "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--hide-scrollbars",
        "--user-data-dir=" + dir.resolve("profile")));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(false).redirectError(dir.resolve("err.txt").toFile())
        .start();
    try {
      byte[] out = p.getInputStream().readAllBytes();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("chromium ended within a minute").isTrue();
      return new String(out, StandardCharsets.UTF_8);
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  @Test
  void theBrowserDrawsEveryChartAsWideAsThePageWithItsReading() throws Exception {
    Path html = dir.resolve("report.html");
    Files.writeString(html, Report.html(run(), 8, 9, 2, 10, null, 0));

    String dom = chromium("--dump-dom", html.toUri().toString());
    assertThat(dom).as("the browser parsed six charts").containsPattern("(?s)(<svg.*?){6}");
    assertThat(dom).contains("calls per 100 ms").contains("time since the first arrival at the provider")
        .contains("provider's limit: 10 per second").contains("one lane per replica")
        .contains("the provider refused 10 of our calls with 429 (red)")
        .contains("19 of 19 consecutive arrivals came from a different replica")
        .contains("20 calls: half waited");

    Path png = dir.resolve("report.png");
    chromium("--window-size=" + WINDOW_WIDTH + ",2400", "--screenshot=" + png, html.toUri().toString());
    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(WINDOW_WIDTH);
    Map<Integer, Integer> counts = new HashMap<>();
    int dashedLeft = Integer.MAX_VALUE;
    int dashedRight = -1;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        int rgb = image.getRGB(x, y) & 0xffffff;
        counts.merge(rgb, 1, Integer::sum);
        if (rgb == 0x1a202c && y > 200) {
          dashedLeft = Math.min(dashedLeft, x);
          dashedRight = Math.max(dashedRight, x);
        }
      }
    }
    assertThat(near(counts, 0x2b6cb0)).as("r1's blue bars and ticks").isGreaterThan(500);
    assertThat(near(counts, 0x38a169)).as("r2's green bars and ticks").isGreaterThan(500);
    assertThat(near(counts, 0xe53e3e)).as("the direct run's 429s in red").isGreaterThan(500);
    assertThat(dashedRight - dashedLeft).as("the provider's limit line spans the page: the chart is as wide as it")
        .isGreaterThan(WINDOW_WIDTH * 8 / 10);
  }

  /** Pixels within a small distance of {@code rgb} (antialiasing blends the edges). */
  private static int near(Map<Integer, Integer> counts, int rgb) {
    int sum = 0;
    for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
      int c = e.getKey();
      int d = Math.abs(((c >> 16) & 255) - ((rgb >> 16) & 255)) + Math.abs(((c >> 8) & 255) - ((rgb >> 8) & 255))
          + Math.abs((c & 255) - (rgb & 255));
      if (d <= 12) {
        sum += e.getValue();
      }
    }
    return sum;
  }
}
