package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRequest;
import java.net.URI;
import java.util.Locale;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The start fails when a client the starter builds would send its requests past every named quota: a typo in
 * {@code pixquota.quotas.pix.host}, or a base URL on another host, would leave it unthrottled, silently, until the
 * provider answers 429. Checked on the request the client makes most ({@code GET <base>pix/<e2eid>},
 * {@code GET <base>entries/<key>}), as the throttle routes it.
 */
final class PixQuotaCoverage {
  /** What a PixClient's {@code getPix} asks: an endToEndId of 32 characters below the base URL. */
  static final String PIX_PATH = "pix/E00000000202601010000A0000000000";
  /** What a DictClient's lookup asks below its base URL. */
  static final String DICT_PATH = "entries/user%40example.com";

  private PixQuotaCoverage() {}

  /** A PixClient's or ReactivePixClient's: with named quotas, unless pixquota.provider.unthrottled. */
  static void pix(Throttle throttle, PixQuotaProperties p, String client) {
    if (!p.getQuotas().isEmpty() && !p.getProvider().isUnthrottled()) {
      check(throttle, client, "pixquota.provider.base-url", p.getProvider().getBaseUrl(), PIX_PATH,
          "pixquota.provider.unthrottled");
    }
  }

  /**
   * @param client   the client, as the message names it
   * @param property the base URL's property
   * @param optOut   the property that says the client may go unthrottled, null when none may
   * @throws InvalidConfigurationPropertyValueException naming the base URL and the quotas, when no quota takes it
   */
  static void check(Throttle throttle, String client, String property, URI base, String path, String optOut) {
    URI request = base.resolve(path);
    String host = request.getHost() == null ? null : request.getHost().toLowerCase(Locale.ROOT);
    if (throttle.throttles(ThrottleRequest.of("GET", request.getRawPath()).withHost(host))) {
      return;
    }
    throw new InvalidConfigurationPropertyValueException(property, base, client + "'s requests (GET "
        + request.getHost() + request.getRawPath() + ") are taken by no quota of pixquota.quotas " + throttle.routing()
        + ": they would reach the provider unthrottled. Give a quota its host and path"
        + (optOut == null ? "" : ", or set " + optOut + "=true to send them unthrottled"));
  }
}
