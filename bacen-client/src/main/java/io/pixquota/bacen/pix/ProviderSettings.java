package io.pixquota.bacen.pix;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the provider is and how to talk to it: a part of {@link PixClientConfig}.
 *
 * @param baseUrl            where API Pix is served, used as given, its path ending in '/': {@code pix/{e2eid}}
 *                           resolves below it
 * @param tokenUrl           the OAuth2 token endpoint
 * @param clientId           the integrator's OAuth2 client id
 * @param clientSecret       its secret; never logged, never in {@link #toString()}
 * @param callTimeout        OkHttp's call timeout for one attempt, the wait for its slot included
 * @param throttleTokenCalls whether token requests also take a slot in the bucket (providers that count them)
 */
public record ProviderSettings(URI baseUrl, URI tokenUrl, String clientId, String clientSecret, Duration callTimeout,
    boolean throttleTokenCalls) {
  @Override
  public String toString() {
    return "baseUrl=" + baseUrl + ", tokenUrl=" + tokenUrl + ", clientId=" + clientId + ", clientSecret=****, "
        + "callTimeout=" + callTimeout + (throttleTokenCalls ? ", token calls throttled" : "");
  }

  /** {@code uri} with a path that ends in '/': relative paths resolve below it, not beside it. */
  static URI directory(URI uri) {
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    return path.endsWith("/") ? uri : uri.resolve(path.substring(path.lastIndexOf('/') + 1) + "/");
  }

  /** An http(s) base URL with a host and no query or fragment, its path made a directory. */
  static URI baseUrl(URI url) {
    httpUrl("baseUrl", url);
    if (url.getRawQuery() != null || url.getRawFragment() != null) {
      throw new IllegalArgumentException("baseUrl must have no query or fragment, but was '" + url + "'");
    }
    return directory(url);
  }

  static URI httpUrl(String field, URI url) {
    Objects.requireNonNull(url, field + " cannot be null");
    if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
      throw new IllegalArgumentException(field + " must be http or https, but was '" + url + "'");
    }
    if (url.getHost() == null) {
      throw new IllegalArgumentException(field + " has no host: '" + url + "'");
    }
    return url;
  }
}
