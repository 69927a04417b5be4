package io.pixquota.bacen.dict;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The DICT client's meters (docs/operations.md, "DICT"): lookups by outcome; local refusals by policy and scope (a
 * user-scope one is a scan stopped), the reserve's by reason, those decided without a round trip by kind; DICT's
 * 429s by policy; the tokens DICT says remain in the participant's buckets, and the reserve kept in each; credits; the
 * wait for a slot; the mirror's round trips; headers dropped as untrusted.
 */
final class DictMetrics {
  private static final String CREDITS = "Credits of settled payments: remembered, redeemed, unknown (none or "
      + "spent), dropped (too many waiting, or their round trip failed)";
  private final MeterRegistry registry;
  private final Timer wait;
  private final Counter headersIgnored;
  private final Map<String, AtomicLong> remaining = new ConcurrentHashMap<>();

  DictMetrics(MeterRegistry registry, DictPolicies table, DictLedger ledger) {
    this.registry = registry;
    this.wait = Timer.builder("bacen.dict.wait").description("Wait of a lookup for its slot in the participant's "
        + "buckets").register(registry);
    for (String kind : new String[] {"booking", "flush", "redeem"}) {
      roundTrips(kind);
    }
    this.headersIgnored = Counter.builder("bacen.dict.headers.ignored").description("PI-RateLimit header sets "
        + "dropped: a policy the lookup was not booked on, or a value out of bounds").register(registry);
    for (DictPolicy p : table.policies()) { // at 0 from the start: an alert on an increase sees the first one
      providerRefused(p.name(), 0);
      refused(p.name(), p.scope(), 0);
      if (p.scope() == DictPolicy.Scope.PSP) {
        for (DictReserveRefusedException.Reason r : DictReserveRefusedException.Reason.values()) {
          reserveRefusals(p.name(), r);
        }
      }
    }
    for (String kind : new String[] {"user", "participant", "reserve"}) {
      localRefusals(kind);
    }
    lookup("found", 0);
    for (String outcome : new String[] {"remembered", "redeemed", "unknown"}) {
      credits(outcome);
    }
    FunctionCounter.builder("bacen.dict.credits", ledger, DictLedger::creditsDropped).description(CREDITS)
        .tag("outcome", "dropped").register(registry);
    FunctionCounter.builder("bacen.dict.refunds.dropped", ledger, DictLedger::refundsDropped).description("Refunds "
        + "of answers dropped because their round trip to Redis failed (Redis may have applied them: never twice)")
        .register(registry);
  }

  void lookup(String outcome, int n) {
    Counter.builder("bacen.dict.lookups").description("DICT lookups by outcome").tag("outcome", outcome)
        .register(registry).increment(n);
  }

  /** A lookup refused by the mirror without calling DICT (USER scope: a scan stopped). */
  void refused(String policy, DictPolicy.Scope scope, int n) {
    Counter.builder("bacen.dict.refused").description("Lookups the mirror refused without calling DICT")
        .tag("policy", policy).tag("scope", scope.name()).register(registry).increment(n);
  }

  /** A lookup the reserve of a participant bucket refused, in the mirror or from this process's view. */
  void reserveRefused(String policy, DictReserveRefusedException.Reason reason) {
    reserveRefusals(policy, reason).increment();
  }

  private Counter reserveRefusals(String policy, DictReserveRefusedException.Reason reason) {
    return Counter.builder("bacen.dict.reserve.refused").description("Lookups a participant bucket's reserve "
        + "refused: no-standing (a payer without standing) or risky (marked RISKY)").tag("policy", policy)
        .tag("reason", reason == DictReserveRefusedException.Reason.RISKY ? "risky" : "no-standing")
        .register(registry);
  }

  /** A refusal decided from this process's view, without a round trip: user, participant (no slot) or reserve. */
  void refusedLocally(String kind) {
    localRefusals(kind).increment();
  }

  private Counter localRefusals(String kind) {
    return Counter.builder("bacen.dict.refused.local").description("Refusals decided from what earlier answers "
        + "said, without a round trip to the mirror, by kind: user, participant, reserve").tag("kind", kind)
        .register(registry);
  }

  /** The tokens each participant bucket keeps from payers without standing, read from {@code buckets}. */
  void reserveKept(DictBuckets buckets, DictReserve reserve) {
    for (DictPolicy p : buckets.table().policies()) {
      if (p.scope() == DictPolicy.Scope.PSP) {
        String name = p.name();
        registry.gauge("bacen.dict.reserve.tokens", Tags.of("policy", name), buckets,
            b -> reserve.tokens(DictLookup.Trust.NORMAL, b.table().policy(name).capacity()));
      }
    }
  }

  /** DICT answered 429 for this policy ("unknown" when its headers named none). */
  void providerRefused(String policy, int n) {
    Counter.builder("bacen.dict.provider.refused").description("DICT's 429 RateLimited answers, by the policy "
        + "its headers named").tag("policy", policy).register(registry).increment(n);
  }

  /** DICT's GET /policies read again after a 429 on a participant's policy: {@code read} or {@code failed}. */
  void policiesReread(String outcome) {
    Counter.builder("bacen.dict.policies.reread").description("DICT's GET /policies read again after DICT refused a "
        + "lookup on a participant's policy").tag("outcome", outcome).register(registry).increment();
  }

  /** What DICT's last answer said remains in a participant-scope bucket. */
  void providerRemaining(String policy, double tokens) {
    remaining.computeIfAbsent(policy, p -> {
      AtomicLong v = new AtomicLong();
      registry.gauge("bacen.dict.provider.remaining", Tags.of("policy", p), v,
          AtomicLong::get);
      return v;
    }).set((long) tokens);
  }

  /** The mirror lowered to what DICT's headers say remains (a calibration), by the policy of the bucket. */
  void lowered(String policy) {
    Counter.builder("bacen.dict.mirror.lowered").description("Calibrations: a bucket of the mirror lowered to "
        + "what DICT's headers say remains").tag("policy", policy).register(registry).increment();
  }

  void credit(String outcome) {
    credits(outcome).increment();
  }

  private Counter credits(String outcome) {
    return Counter.builder("bacen.dict.credits").description(CREDITS).tag("outcome", outcome).register(registry);
  }

  void waited(Duration d) {
    wait.record(d);
  }

  /** A round trip to the mirror's store: a lookup's booking, a flush of what is owed, a redeem. */
  void roundTrip(String kind) {
    roundTrips(kind).increment();
  }

  private Counter roundTrips(String kind) {
    return Counter.builder("bacen.dict.mirror.round.trips").description("Round trips to the mirror's store "
        + "(Redis), by kind: a lookup's booking, a flush of refunds and credits, a redeem").tag("kind", kind)
        .register(registry);
  }

  void headersIgnored(int n) {
    headersIgnored.increment(n);
  }
}
