package io.pixquota.throttle;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** What is written to System.err (where slf4j-simple logs) while it is open; System.err is restored on close. */
public final class StdErrCapture implements AutoCloseable {
  private final PrintStream original = System.err;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  public StdErrCapture() {
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
  }

  /** Everything written so far. */
  public String text() {
    return captured.toString(StandardCharsets.UTF_8);
  }

  /** How many times {@code fragment} was written. */
  public int count(String fragment) {
    return text().split(Pattern.quote(fragment), -1).length - 1;
  }

  @Override
  public void close() {
    System.setErr(original);
  }
}
