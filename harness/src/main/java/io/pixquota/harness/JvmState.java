package io.pixquota.harness;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/** Live threads and the heap used right after a full GC: what a leak would grow. */
public final class JvmState {
  private JvmState() {}

  /** {@code {"threads": n, "heapAfterGcBytes": n}}, after a full GC. */
  public static Map<String, Object> snapshot() {
    System.gc();
    Map<String, Object> state = new LinkedHashMap<>();
    state.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
    state.put("heapAfterGcBytes", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    return state;
  }
}
