package io.pixquota.bench;

import com.sun.management.UnixOperatingSystemMXBean;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What one replica JVM holds, read the way a leak would show: the heap's old generation after a full collection, live
 * platform threads, open file descriptors, registered meters, and this process's TCP connections to Redis.
 */
final class ReplicaVitals {
  private final MeterRegistry registry;
  private final int redisPort;
  private final Set<String> meterNames = new HashSet<>();

  ReplicaVitals(MeterRegistry registry, int redisPort) {
    this.registry = registry;
    this.redisPort = redisPort;
  }

  /** One sample, after a full collection ({@code System.gc()}: the old generation's collection usage is then fresh). */
  @SuppressWarnings("java:S1215") // a full collection is the point: what survives it is what leaks
  Map<String, Object> sample() {
    System.gc();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("heapAfterGcBytes", oldGenerationAfterGc());
    m.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
    m.put("fds", ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean u
        ? u.getOpenFileDescriptorCount() : -1);
    m.put("meters", meters());
    m.put("redisConnections", connectionsTo(redisPort));
    return m;
  }

  /** The meters registered; a meter new since the last sample is named on the error output. */
  private int meters() {
    Set<String> now = new HashSet<>();
    registry.getMeters().forEach(meter -> now.add(meter.getId().toString()));
    if (!meterNames.isEmpty()) {
      now.stream().filter(n -> !meterNames.contains(n)).sorted().forEach(n -> System.err.println("new meter: " + n));
    }
    meterNames.clear();
    meterNames.addAll(now);
    return now.size();
  }

  /** The old (tenured) generation's usage after its last collection; the whole heap's used bytes without one. */
  static long oldGenerationAfterGc() {
    long sum = 0;
    boolean found = false;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage after = pool.getCollectionUsage();
      String name = pool.getName();
      if (pool.getType() == MemoryType.HEAP && after != null
          && (name.contains("Old") || name.contains("Tenured"))) {
        sum += after.getUsed();
        found = true;
      }
    }
    // G1 may not have collected its old generation yet at the first sample (0): the heap used right after the
    // requested collection stands in
    return found && sum > 0 ? sum : ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** This process's ESTABLISHED TCP connections to {@code port}: its sockets' inodes in the kernel's tables. */
  static int connectionsTo(int port) {
    Set<String> own = new HashSet<>();
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path fd : fds) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            own.add(target.substring("socket:[".length(), target.length() - 1));
          }
        } catch (IOException closedMeanwhile) {
          // the descriptor closed while we listed them
        }
      }
    } catch (IOException e) {
      return -1; // not Linux
    }
    return ConnectionSampler.established(String.format(Locale.ROOT, ":%04X", port), own);
  }
}
