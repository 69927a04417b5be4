package io.pixquota.mock;

import io.pixquota.mock.DictPolicies.Policy;
import io.pixquota.mock.DictPolicies.Scope;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The judge's DICT buckets and audit: per participant, one bucket per PSP-scope policy and one per payer and
 * USER-scope policy, each refilled continuously and charged after the answer (it may go below zero: the answer's cost
 * is owed); a lookup is refused with 429 when any of its buckets holds less than one token, and the refusal is
 * charged as its counting says. Lookups are remembered by
 * end-to-end id for the settlement's credit, given once. Threadsafe: one lock, the mock's scale.
 */
final class DictState {
  /** A lookup's outcome, and what its answer's headers say. */
  record Outcome(int status, Map<String, String> headers) {}

  private static final class Bucket {
    final double capacity;
    final double perNano;
    double tokens;
    long lastNanos;

    Bucket(double capacity, double perSecond, long now) {
      this.capacity = capacity;
      this.perNano = perSecond / 1e9;
      this.tokens = capacity;
      this.lastNanos = now;
    }

    double tokens(long now) {
      tokens = Math.min(capacity, tokens + perNano * (now - lastNanos));
      lastNanos = now;
      return tokens;
    }

    /** Seconds until the next whole token, rounded up; 0 when full. */
    long resetSeconds(long now) {
      double t = tokens(now);
      if (t >= capacity) {
        return 0;
      }
      double toNext = (Math.floor(t) + 1 - t) / perNano;
      return (long) Math.ceil(toNext / 1e9);
    }
  }

  /** A lookup kept for its payment's credit. */
  private record Lookup(String participant, String payer, boolean legal, List<Policy> policies) {}

  private DictPolicies table;
  private final Map<String, Bucket> buckets = new LinkedHashMap<>();
  private final Map<String, Lookup> lookups = new ConcurrentHashMap<>();
  /** participant|policy -> tokens charged, 429s, tokens credited. */
  private final Map<String, long[]> byPolicy = new LinkedHashMap<>();
  private final Map<String, long[]> byPayer = new LinkedHashMap<>(); // participant|payer -> lookups, 404s, 429s

  DictState(DictPolicies table) {
    this.table = table;
  }

  synchronized DictPolicies table() {
    return table;
  }

  /**
   * DICT moves the participant to another category (the later counting only): its anti-scan bucket takes the new
   * size at once, keeping the tokens it holds up to the new capacity; {@code GET /policies} answers the new size.
   *
   * @throws IllegalArgumentException for a category outside A..H, or a table that is not the later counting
   */
  synchronized void recategorize(char category) {
    if (!table.counting().equals("later")) {
      throw new IllegalArgumentException("only the later counting has categories, but the table is " + table);
    }
    DictPolicies next = DictPolicies.later(category);
    Policy p = next.policy(DictPolicies.PARTICIPANT_ANTISCAN);
    long now = System.nanoTime();
    buckets.replaceAll((key, b) -> {
      if (!key.endsWith("|" + p.name())) {
        return b;
      }
      Bucket resized = new Bucket(p.capacity(false), p.ratePerSecond(false), now);
      resized.tokens = Math.min(b.tokens(now), resized.capacity);
      return resized;
    });
    table = next;
  }

  /**
   * Decides a lookup: 429 when a bucket of one of its policies is empty; else {@code answer}'s status. Each policy is
   * charged by its counting rule, and a 200 kept for the credit.
   */
  synchronized Outcome lookup(String participant, String payer, boolean legal, String keyType, String e2eid,
      java.util.function.IntSupplier answer) {
    long now = System.nanoTime();
    List<Policy> applying = new ArrayList<>();
    for (Policy p : table.policies()) { // table: synchronized with recategorize
      if (p.applies(keyType)) {
        applying.add(p);
      }
    }
    long[] payerCounts = byPayer.computeIfAbsent(participant + "|" + payer, k -> new long[3]);
    payerCounts[0]++;
    boolean empty = false;
    for (Policy p : applying) {
      if (bucket(participant, payer, legal, p, now).tokens(now) < 1) {
        counts(participant, p)[1]++;
        empty = true;
      }
    }
    int status = empty ? 429 : answer.getAsInt();
    payerCounts[1] += status == 404 ? 1 : 0;
    payerCounts[2] += status == 429 ? 1 : 0;
    for (Policy p : applying) { // a refusal too costs what its counting says
      double cost = p.cost(status);
      bucket(participant, payer, legal, p, now).tokens -= cost;
      counts(participant, p)[0] += (long) cost;
    }
    if (status == 200 && e2eid != null) {
      lookups.putIfAbsent(e2eid, new Lookup(participant, payer, legal, applying));
    }
    return new Outcome(status, headers(participant, payer, legal, applying, now));
  }

  /** The settlement of the lookup's payment: its credit, once. False when no such lookup, or credited already. */
  synchronized boolean settle(String e2eid) {
    Lookup l = lookups.remove(e2eid);
    if (l == null) {
      return false;
    }
    long now = System.nanoTime();
    for (Policy p : l.policies()) {
      double credit = p.credit(l.legal());
      if (credit > 0) {
        Bucket b = bucket(l.participant(), l.payer(), l.legal(), p, now);
        b.tokens = Math.min(b.capacity, b.tokens(now) + credit);
        counts(l.participant(), p)[2] += (long) credit;
      }
    }
    return true;
  }

  /** A PSP-scope policy's bucket now: {available tokens, capacity}. */
  synchronized double[] state(String participant, Policy p) {
    long now = System.nanoTime();
    Bucket b = bucket(participant, null, false, p, now);
    return new double[] {Math.floor(b.tokens(now)), b.capacity};
  }

  private Map<String, String> headers(String participant, String payer, boolean legal, List<Policy> applying,
      long now) {
    Map<String, String> h = new LinkedHashMap<>();
    Policy psp = null;
    Policy user = null;
    for (Policy p : applying) {
      if (p.scope() == Scope.USER) {
        user = p;
      } else if (psp == null || bucket(participant, payer, legal, p, now).tokens(now)
          < bucket(participant, payer, legal, psp, now).tokens(now)) {
        psp = p; // the participant scope's header names its tightest policy
      }
    }
    if (psp != null) {
      put(h, "Participant", psp, bucket(participant, payer, legal, psp, now), now);
    }
    if (user != null) {
      put(h, "Client", user, bucket(participant, payer, legal, user, now), now);
    }
    return h;
  }

  private static void put(Map<String, String> h, String scope, Policy p, Bucket b, long now) {
    h.put("PI-RateLimit-" + scope + "Policy", p.name());
    h.put("PI-RateLimit-" + scope + "Remaining", Long.toString((long) Math.max(0, Math.floor(b.tokens(now)))));
    h.put("PI-RateLimit-" + scope + "Reset", Long.toString(b.resetSeconds(now)));
  }

  private Bucket bucket(String participant, String payer, boolean legal, Policy p, long now) {
    String key = p.scope() == Scope.USER ? participant + "|" + p.name() + "|" + payer : participant + "|" + p.name();
    return buckets.computeIfAbsent(key, k -> new Bucket(p.capacity(legal && p.scope() == Scope.USER),
        p.ratePerSecond(legal && p.scope() == Scope.USER), now));
  }

  private long[] counts(String participant, Policy p) {
    return byPolicy.computeIfAbsent(participant + "|" + p.name(), k -> new long[3]);
  }

  /** The audit: per participant and policy, tokens charged, 429s, credits; per payer, lookups, 404s, 429s. */
  synchronized Map<String, Object> stats() {
    Map<String, Object> policies = new LinkedHashMap<>();
    byPolicy.forEach((k, v) -> policies.put(k, Map.of("charged", v[0], "refused", v[1], "credited", v[2])));
    Map<String, Object> payers = new LinkedHashMap<>();
    byPayer.forEach((k, v) -> payers.put(k, Map.of("lookups", v[0], "notFound", v[1], "refused", v[2])));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("counting", table.toString());
    out.put("policies", policies);
    out.put("payers", payers);
    return out;
  }

  synchronized void reset() {
    buckets.clear();
    lookups.clear();
    byPolicy.clear();
    byPayer.clear();
  }
}
