package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** The rate factors the fleet bench's replicas report: each result's {@code fleet} rows, (nanoTime, factor). */
final class FleetFactors {
  private FleetFactors() {}

  /** The smallest and largest rate factor any replica had in force after {@code sinceNanos}. */
  static double[] range(List<JsonNode> results, long sinceNanos) {
    double min = Double.MAX_VALUE;
    double max = -Double.MAX_VALUE;
    for (JsonNode r : results) {
      double atSince = 1;
      for (JsonNode row : r.get("fleet")) {
        if (row.get(0).asDouble() <= sinceNanos) {
          atSince = row.get(1).asDouble();
        } else {
          min = Math.min(min, row.get(1).asDouble());
          max = Math.max(max, row.get(1).asDouble());
        }
      }
      min = Math.min(min, atSince);
      max = Math.max(max, atSince);
    }
    return new double[] {min, max};
  }
}
