package io.pixquota.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The replica's side of the line protocol with its orchestrator ({@link ReplicaProcess}), over standard input and
 * output:
 * <pre>
 *   child  -&gt; READY &lt;id&gt;                         set up (connections, token, scripts): ready to fire
 *   parent -&gt; GO &lt;epoch ms&gt; [word ...]           fire at that instant; the words say what to run
 *   child  -&gt; PROGRESS &lt;id&gt; &lt;done&gt;/&lt;total&gt;       optional, any number
 *   child  -&gt; RESULT &lt;one line of JSON&gt;          one per GO
 * </pre>
 * Any number of GO lines may follow; end of input means stop. Other output lines are the child's own.
 */
public final class ReplicaProtocol {
  /** One GO line: when to fire, and what. */
  public record Go(long startAtEpochMs, List<String> words) {
    /** {@link System#nanoTime()} at the start instant. */
    public long startNanos() {
      return Sleep.nanoTimeAt(startAtEpochMs);
    }
  }

  private final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
  private final PrintStream out;

  public ReplicaProtocol(PrintStream out) {
    this.out = out;
  }

  /** Says this replica is set up. */
  public void ready(String id) {
    line("READY " + id);
  }

  /**
   * The next GO, or empty at the end of input.
   *
   * @throws IllegalStateException for any other line
   */
  public Optional<Go> next() throws IOException {
    String line = in.readLine();
    if (line == null) {
      return Optional.empty();
    }
    String[] words = line.trim().split(" +");
    if (words.length < 2 || !words[0].equals("GO")) {
      throw new IllegalStateException("expected 'GO <epoch ms> [word ...]' on standard input, got '" + line + "'");
    }
    return Optional.of(new Go(Long.parseLong(words[1]), List.of(Arrays.copyOfRange(words, 2, words.length))));
  }

  public void progress(String id, int done, int total) {
    line("PROGRESS " + id + " " + done + "/" + total);
  }

  public void result(String json) {
    line("RESULT " + json);
  }

  private synchronized void line(String line) {
    out.println(line);
    out.flush();
  }
}
