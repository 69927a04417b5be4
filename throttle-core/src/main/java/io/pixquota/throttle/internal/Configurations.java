package io.pixquota.throttle.internal;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code token_bucket.lua}'s one pass over a bucket's fields, in Java: the limits' tokens ({@code t:}), the other
 * live configurations ({@code c:}, with their lease ends) and the configurations other live replicas use
 * ({@code r:}), with the script's distrust of each. A part of {@link BucketStep}.
 */
final class Configurations {
  private Configurations() {}

  /**
   * Reads {@code r}'s hash at {@code at}, believing no lease further than {@code maxLeaseMicros}.
   *
   * @param leases       filled: another live configuration's id to its lease end
   * @param ids          filled: the other live configurations' ids
   * @param storedLimits filled: the limits' token fields
   * @param live         filled: the other replicas whose r: field is live
   * @return the configurations another live replica uses
   */
  static Set<String> read(StoredState r, long at, long maxLeaseMicros, String myField, String myReplica,
      Map<String, Double> leases, List<String> ids, List<String> storedLimits, Set<String> live) {
    Set<String> users = new HashSet<>();
    boolean badConfiguration = false;
    boolean badReplica = false;
    for (Map.Entry<String, String> e : r.hash.entrySet()) {
      String field = e.getKey();
      if (field.length() < 2 || field.charAt(1) != ':') {
        continue;
      }
      char first = field.charAt(0);
      if (first == 't') {
        storedLimits.add(field);
      } else if (first == 'c' && !field.equals(myField)) {
        Double endsRead = StoredState.whole(e.getValue());
        String id = field.substring(2);
        if (endsRead == null || !StoredState.validConfiguration(id)) {
          badConfiguration = true;
          r.dead.add(field);
        } else if (endsRead >= at) {
          double ends = endsRead;
          if (endsRead > at + maxLeaseMicros) {
            badConfiguration = true; // a lease longer than the fleet allows, whoever asked for it
            ends = at + maxLeaseMicros;
            r.writes.put(field, Long.toString((long) ends));
          }
          leases.put(id, ends);
          ids.add(id);
        } else {
          r.dead.add(field);
        }
      } else if (first == 'r' && !field.equals(myReplica)) {
        String value = e.getValue();
        String[] v = value.matches("[^/]+/[^/]+") ? value.split("/") : new String[0];
        Double endsRead = v.length == 2 ? StoredState.whole(v[1]) : null;
        if (endsRead == null || !StoredState.validConfiguration(v[0])) {
          badReplica = true;
          r.dead.add(field);
        } else if (endsRead >= at) {
          if (endsRead > at + maxLeaseMicros) {
            badReplica = true;
            r.writes.put(field, v[0] + "/" + (at + maxLeaseMicros));
          }
          users.add(v[0]);
          live.add(field.substring(2));
        } else {
          r.dead.add(field);
        }
      }
    }
    if (badConfiguration) { // named after the pass, c then r, as the script does: a hash has no order
      r.repair("c");
    }
    if (badReplica) {
      r.repair("r");
    }
    return users;
  }

  /**
   * The limits of {@code configurations} (the caller's first), each token field once: field to {capacity, refill};
   * a stored limit no live configuration has is added to {@code dead}.
   */
  static Map<String, double[]> limits(List<String> configurations, List<String> storedLimits, List<String> dead) {
    Map<String, double[]> limits = new LinkedHashMap<>();
    for (String id : configurations) {
      for (String pair : id.split(",")) {
        String[] cr = pair.split(":");
        limits.putIfAbsent("t:" + cr[0] + ":" + cr[1],
            new double[] {Double.parseDouble(cr[0]), Double.parseDouble(cr[1])});
      }
    }
    for (String field : storedLimits) {
      if (!limits.containsKey(field)) {
        dead.add(field);
      }
    }
    return limits;
  }
}
