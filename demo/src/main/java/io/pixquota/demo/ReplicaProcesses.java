package io.pixquota.demo;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts {@code replica} processes: separate JVMs on this JVM's class path, sharing nothing but Redis and the
 * provider. Used by the demo and by the benchmarks.
 */
public final class ReplicaProcesses {
  private ReplicaProcesses() {}

  /** {@code java -cp <this class path> <main> <args...>}. */
  public static List<String> javaCommand(Class<?> main, List<String> args) {
    List<String> command = new ArrayList<>(List.of(System.getProperty("java.home") + File.separator + "bin"
        + File.separator + "java", "-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    return command;
  }

  /** Starts replicas 1..count with {@code replica <args> --replica-id i}; their error output goes to {@code err}. */
  public static List<Process> start(int count, List<String> args, ProcessBuilder.Redirect err) throws IOException {
    List<Process> children = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      List<String> replicaArgs = new ArrayList<>(List.of("replica"));
      replicaArgs.addAll(args);
      replicaArgs.addAll(List.of("--replica-id", Integer.toString(i)));
      children.add(new ProcessBuilder(javaCommand(DemoMain.class, replicaArgs)).redirectError(err).start());
    }
    return children;
  }

  /**
   * Reads a replica's output up to its {@code READY} line (it has set up and waits for GO).
   *
   * @throws IllegalStateException when the replica exits first
   */
  public static void awaitReady(java.io.BufferedReader out) throws IOException {
    String line;
    while ((line = out.readLine()) != null && !line.startsWith("READY")) {
      // still setting up
    }
    if (line == null) {
      throw new IllegalStateException("a replica exited before it was ready");
    }
  }

  /** Tells replicas started with {@code --start-on-stdin} when to fire. */
  public static void go(List<Process> children, long startAtEpochMs) throws IOException {
    for (Process child : children) {
      OutputStream in = child.getOutputStream();
      in.write(("GO " + startAtEpochMs + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    }
  }
}
