package io.pixquota.bacen.dict;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.LocalBucketGroup;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.internal.GroupStep;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The booking rule's claims, over random mixes: honest natural and legal persons (some the caller marks TRUSTED or
 * RISKY), scanners that keep one end-user id and scanners that take a new one for every lookup (mostly 404s), answers
 * that cost differently per policy (200, 404, 500), lookups in flight together (admitted at DICT's arrival, charged
 * only when answered, up to 300 ms later), payments settled and reported late, batch lookups, four policy tables, the
 * reserve at shares from 0 to 0.9. DICT here is a simulation of its own, written from the spec's rules and sharing
 * nothing with the mirror's arithmetic. Claims: for no lookup the SDK let through does any of DICT's buckets hold less
 * than the 1 token it needs; no lookup whose payer's standing (in the store, plus what this process owes it) pays the
 * price is refused by a reserve, locally or in the store, and no TRUSTED one ever is. The SDK side is the real code
 * (this process's view of refusals, the booking, the ledger with its piggybacked refunds and its flushes, the
 * calibration from DICT's headers, standing and credits) on the in-memory group, on a virtual clock. No traffic but
 * the SDK's reaches this DICT: traffic the mirror does not see is what the headers are for, and is not claimed here.
 */
class DictBookingPropertyTest {
  private static final Map<String, Integer> SEEN = new TreeMap<>();

  @AfterContainer
  static void report() {
    System.out.println("DictBookingPropertyTest saw: " + SEEN);
    assertThat(SEEN).as("the mixes reached every case").containsKeys("found", "not found", "failed 500",
        "user refused", "throttled", "credited", "calibrated", "batch retried", "debt at DICT", "reserve refused",
        "reserve refused locally", "reserve used on standing", "risky refused", "refused locally");
  }

  private static void seen(String what) {
    SEEN.merge(what, 1, Integer::sum);
  }

  /** DICT's side: its own buckets, from the spec's table, admitting at 1 token and charging the answer after. */
  static final class Dict {
    final Map<String, double[]> buckets = new HashMap<>(); // name -> {tokens, at nanos}
    final boolean later;
    final double pspCapacity;
    final double pspPerMinute;
    int refusedSdkLookups;

    Dict(boolean later, double pspCapacity, double pspPerMinute) {
      this.later = later;
      this.pspCapacity = pspCapacity;
      this.pspPerMinute = pspPerMinute;
    }

    /** {capacity, per second} of a policy's bucket. */
    double[] size(String policy, boolean legal) {
      return switch (policy) {
        case "USER" -> later ? (legal ? new double[] {1000, 20 / 60.0} : new double[] {100, 2 / 60.0})
            : new double[] {50, 1 / 180.0};
        case "PSP" -> new double[] {pspCapacity, pspPerMinute / 60};
        default -> new double[] {120_000, 400};
      };
    }

    boolean applies(String policy, DictKey.Type type) {
      return later || policy.equals("READ") || type == DictKey.Type.EMAIL || type == DictKey.Type.PHONE;
    }

    double cost(String policy, int status) {
      if (status == 500) {
        return 0;
      }
      if (status == 404) {
        return switch (policy) {
          case "USER" -> later ? 20 : 2;
          case "PSP" -> later ? 3 : 0;
          default -> 1;
        };
      }
      return status == 200 || later || policy.equals("READ") ? 1 : 0;
    }

    double credit(String policy, boolean legal) {
      return policy.equals("READ") ? 0 : policy.equals("USER") && later && legal ? 2 : 1;
    }

    double[] bucket(String policy, String payer, boolean legal, long now) {
      double[] size = size(policy, legal);
      double[] b = buckets.computeIfAbsent(policy.equals("USER") ? "USER|" + payer : policy,
          k -> new double[] {size[0], now});
      b[0] = Math.min(size[0], b[0] + size[1] * (now - b[1]) / 1e9);
      b[1] = now;
      return b;
    }
  }

  private static String entryXml(String key) {
    return "<GetEntryResponse><Entry><Key>" + key + "</Key><KeyType>EMAIL</KeyType><Account><Participant>12345678"
        + "</Participant><Branch>0001</Branch><AccountNumber>1</AccountNumber><AccountType>CACC</AccountType>"
        + "</Account><Owner><Type>NATURAL_PERSON</Type><TaxIdNumber>1</TaxIdNumber><Name>N</Name></Owner>"
        + "<CreationDate>2024-03-01T12:00:00Z</CreationDate><KeyOwnershipDate>2024-03-01T12:00:00Z"
        + "</KeyOwnershipDate></Entry></GetEntryResponse>";
  }

  private record Event(long at, long seq, Runnable run) {}

  @Property(tries = 30)
  void dictNeverRefusesALookupTheMirrorLetThrough(@ForAll long seed) {
    Random r = new Random(seed);
    int table = r.nextInt(4);
    DictPolicies policies = switch (table) {
      case 0 -> DictPolicies.later('H');
      case 1 -> DictPolicies.later('G');
      case 2 -> DictPolicies.later('F');
      default -> DictPolicies.v120().resized(DictPolicies.PARTICIPANT_ANTISCAN, 30, 20, Duration.ofMinutes(1));
    };
    DictPolicy psp = policies.policy(DictPolicies.PARTICIPANT_ANTISCAN);
    Dict dict = new Dict(table < 3, psp.capacity(), psp.refillTokens());
    FakeTime time = FakeTime.manual(1_000);
    PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
        : Long.compare(a.seq, b.seq));
    long[] seq = {0};
    java.util.function.BiConsumer<Long, Runnable> at = (t, run) -> events.add(new Event(t, seq[0]++, run));
    double share = new double[] {0, 0.5, 0.5, 0.9}[r.nextInt(4)];
    DictClientConfig config = DictClientConfig.builder().baseUrl(URI.create("https://dict.example"))
        .participant("12345678").payerSecret("a-secret-of-the-psp-0001").policies(policies)
        .maxWait(Duration.ofSeconds(5)).flushDelay(Duration.ofMillis(new long[] {50, 1000, 5000}[r.nextInt(3)]))
        .reserve(new DictReserve(share, Math.max(share, 0.75), 0, Duration.ofDays(1))).build();
    DictLedger ledger = new DictLedger();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    DictMetrics metrics = new DictMetrics(registry, policies, ledger);
    DictBuckets buckets = new DictBuckets(policies);
    GroupStep.Store store = new GroupStep.Store();
    DictMirror mirror = new DictMirror(new LocalBucketGroup("dict", time::nanoTime, store), ledger, metrics,
        (task, delay) -> at.accept(time.nanoTime() + delay, task), config.flushDelay());
    // DICT's table never changes here: a policy refresh that reads nothing
    DictLookups lookups = new DictLookups(config, buckets, ledger, metrics, null, time, mirror,
        new DictPolicyRefresh(time, Runnable::run, metrics));
    Sim sim = new Sim(r, dict, time, at, ledger, buckets, mirror, lookups, store);
    int actors = 3 + r.nextInt(10);
    for (int a = 0; a < actors; a++) {
      int kind = r.nextInt(10) < 6 ? 0 : r.nextInt(10) < 7 ? 2 : 1; // honest, legal, scanner
      if (kind == 1 && r.nextBoolean()) {
        kind = 3; // a scanner that takes a new end-user id for every lookup
      }
      long start = time.nanoTime() + r.nextInt(5_000) * 1_000_000L;
      sim.actor(a, kind, start);
    }
    long end = time.nanoTime() + Duration.ofMinutes(8).toNanos();
    while (!events.isEmpty() && events.peek().at() <= end) {
      Event e = events.poll();
      if (e.at() > time.nanoTime()) {
        time.advance(Duration.ofNanos(e.at() - time.nanoTime()));
      }
      e.run().run();
    }
    if (!registry.find("bacen.dict.mirror.lowered").counters().isEmpty()) {
      seen("calibrated");
    }
    assertThat(dict.refusedSdkLookups).as("DICT's refusals of lookups the mirror let through (seed %d, table %d)",
        seed, table).isZero();
    assertThat(sim.wronglyRefused).as("lookups refused by a reserve that their payer's standing paid for, or marked "
        + "TRUSTED (seed %d)", seed).isEmpty();
  }

  /** The actors, the lookups' way through the SDK and DICT, on the event queue. */
  private static final class Sim {
    final Random r;
    final Dict dict;
    final FakeTime time;
    final java.util.function.BiConsumer<Long, Runnable> at;
    final DictLedger ledger;
    final DictBuckets buckets;
    final DictMirror mirror;
    final DictLookups lookups;
    final GroupStep.Store store;
    final java.util.List<String> wronglyRefused = new java.util.ArrayList<>();
    long e2e;
    long rotations;

    Sim(Random r, Dict dict, FakeTime time, java.util.function.BiConsumer<Long, Runnable> at, DictLedger ledger,
        DictBuckets buckets, DictMirror mirror, DictLookups lookups, GroupStep.Store store) {
      this.r = r;
      this.dict = dict;
      this.time = time;
      this.at = at;
      this.ledger = ledger;
      this.buckets = buckets;
      this.mirror = mirror;
      this.lookups = lookups;
      this.store = store;
    }

    void actor(int id, int kind, long when) {
      at.accept(when, () -> {
        lookup(id, kind);
        long gap = kind == 1 || kind == 3 ? 100 + r.nextInt(1_500) : 2_000 + r.nextInt(25_000);
        actor(id, kind, time.nanoTime() + gap * 1_000_000L);
      });
    }

    private void lookup(int id, int kind) {
      DictKey.Type type = DictKey.Type.values()[r.nextInt(5)];
      String key = switch (type) {
        case CPF -> "12345678909";
        case CNPJ -> "11222333000181";
        case PHONE -> "+5561999990001";
        case EMAIL -> "k" + r.nextInt(1000) + "@example.com";
        case EVP -> "123e4567-e89b-12d3-a456-426614174000";
      };
      DictPolicy.PayerType payerType = kind == 2 ? DictPolicy.PayerType.LEGAL_PERSON
          : DictPolicy.PayerType.NATURAL_PERSON;
      String e2eid = String.format("E12345678202612011200%011d", ++e2e);
      String payer = kind == 3 ? "rotating-" + id + "-" + (++rotations) : "actor-" + id;
      DictLookup.Trust trust = kind == 0 && id % 3 == 1 ? DictLookup.Trust.TRUSTED
          : kind == 0 && id % 3 == 2 && r.nextInt(3) == 0 ? DictLookup.Trust.RISKY : null;
      DictLookup l = DictLookup.of(key, payer).withPayerType(payerType).withEndToEndId(e2eid)
          .withPriority(r.nextInt(5) == 0 ? Priority.BATCH : Priority.INTERACTIVE).withTrust(trust);
      int status = kind == 1 || kind == 3 ? (r.nextInt(10) < 9 ? 404 : 200) : (r.nextInt(20) == 0 ? 500
          : r.nextInt(10) == 0 ? 404 : 200);
      book(lookups.prepare(l), status);
    }

    /**
     * One ask as the throttle makes it of a lookup's buckets ({@code DictLookupBucket}): a refusal known locally, or
     * the mirror's answer read; a refusal that waiting may help asked again by a batch lookup within its max wait.
     */
    private void book(DictLookups.Prepared p, int status) {
      Acquired booked = null;
      Acquisition a;
      double standing = standing(p);
      try {
        a = lookups.known(p);
        if (a == null) {
          booked = mirror.book(p.plan().takes(), lookups.maxWait(p), p.plan().standing());
          a = lookups.read(p, booked);
        }
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      if (!a.granted()) {
        if (p.priority() == Priority.BATCH && a.waits()
            && time.nanoTime() + a.waitTime().toNanos() <= p.deadlineNanos()) {
          seen(booked == null ? "refused locally" : "batch retried");
          at.accept(time.nanoTime() + a.waitTime().toNanos(), () -> book(p, status));
          return;
        }
        refused((DictException) a.stamp(), p, standing, booked == null);
        return;
      }
      if (booked.waived()) {
        seen("reserve used on standing");
      }
      Acquired granted = booked;
      long wait = Math.max(0, a.waitTime().toNanos() - (time.nanoTime() - a.answeredAtNanos()));
      at.accept(time.nanoTime() + wait, () -> {
        ledger.begin(p.plan().takes());
        at.accept(time.nanoTime() + r.nextInt(50) * 1_000_000L, () -> arrive(p, granted, status));
      });
    }

    private void refused(DictException e, DictLookups.Prepared p, double standing, boolean local) {
      if (e instanceof DictUserRefusedException) {
        seen(local ? "refused locally" : "user refused");
      } else if (e instanceof DictThrottledException) {
        seen(local ? "refused locally" : "throttled");
      } else if (e instanceof DictReserveRefusedException rr) {
        seen(rr.reason() == DictReserveRefusedException.Reason.RISKY ? "risky refused"
            : local ? "reserve refused locally" : "reserve refused");
        if (p.plan().trust() == DictLookup.Trust.TRUSTED || (p.plan().trust() == DictLookup.Trust.NORMAL
            && standing >= p.plan().price())) {
          wronglyRefused.add(p.plan().trust() + " lookup with standing " + standing + " (price " + p.plan().price()
              + ") at " + time.nanoTime() + (local ? ", locally" : ", by the store"));
        }
      } else {
        throw new AssertionError("not a refusal: " + e);
      }
    }

    /** The payer's standing as the next booking would find it: the store's, and what this process owes it. */
    private double standing(DictLookups.Prepared p) {
      if (p.plan().holder() == null) {
        return 0;
      }
      GroupStep.Stored s = store.get(p.plan().holder().name(), time.nanoTime() / 1000);
      double stored = s == null ? 0 : s.standing();
      return Math.max(0, Math.min(p.plan().holder().limit().capacity(),
          stored + ledger.owedEarn(p.plan().holder().name())));
    }

    /** DICT admits at arrival when each bucket holds 1 token, and charges when it answers. */
    private void arrive(DictLookups.Prepared p, Acquired booked, int status) {
      boolean legal = p.payerType() == DictPolicy.PayerType.LEGAL_PERSON;
      long now = time.nanoTime();
      boolean refused = false;
      for (String policy : new String[] {"USER", "PSP", "READ"}) {
        if (dict.applies(policy, p.key().type()) && dict.bucket(policy, p.payer().hex(), legal, now)[0] < 1) {
          refused = true;
        }
      }
      int answered = refused ? 429 : status;
      if (refused) {
        dict.refusedSdkLookups++;
      }
      at.accept(now + (1 + r.nextInt(300)) * 1_000_000L, () -> answer(p, booked, answered, legal));
    }

    private void answer(DictLookups.Prepared p, Acquired booked, int status, boolean legal) {
      long now = time.nanoTime();
      Map<String, String> headers = new HashMap<>();
      double tightest = Double.POSITIVE_INFINITY;
      for (String policy : new String[] {"USER", "PSP", "READ"}) {
        if (!dict.applies(policy, p.key().type())) {
          continue;
        }
        double[] b = dict.bucket(policy, p.payer().hex(), legal, now);
        b[0] -= dict.cost(policy, status);
        if (b[0] < 0) {
          seen("debt at DICT");
        }
        String name = policy.equals("USER") ? DictPolicies.USER_ANTISCAN : policy.equals("PSP")
            ? DictPolicies.PARTICIPANT_ANTISCAN : DictPolicies.ENTRIES_READ;
        String remaining = Long.toString((long) Math.max(0, Math.floor(b[0])));
        if (policy.equals("USER")) {
          headers.put("PI-RateLimit-ClientPolicy", name);
          headers.put("PI-RateLimit-ClientRemaining", remaining);
        } else if (b[0] < tightest) {
          tightest = b[0];
          headers.put("PI-RateLimit-ParticipantPolicy", name);
          headers.put("PI-RateLimit-ParticipantRemaining", remaining);
        }
      }
      byte[] body = (status == 200 ? entryXml(p.key().value()) : "<problem/>").getBytes(StandardCharsets.UTF_8);
      at.accept(now + r.nextInt(50) * 1_000_000L, () -> {
        try {
          lookups.answer(p, booked, new DictHttp.Answer(status, body, headers::get));
          seen("found");
          if (r.nextInt(3) > 0) {
            settle(p, legal);
          }
        } catch (DictNotFoundException e) {
          seen("not found");
        } catch (DictCallException e) {
          seen("failed " + status);
        } catch (DictRateLimitedException e) {
          seen("refused by DICT"); // counted by DICT's side, and asserted there
        }
      });
    }

    /** The payment settles at DICT, then the application says so (later: it learns it from the SPI). */
    private void settle(DictLookups.Prepared p, boolean legal) {
      long settles = time.nanoTime() + (500 + r.nextInt(10_000)) * 1_000_000L;
      at.accept(settles, () -> {
        long now = time.nanoTime();
        for (String policy : new String[] {"USER", "PSP", "READ"}) {
          if (dict.applies(policy, p.key().type())) {
            double[] b = dict.bucket(policy, p.payer().hex(), legal, now);
            b[0] = Math.min(dict.size(policy, legal)[0], b[0] + dict.credit(policy, legal));
          }
        }
        at.accept(now + r.nextInt(2_000) * 1_000_000L, () -> {
          try {
            if (mirror.redeem(p.endToEndId(), buckets.maxCredit())) {
              lookups.settled(p.endToEndId());
              seen("credited");
            }
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
      });
    }
  }
}
