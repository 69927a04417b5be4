package io.pixquota.snippets;

import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.dict.DictEntry;
import io.pixquota.bacen.dict.DictNotFoundException;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.bacen.dict.DictReserveRefusedException;
import io.pixquota.bacen.dict.DictUserRefusedException;
import java.net.URI;
import java.time.Duration;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.X509TrustManager;
import org.redisson.api.RedissonClient;

/** A DICT key lookup through the fleet's mirror of DICT's buckets, and what a refusal means to the caller. */
final class DictLookups {
  private DictLookups() {}

  static void lookUp(RedissonClient redisson, MeterRegistry meterRegistry, SSLSocketFactory sslSocketFactory,
      X509TrustManager trustManager, String payerSecret, String payerCpf) {
    // region dict
    DictClient dict = DictClient.builder(DictClientConfig.builder()
            .baseUrl(URI.create("https://dict.pi.rsfn.net.br:16422/api/v1/")) // where DICT serves, as given
            .participant("12345678")                               // your ISPB: PI-RequestingParticipant
            .payerSecret(payerSecret)                              // HMAC key of PI-PayerId: no CPF leaves the SDK
            .policies(DictPolicies.later('C'))                     // or v1.2.0; DICT's GET /policies resizes them
            .build())
        .redisson(redisson).meterRegistry(meterRegistry).tls(sslSocketFactory, trustManager).build();
    dict.warmUp();                                                 // the participant's buckets from DICT itself
    try {
      DictEntry e = dict.getEntry("maria@example.com", payerCpf);  // one round trip to Redis, then DICT
      // ... pay with e.endToEndId(); once the SPI confirms the settlement:
      dict.paymentSettled(e.endToEndId());                         // the lookup's credit, once, on any replica
    } catch (DictUserRefusedException refused) {                   // this user's bucket is spent: not sent
      tryAgainIn(refused.retryAfter());                            // minutes, not a wait
    } catch (DictReserveRefusedException reserve) {                // a scan holds the participant's bucket at its
      tryAgainIn(reserve.retryAfter());                            // reserve, kept for payers with standing
    } catch (DictNotFoundException notFound) {
      noSuchKey();
    }
    // DictLookup.of(key, cpf).withTrust(TRUSTED): your fraud checks vouch for it, not held to the reserve; RISKY: last
    // endregion
  }

  private static void tryAgainIn(Duration retryAfter) {}

  private static void noSuchKey() {}
}
