package io.pixquota.bacen.dict;

/**
 * DICT answered 429 {@code RateLimited}: one of its buckets was empty. With the mirror in front, only traffic the
 * mirror does not see (another system on the participant's certificate) or a mirror started empty of what DICT
 * counted leads here; it is counted by policy ({@code bacen.dict.provider.refused}).
 */
public final class DictRateLimitedException extends DictException {
  private static final long serialVersionUID = 1L;
  private final String policy;

  DictRateLimitedException(String policy) {
    super("DICT refused the lookup (429 RateLimited)" + (policy == null ? "" : ": " + policy + " is empty"), null);
    this.policy = policy;
  }

  /** The policy DICT's headers named with no token left; null when they named none. */
  public String policy() {
    return policy;
  }
}
