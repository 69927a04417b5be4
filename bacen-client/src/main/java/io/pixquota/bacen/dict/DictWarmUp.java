package io.pixquota.bacen.dict;

import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.StoreUnavailableException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DictClient#warmUp()}: DICT's {@code GET /policies} as the participant's buckets. Each PSP-scope policy of
 * the table takes DICT's capacity and refill (no margin: DICT is itself a token bucket, admitting a lookup at its
 * arrival, never before the mirror's slot), and the mirror is lowered to what DICT says is available. The answer is
 * untrusted: a policy the table does not have, a scope that differs, or numbers out of bounds (capacity 1..1e12,
 * refill above 0, a period of 1 s to a day) are ignored and logged.
 */
final class DictWarmUp {
  private static final Logger log = LoggerFactory.getLogger(DictWarmUp.class);

  private DictWarmUp() {}

  static DictPolicies run(DictWiring.Parts parts) {
    DictHttp.Answer answer;
    List<DictXml.PolicyState> states;
    try {
      answer = parts.http().execute(parts.http().policies());
      if (answer.status() != 200) {
        throw new DictCallException("DICT answered " + answer.status() + " to GET /policies", answer.status(), null);
      }
      states = DictXml.policies(answer.body());
    } catch (IOException | IllegalArgumentException e) {
      throw new DictCallException("GET /policies: " + e.getMessage(), 0, e);
    }
    DictPolicies table = parts.buckets().table();
    List<Give> lowers = new ArrayList<>();
    for (DictXml.PolicyState s : states) {
      DictPolicy mine = table.policy(s.name());
      if (mine == null || mine.scope() != DictPolicy.Scope.PSP || !"PSP".equalsIgnoreCase(s.scope())) {
        continue; // a user's bucket is sized per person type by the table; other operations are not lookups
      }
      if (!(s.capacity() >= 1 && s.capacity() <= 1e12 && s.refillTokens() > 0 && s.refillTokens() <= 1e12
          && s.refillPeriodSeconds() >= 1 && s.refillPeriodSeconds() <= 86_400)) {
        log.warn("DICT's GET /policies: {} has capacity {}, refill {} per {} s, out of bounds; the table's {} is "
            + "kept", s.name(), s.capacity(), s.refillTokens(), s.refillPeriodSeconds(), mine.capacity());
        continue;
      }
      table = table.resized(s.name(), s.capacity(), s.refillTokens(), Duration.ofSeconds(s.refillPeriodSeconds()));
      Double available = s.availableTokens();
      if (available != null && available >= 0 && available <= s.capacity()) {
        DictPolicy resized = table.policy(s.name());
        lowers.add(new Give(DictBuckets.bucket(resized, "", DictPolicy.PayerType.NATURAL_PERSON),
            Give.Kind.LOWER_TO, available - parts.ledger().inFlight(resized.name())));
      }
    }
    parts.buckets().table(table);
    try {
      parts.mirror().give(lowers);
    } catch (StoreUnavailableException e) {
      throw new DictThrottledException("GET /policies read, but the mirror's store did not answer ("
          + e.getMessage() + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DictThrottledException("interrupted while lowering the mirror to DICT's policies", e);
    }
    return table;
  }
}
