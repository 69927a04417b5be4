package io.pixquota.bacen.dict;

import com.github.benmanes.caffeine.cache.Cache;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.BucketUnavailableException;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.ThrottleException;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.support.TimeSource;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What is DICT's own in a lookup's way, around the throttle every lookup goes through (as API Pix's calls do): the
 * lookup checked before any I/O, the negative cache, a refusal this process knows without asking
 * ({@link DictRefusals}), the mirror's answer read as the throttle reads a bucket's (granted, or refused with the typed
 * exception the lookup fails with), the throttle's refusal turned into that exception, and the answer settled
 * (refunds, calibration from DICT's headers, the payer's standing, the credit) into the ledger.
 */
final class DictLookups {
  /** A lookup checked and planned: nothing here has touched the network. */
  record Prepared(DictKey key, PayerIds.Pseudonym payer, DictPolicy.PayerType payerType, String endToEndId,
      Priority priority, DictBuckets.Plan plan, long deadlineNanos) {}

  private final DictClientConfig config;
  private final DictBuckets buckets;
  private final DictLedger ledger;
  private final DictMetrics metrics;
  private final PayerIds payers;
  private final Cache<String, Boolean> notFound; // null: no negative cache
  private final TimeSource time;
  private final Runnable flushNow;
  private final Runnable flushSoon;
  private final DictRefusals refusals;
  private final DictPolicyRefresh refresh;

  DictLookups(DictClientConfig config, DictBuckets buckets, DictLedger ledger, DictMetrics metrics,
      Cache<String, Boolean> notFound, TimeSource time, DictMirror mirror, DictPolicyRefresh refresh) {
    this.config = config;
    this.buckets = buckets;
    this.ledger = ledger;
    this.metrics = metrics;
    this.payers = new PayerIds(config.payerSecret());
    this.notFound = notFound;
    this.time = time;
    this.flushNow = mirror::flushNow;
    this.flushSoon = mirror::flushSoon;
    this.refresh = refresh;
    this.refusals = new DictRefusals(time, config.reserve().standingTtl(), config.creditTtl());
  }

  /** @throws IllegalArgumentException naming the field, before any I/O; DictNotFoundException from the cache */
  Prepared prepare(DictLookup lookup) {
    Objects.requireNonNull(lookup, "lookup cannot be null");
    DictKey key = DictKey.parse(lookup.key());
    PayerIds.Pseudonym payer = payers.of(lookup.payerId());
    String e2eid = lookup.endToEndId() == null ? EndToEndIds.next(config.participant(), Instant.now())
        : EndToEndIds.check(lookup.endToEndId());
    Priority priority = lookup.priority() == null ? config.defaultPriority() : lookup.priority();
    if (notFound != null && notFound.getIfPresent(key.value()) != null) {
      metrics.lookup("not_found_cached", 1);
      throw new DictNotFoundException(key, true);
    }
    DictLookup.Trust trust = lookup.trust() == null ? DictLookup.Trust.NORMAL : lookup.trust();
    return new Prepared(key, payer, lookup.payerType(), e2eid, priority,
        buckets.plan(key.type(), payer.bucket(), lookup.payerType(), trust, config.reserve()),
        time.nanoTime() + config.maxWait().toNanos());
  }

  /**
   * A refusal this process knows without asking the mirror, read as the throttle reads a bucket's answer (the
   * exception the lookup fails with in its stamp): refused for good, or, for a batch lookup, after when to ask again.
   * Null: ask the mirror.
   */
  Acquisition known(Prepared p) {
    DictRefusals.Local l = refusals.check(p, maxWait(p), p.priority() == Priority.BATCH);
    if (l == null) {
      return null;
    }
    metrics.refusedLocally(l.reason());
    Duration retry = Duration.ofNanos(Math.max(l.retryNanos(), 1_000_000));
    if (l.refusal() == null) {
      return Acquisition.of(false, retry, 0, 0, time.nanoTime(), new DictThrottledException("the participant's "
          + "DICT buckets have no slot before this batch lookup's deadline (known from an earlier answer); not sent",
          null));
    }
    return Acquisition.of(false, retry, 0, 0, time.nanoTime(), l.refusal()).withoutWaiting();
  }

  /** Counts a refusal by its kind, and returns it. */
  private DictException counted(Prepared p, DictException e) {
    if (e instanceof DictUserRefusedException u) {
      metrics.refused(u.policy(), DictPolicy.Scope.USER, 1);
      metrics.lookup("user_refused", 1);
    } else if (e instanceof DictReserveRefusedException r) {
      metrics.refused(r.policy(), DictPolicy.Scope.PSP, 1);
      metrics.reserveRefused(r.policy(), r.reason());
      metrics.lookup("reserve_refused", 1);
    } else {
      metrics.refused("participant", DictPolicy.Scope.PSP, 1);
      metrics.lookup("throttled", 1);
    }
    return e;
  }

  /** The longest a booking of this lookup may be ahead: none for a batch lookup (it asks again instead). */
  Duration maxWait(Prepared p) {
    return p.priority() == Priority.BATCH ? Duration.ZERO : config.maxWait();
  }

  /**
   * Reads the mirror's answer as the throttle reads a bucket's: granted (the wait counted), or refused with the
   * exception the lookup fails with in its stamp: the end user's bucket for good, the participant's reserve for good
   * but for a batch lookup (it may ask again within its max wait), the participant's slot after its wait.
   */
  Acquisition read(Prepared p, Acquired a) {
    refusals.learn(p, a, maxWait(p));
    double least = a.remaining().stream().mapToDouble(Double::doubleValue).min().orElse(0);
    if (a.granted()) {
      long waitNanos = Math.max(0, a.waitTime().toNanos() - (time.nanoTime() - a.answeredAtNanos()));
      metrics.waited(Duration.ofNanos(waitNanos));
      return Acquisition.of(true, a.waitTime(), least, 0, a.answeredAtNanos(), a);
    }
    if (a.refusedBy() != null) {
      DictPolicy policy = p.plan().policies().get(p.plan().takes().stream().map(Take::bucket).toList()
          .indexOf(a.refusedBy()));
      Duration retry = max(a.retryAfter(), Duration.ofMillis(1));
      if (!a.byReserve()) {
        return Acquisition.of(false, retry, least, 0, a.answeredAtNanos(),
            new DictUserRefusedException(policy.name(), a.retryAfter())).withoutWaiting();
      }
      Acquisition reserve = Acquisition.of(false, retry, least, 0, a.answeredAtNanos(),
          new DictReserveRefusedException(policy.name(), p.plan().trust() == DictLookup.Trust.RISKY
              ? DictReserveRefusedException.Reason.RISKY : DictReserveRefusedException.Reason.NO_STANDING,
              a.retryAfter(), false));
      return p.priority() == Priority.BATCH ? reserve : reserve.withoutWaiting();
    }
    return Acquisition.of(false, max(a.waitTime(), Duration.ofMillis(1)), least, 0, a.answeredAtNanos(),
        new DictThrottledException("the participant's DICT buckets have no slot within maxWait "
            + config.maxWait().toMillis() + " ms (the next is " + a.waitTime().toMillis() + " ms ahead); not sent",
            null));
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /**
   * The throttle did not let the lookup go: the refusal its answer carried (counted), or, for a refusal in the
   * throttle's own terms (its line, its store), the DICT exception that says so; its {@link DictException#refusal()}
   * is the throttle's.
   */
  DictException refused(Prepared p, ThrottleException e) {
    if (e instanceof ThrottleRefusedException r && r.answer() != null
        && r.answer().stamp() instanceof DictException refusal) {
      return counted(p, refusal).because(e);
    }
    if (e instanceof BucketUnavailableException) {
      return unavailable(e).because(e);
    }
    return counted(p, new DictThrottledException(e.getMessage(), e)).because(e);
  }

  /** A lookup's payment settled and its credit was given. */
  void settled(String endToEndId) {
    refusals.settled(endToEndId);
  }

  /** The store did not answer: the lookup is not sent. */
  DictThrottledException unavailable(Exception e) {
    metrics.lookup("throttled", 1);
    return new DictThrottledException("the DICT mirror's store did not answer (" + e.getMessage() + "); not sent", e);
  }

  /** No answer came (I/O, the call timeout): DICT may have charged it, so nothing is given back. */
  DictCallException failed(Prepared p, IOException e) {
    ledger.end(p.plan().takes());
    metrics.lookup("failed", 1);
    return new DictCallException("DICT did not answer the lookup: " + e.getMessage(), 0, e);
  }

  /**
   * Settles an answer into the ledger and reads it.
   *
   * @throws DictException for anything but a 200
   */
  DictEntry answer(Prepared p, Acquired booked, DictHttp.Answer answer) {
    ledger.end(p.plan().takes());
    settle(p, booked, answer);
    int status = answer.status();
    if (status == 200) {
      try {
        DictEntry entry = DictXml.entry(answer.body(), p.endToEndId());
        metrics.lookup("found", 1);
        return entry;
      } catch (IOException | IllegalArgumentException e) {
        metrics.lookup("failed", 1);
        throw new DictCallException("DICT's 200 is not a GetEntryResponse: " + e.getMessage(), 200, e);
      }
    }
    if (status == 404) {
      metrics.lookup("not_found", 1);
      if (notFound != null) {
        notFound.put(p.key().value(), Boolean.TRUE);
      }
      throw new DictNotFoundException(p.key(), false);
    }
    if (status == 429) {
      String policy = emptyPolicy(p, answer);
      metrics.providerRefused(policy == null ? "unknown" : policy, 1);
      metrics.lookup("provider_refused", 1);
      refresh.refusedBy(policy);
      throw new DictRateLimitedException(policy);
    }
    metrics.lookup("failed", 1);
    String problem = DictXml.problem(answer.body());
    throw new DictCallException("DICT answered " + status + (problem == null ? "" : " " + problem), status, null);
  }

  /**
   * Refunds what the answer did not cost; lowers a bucket to what DICT says remains, less what this process still
   * has in flight on it, when that is below what the mirror held (never raises it; a 429 naming an empty bucket
   * lowers it to minus one worst-case answer, the debt DICT's 0 may hide); remembers a 200's credit. A lowering that
   * moves the mirror by more than a token is sent at once, the rest rides on the next lookup.
   */
  private void settle(Prepared p, Acquired booked, DictHttp.Answer answer) {
    DictBuckets.Plan plan = p.plan();
    List<Give> gives = new ArrayList<>(DictBuckets.refunds(plan, answer.status()));
    for (Give earned : DictBuckets.earned(plan, answer.status(), booked.waived())) {
      gives.add(earned);
      refusals.earned(p, earned.amount());
    }
    DictHeaders.Readings readings = DictHeaders.read(answer.header(), plan);
    metrics.headersIgnored(readings.ignored());
    boolean urgent = false;
    for (DictHeaders.Reading r : readings.readings()) {
      Take t = plan.takes().get(r.take());
      if (r.policy().scope() == DictPolicy.Scope.PSP) {
        metrics.providerRemaining(r.policy().name(), r.remaining());
      }
      double target = answer.status() == 429 && r.remaining() == 0 ? -r.policy().worstCost()
          : r.remaining() - ledger.inFlight(t.bucket().name());
      double refund = t.cost() - r.policy().cost(answer.status());
      double believed = ledger.believed(t.bucket(), booked.remaining().get(r.take()), time.nanoTime()) + refund;
      if (target < believed) {
        gives.add(new Give(t.bucket(), Give.Kind.LOWER_TO, target));
        metrics.lowered(r.policy().name());
        urgent |= target < believed - 1;
      }
    }
    BucketGroup.Credit credit = answer.status() == 200
        ? DictBuckets.credit(plan, p.endToEndId(), config.creditTtl()) : null;
    if (credit != null && plan.holder() != null) {
      refusals.credit(p.endToEndId(), p, plan.price());
    }
    ledger.owe(gives, credit);
    if (urgent) {
      flushNow.run();
    } else if (!gives.isEmpty() || credit != null) {
      flushSoon.run();
    }
  }

  /** The policy DICT's headers name with nothing left (the one that refused), or null. */
  private static String emptyPolicy(Prepared p, DictHttp.Answer answer) {
    for (DictHeaders.Reading r : DictHeaders.read(answer.header(), p.plan()).readings()) {
      if (r.remaining() == 0) {
        return r.policy().name();
      }
    }
    return null;
  }
}
