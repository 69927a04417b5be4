package io.pixquota.spring.autoconfigure;

import java.net.URI;
import java.time.Duration;

/** The provider's API Pix; without a base URL, no PixClient is made (the bucket and interceptors still are). */
public class PixQuotaProviderProperties {
  /**
   * Where API Pix is served (http or https), used as given: pix/{e2eid} resolves below it, e.g.
   * https://pix.example.com/api/v2/.
   */
  private URI baseUrl;

  /** The OAuth2 token endpoint; default: /oauth/token on the base URL's host (the mock's); providers differ: set it. */
  private URI tokenUrl;

  /** OAuth2 client id. */
  private String clientId;

  /** OAuth2 client secret. */
  private String clientSecret;

  /**
   * The name of a Spring Boot SSL bundle (spring.ssl.bundle.*) holding the client certificate's key store, and the
   * trust store when the provider's CA is not in the JDK's: API Pix requires mutual TLS.
   */
  private String sslBundle;

  /** The whole call's timeout, token fetch, wait for the slot and retries included. */
  private Duration callTimeout = Duration.ofSeconds(30);

  /** Attempts per call, the first included (1..20); 429, 503 and I/O errors of GETs are retried. */
  private int retryMaxAttempts = 3;

  /**
   * With named quotas, the start fails when none takes the PixClient's requests (a typo in a quota's host or path);
   * true sends them unthrottled instead.
   */
  private boolean unthrottled;

  /**
   * Connections the PixClient's warm-up opens to the provider when the application is ready, each with a GET of its
   * policy (0..1000; 0, the default, opens none: a provider may count such requests); as many as the bucket's burst
   * spares a cold replica's first burst the opening of one connection per call.
   */
  private int warmUpConnections;

  public int getWarmUpConnections() {
    return warmUpConnections;
  }

  public void setWarmUpConnections(int warmUpConnections) {
    this.warmUpConnections = warmUpConnections;
  }

  public URI getBaseUrl() {
    return baseUrl;
  }

  public void setBaseUrl(URI baseUrl) {
    this.baseUrl = baseUrl;
  }

  public URI getTokenUrl() {
    return tokenUrl;
  }

  public void setTokenUrl(URI tokenUrl) {
    this.tokenUrl = tokenUrl;
  }

  public String getClientId() {
    return clientId;
  }

  public void setClientId(String clientId) {
    this.clientId = clientId;
  }

  public String getClientSecret() {
    return clientSecret;
  }

  public void setClientSecret(String clientSecret) {
    this.clientSecret = clientSecret;
  }

  public String getSslBundle() {
    return sslBundle;
  }

  public void setSslBundle(String sslBundle) {
    this.sslBundle = sslBundle;
  }

  public Duration getCallTimeout() {
    return callTimeout;
  }

  public void setCallTimeout(Duration callTimeout) {
    this.callTimeout = callTimeout;
  }

  public boolean isUnthrottled() {
    return unthrottled;
  }

  public void setUnthrottled(boolean unthrottled) {
    this.unthrottled = unthrottled;
  }

  public int getRetryMaxAttempts() {
    return retryMaxAttempts;
  }

  public void setRetryMaxAttempts(int retryMaxAttempts) {
    this.retryMaxAttempts = retryMaxAttempts;
  }
}
