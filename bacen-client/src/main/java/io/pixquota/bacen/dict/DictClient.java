package io.pixquota.bacen.dict;

import io.pixquota.throttle.ThrottleException;
import io.pixquota.throttle.store.StoreUnavailableException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * A typed client of DICT's key lookups ({@code GET {baseUrl}entries/{Key}}) behind a mirror of DICT's rate-limiting
 * policies, kept in Redis for the whole fleet: every lookup books the end user's anti-scan bucket and the
 * participant's buckets in one decision, all or none, in one round trip.
 *
 * <pre>{@code
 * DictClient dict = DictClient.builder(DictClientConfig.fromEnvironment(System.getenv())).redisson(redisson).build();
 * dict.warmUp();                                   // the participant's buckets from DICT's GET /policies
 * DictEntry e = dict.getEntry("maria@example.com", customer.cpf());
 * ... pay with e.endToEndId() ...
 * dict.paymentSettled(e.endToEndId());             // the payment's credit, once, on any replica
 * }</pre>
 *
 * <p>Keys and payer ids are checked before any I/O; the payer id is pseudonymised (HMAC-SHA-256 with the
 * participant's secret) before it reaches DICT, Redis or a log. A lookup the end user's bucket cannot pay for fails at
 * once ({@link DictUserRefusedException}, with when to try again) without calling DICT; one the participant's buckets
 * cannot pay for waits for its slot up to the max wait ({@link io.pixquota.throttle.Priority#BATCH batch} lookups
 * ask again instead of booking ahead). The booking rule and its proof: docs/bucket-math.md, "DICT". Threadsafe; share
 * one instance.
 */
public final class DictClient implements AutoCloseable {
  private final DictWiring.Parts parts;
  private volatile boolean closed;

  DictClient(DictWiring.Parts parts) {
    this.parts = parts;
  }

  public static DictClientBuilder builder(DictClientConfig config) {
    return new DictClientBuilder(config);
  }

  /** A natural person's lookup of {@code key} for the end user {@code payerId} (their own id: it is pseudonymised). */
  public DictEntry getEntry(String key, String payerId) {
    return getEntry(DictLookup.of(key, payerId));
  }

  /**
   * Looks a key up, blocking while its slot comes.
   *
   * @throws IllegalArgumentException for a malformed key, payer id or end-to-end id, before any I/O
   * @throws DictNotFoundException    DICT has no entry for the key (or said so within the negative cache's time)
   * @throws DictUserRefusedException the end user's bucket cannot pay for it now: not sent
   * @throws DictReserveRefusedException the participant's bucket is down to a reserve this lookup may not use: not sent
   * @throws DictThrottledException   no slot within the max wait, or the mirror's store did not answer: not sent
   * @throws DictRateLimitedException DICT answered 429
   * @throws DictCallException        DICT refused its form, failed, or did not answer
   */
  public DictEntry getEntry(DictLookup lookup) {
    checkOpen();
    DictLookupBucket booking = parts.lookup(parts.lookups().prepare(lookup));
    DictLookups.Prepared p = booking.prepared();
    DictHttp.Answer answer;
    try {
      answer = parts.http().lookup(parts.http().entry(booking));
    } catch (ThrottleException e) {
      throw parts.lookups().refused(p, e);
    } catch (IOException e) {
      if (!booking.sent()) { // interrupted, cancelled or out of time while it waited: never sent
        throw new DictThrottledException(Thread.currentThread().isInterrupted()
            ? "interrupted while the lookup waited for its slot; not sent" : "the lookup was not sent: "
            + e.getMessage(), e);
      }
      throw parts.lookups().failed(p, e);
    }
    return parts.lookups().answer(p, booking.booked(), answer);
  }

  /**
   * {@link #getEntry(DictLookup)} without holding a thread while the lookup waits; the future completes on the
   * callback executor with the entry or one of {@code getEntry}'s exceptions.
   *
   * @throws IllegalArgumentException for a malformed key, payer id or end-to-end id, before any I/O
   */
  public CompletableFuture<DictEntry> getEntryAsync(DictLookup lookup) {
    checkOpen();
    DictLookups.Prepared p;
    try {
      p = parts.lookups().prepare(lookup);
    } catch (DictNotFoundException cached) {
      return parts.async().delivered(CompletableFuture.failedFuture(cached));
    }
    return parts.async().lookup(parts.lookup(p));
  }

  /**
   * The application's word that the lookup's payment settled: the lookup's buckets get the policies' credit back,
   * once for the whole fleet (the first call anywhere gets true; a second, an unknown id or one older than the credit
   * ttl gets false). Call it only once the settlement is confirmed: DICT gives its credit at the settlement, and a
   * mirror credited earlier would hold more than DICT.
   *
   * @throws IllegalArgumentException for a malformed end-to-end id, before any I/O
   * @throws DictThrottledException   when the mirror's store does not answer (try again: the credit is kept)
   */
  public boolean paymentSettled(String endToEndId) {
    EndToEndIds.check(endToEndId);
    checkOpen();
    try {
      boolean redeemed = parts.mirror().redeem(endToEndId, parts.buckets().maxCredit());
      if (redeemed) {
        parts.lookups().settled(endToEndId);
      }
      return redeemed;
    } catch (StoreUnavailableException e) {
      throw new DictThrottledException("the DICT mirror's store did not answer (" + e.getMessage()
          + "); the credit is not given yet", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DictThrottledException("interrupted; the credit is not given yet", e);
    }
  }

  /**
   * Reads DICT's {@code GET /policies}: the participant's buckets take DICT's capacity and refill, and the mirror is
   * lowered to the tokens DICT says are available (never raised). Not throttled: it is not a lookup. Values out of
   * bounds are ignored and logged.
   *
   * @throws DictCallException      when DICT does not answer or answers something unreadable
   * @throws DictThrottledException when the mirror's store does not answer
   */
  public DictPolicies warmUp() {
    checkOpen();
    return DictWarmUp.run(parts);
  }

  /** The policies the mirror applies now (the configured table, resized by {@link #warmUp()}). */
  public DictPolicies policies() {
    return parts.buckets().table();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this DictClient is closed");
    }
  }

  /**
   * Refuses later calls, sends what the mirror is owed (refunds, credits: bounded by the store's timeout), and shuts
   * down what this client created (its scheduler, its OkHttp client's dispatcher, its Redisson client).
   */
  @Override
  public void close() {
    closed = true;
    DictWiring.close(parts);
  }

  @Override
  public String toString() {
    return "DictClient{" + parts.config() + "}";
  }
}
