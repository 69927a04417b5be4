package io.pixquota.throttle;

import java.util.Objects;

/**
 * A request's flow of its own: the service its quota's shares count it against, instead of the throttle's
 * ({@link ThrottleBuilder#flow}). OkHttp: {@code new Request.Builder().tag(Flow.class, new Flow("reconciliation"))};
 * Spring's WebClient, RestClient and RestTemplate: the request attribute {@link #ATTRIBUTE} set to the flow's name;
 * the core: {@link ThrottleRequest#withFlow}. A name the shares do not name takes the share of "*".
 *
 * @param name the flow's name, not blank
 */
public record Flow(String name) {
  /** The name of the Spring request attribute (a {@code String}: the flow's name). */
  public static final String ATTRIBUTE = Flow.class.getName();

  /** @throws IllegalArgumentException for a blank name; NullPointerException for null */
  public Flow {
    if (Objects.requireNonNull(name, "name cannot be null").isBlank()) {
      throw new IllegalArgumentException("a flow's name cannot be blank");
    }
  }

  /**
   * The flow's name a Spring request attribute {@link #ATTRIBUTE} holds: null when unset.
   *
   * @throws IllegalArgumentException when it is not a String, naming the attribute and its type
   */
  public static String fromAttribute(Object attribute) {
    if (attribute != null && !(attribute instanceof String)) {
      throw new IllegalArgumentException("request attribute " + ATTRIBUTE + " must be a String (the flow's name), "
          + "but was " + attribute.getClass().getName());
    }
    return (String) attribute;
  }
}
