package io.pixquota.bench;

import io.pixquota.harness.RespConnection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the fleet keeps in Redis, by kind of key (a DICT payer's bucket, DICT's participant buckets, API Pix's and the
 * other buckets, permit pools, configuration leases), and Redis's {@code used_memory}: read with {@code SCAN}, on a
 * connection opened for each census (Redis may have been restarted since the last).
 */
final class RedisCensus {
  private RedisCensus() {}

  /** Keys by kind, plus {@code used_memory} (bytes) and {@code keys} (all); {@code -1} each when Redis is down. */
  static Map<String, Long> take(int port) {
    Map<String, Long> out = new TreeMap<>();
    try (RespConnection redis = RespConnection.open("127.0.0.1", port).readTimeout(2_000)) {
      long all = 0;
      String cursor = "0";
      do {
        List<?> reply = (List<?>) redis.call("SCAN", cursor, "COUNT", "1000");
        cursor = text(reply.get(0));
        for (Object key : (List<?>) reply.get(1)) {
          out.merge(kind(text(key)), 1L, Long::sum);
          all++;
        }
      } while (!cursor.equals("0"));
      out.put("keys", all);
      out.put("used_memory", usedMemory(text(redis.call("INFO", "memory"))));
    } catch (RuntimeException down) {
      out.put("keys", -1L);
      out.put("used_memory", -1L);
    }
    return out;
  }

  /** The kind of one of the SDK's keys, read from its name. */
  static String kind(String key) {
    if (key.contains("{dict-")) {
      return key.contains(":b:u:") ? "dict-payer" : key.contains(":c:") ? "dict-credit" : "dict-participant";
    }
    if (key.contains("pool") || key.contains(":permits")) {
      return "pool";
    }
    if (key.contains("config") || key.contains("lease")) {
      return "configuration";
    }
    return "bucket";
  }

  private static long usedMemory(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    return -1;
  }

  private static String text(Object reply) {
    return String.valueOf(reply);
  }
}
