package io.pixquota.throttle;

/**
 * A request's opt-out: a request marked with it is sent without the throttle, whatever quota would take it (an OAuth
 * token request, a health check to the provider's host). OkHttp: {@code new Request.Builder().tag(Unthrottled.class,
 * Unthrottled.TAG)}; Spring's WebClient, RestClient and RestTemplate: the request attribute
 * {@link #ATTRIBUTE} set to {@code true}.
 */
public final class Unthrottled {
  /** The OkHttp tag. */
  public static final Unthrottled TAG = new Unthrottled();
  /** The name of the Spring request attribute ({@code true}: unthrottled). */
  public static final String ATTRIBUTE = Unthrottled.class.getName();

  private Unthrottled() {}

  @Override
  public String toString() {
    return "Unthrottled";
  }
}
