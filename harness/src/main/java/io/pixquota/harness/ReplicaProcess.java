package io.pixquota.harness;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The orchestrator's side of one replica: a separate JVM on this JVM's class path, sharing nothing with its siblings
 * but Redis and the provider, driven by the line protocol of {@link ReplicaProtocol}.
 */
public final class ReplicaProcess implements AutoCloseable {
  private final Process process;
  private final BufferedReader out;

  private ReplicaProcess(Process process) {
    this.process = process;
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** {@code java -cp <this class path> <main> <args...>}. */
  public static List<String> javaCommand(Class<?> main, List<String> args) {
    List<String> command = new ArrayList<>(List.of(System.getProperty("java.home") + File.separator + "bin"
        + File.separator + "java", "-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    return command;
  }

  /** Starts {@code main} with {@code args}; its error output goes to {@code err}. */
  public static ReplicaProcess start(Class<?> main, List<String> args, ProcessBuilder.Redirect err)
      throws IOException {
    return new ReplicaProcess(new ProcessBuilder(javaCommand(main, args)).redirectError(err).start());
  }

  /**
   * Starts {@code main} with {@code args} at the lowest CPU priority ({@code nice -n 19}, where the machine has it):
   * a process that stands for hosts of its own, whose CPU is theirs to burn, beside the ones measured.
   */
  public static ReplicaProcess startNice(Class<?> main, List<String> args, ProcessBuilder.Redirect err)
      throws IOException {
    List<String> command = new ArrayList<>();
    if (new File("/usr/bin/nice").canExecute()) {
      command.addAll(List.of("/usr/bin/nice", "-n", "19"));
    }
    command.addAll(javaCommand(main, args));
    return new ReplicaProcess(new ProcessBuilder(command).redirectError(err).start());
  }

  /**
   * Starts {@code java -jar <jar> <args...>} (another release's runnable jar, say); its error output goes to
   * {@code err}.
   */
  public static ReplicaProcess startJar(String jar, List<String> args, ProcessBuilder.Redirect err)
      throws IOException {
    List<String> command = new ArrayList<>(List.of(System.getProperty("java.home") + File.separator + "bin"
        + File.separator + "java", "-jar", jar));
    command.addAll(args);
    return new ReplicaProcess(new ProcessBuilder(command).redirectError(err).start());
  }

  /**
   * Reads up to the READY line; what the replica prints before it is dropped.
   *
   * @throws IllegalStateException when the replica exits first
   */
  public void awaitReady() throws IOException {
    if (readUntil("READY", line -> { }) == null) {
      throw new IllegalStateException("a replica exited before it was ready (exit code " + exitCode() + ")");
    }
  }

  /** Tells the replica to fire at {@code startAtEpochMs}, with these words. */
  public void go(long startAtEpochMs, String... words) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write(("GO " + startAtEpochMs + (words.length == 0 ? "" : " " + String.join(" ", words)) + "\n")
        .getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /**
   * The JSON of the next RESULT line, handing the lines before it (PROGRESS and the child's own) to {@code other}.
   *
   * @throws IllegalStateException when the replica exits first
   */
  public String result(Consumer<String> other) throws IOException {
    String line = readUntil("RESULT ", other);
    if (line == null) {
      throw new IllegalStateException("a replica exited before its result (exit code " + exitCode() + ")");
    }
    return line.substring("RESULT ".length());
  }

  private String readUntil(String prefix, Consumer<String> other) throws IOException {
    String line;
    while ((line = out.readLine()) != null && !line.startsWith(prefix)) {
      other.accept(line);
    }
    return line;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  private String exitCode() {
    try {
      return process.waitFor(5, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "none yet";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  /**
   * Ends the replica's input, so that it stops, and waits for it (20 s at most, then kills it).
   *
   * @return its exit code
   */
  public int finish() throws InterruptedException {
    try {
      process.getOutputStream().close();
    } catch (IOException alreadyGone) {
      // its input is closed already
    }
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(5, TimeUnit.SECONDS);
    }
    return process.exitValue();
  }

  /** {@code kill -9}: the replica dies at once, holding what it holds (its permits, its connections). */
  public void kill() throws InterruptedException {
    process.destroyForcibly(); // SIGKILL on Linux
    process.waitFor(5, TimeUnit.SECONDS);
  }

  /** Kills the replica if it still runs. */
  @Override
  public void close() {
    process.destroyForcibly();
  }
}
