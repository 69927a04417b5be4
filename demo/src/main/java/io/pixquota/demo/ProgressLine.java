package io.pixquota.demo;

import java.io.Console;
import java.io.PrintStream;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every replica's progress on one line, redrawn in place ({@code \r}) as it moves: on a terminal only, so that piped
 * output and {@code --json} carry results and nothing else. One per run; threadsafe.
 */
final class ProgressLine {
  private final PrintStream out;
  private final String mode;
  private final String of;
  private final boolean shown;
  private final Map<String, Integer> done = new TreeMap<>();
  private boolean drawn;

  /**
   * @param of    what a count is out of, e.g. "/20" for a burst, " calls" for a run of a given length
   * @param shown false: draws nothing ({@code --json}, or not a terminal)
   */
  ProgressLine(PrintStream out, String mode, String of, boolean shown) {
    this.out = out;
    this.mode = mode;
    this.of = of;
    this.shown = shown;
  }

  /** Takes a child's line; a {@code PROGRESS <replica> <done>/<total>} line redraws the progress. */
  synchronized void take(String line) {
    if (!shown || !line.startsWith("PROGRESS ")) {
      return;
    }
    String[] parts = line.split(" ");
    int n = Integer.parseInt(parts[2].split("/")[0]);
    if (n <= done.getOrDefault(parts[1], 0)) {
      return;
    }
    done.put(parts[1], n);
    StringBuilder sb = new StringBuilder("\r  " + mode + ":");
    done.forEach((r, c) -> sb.append("  ").append(r).append(' ').append(c).append(of));
    out.print(sb);
    out.flush();
    drawn = true;
  }

  /** Ends the line, if one was drawn. */
  synchronized void end() {
    if (drawn) {
      out.println();
      drawn = false;
    }
  }

  /**
   * Whether this JVM's output is a terminal. Up to Java 21, {@code System.console()} is null when the output (or
   * input) is piped or redirected; from Java 22 it is a console all the same, and {@code Console.isTerminal()} tells.
   */
  static boolean isTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true; // before Java 22: a console is a terminal
    }
  }
}
