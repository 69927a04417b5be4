package io.pixquota.spring.autoconfigure;

/**
 * A DICT quota's lookups ({@code pixquota.quotas.<name>.dict.*}): with a participant, the quota is DICT's and the
 * starter makes a {@code DictClient} whose lookups go through the service's one throttle under this quota, each
 * booking its end user's and the participant's buckets in the mirror.
 */
public class PixQuotaDictProperties {
  /** Where DICT is served, e.g. {@code https://dict.example.com/api/v1/}; its host is the quota's unless set. */
  private String baseUrl;
  /** The participant's ISPB, 8 digits. */
  private String participant;
  /** The secret that pseudonymises end-user ids (HMAC-SHA-256) before DICT, Redis or a log sees them. */
  private String payerSecret;
  /** DICT's counting: {@code v1.2.0} or {@code later:<category>}. */
  private String policies = "v1.2.0";

  public String getBaseUrl() {
    return baseUrl;
  }

  public void setBaseUrl(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  public String getParticipant() {
    return participant;
  }

  public void setParticipant(String participant) {
    this.participant = participant;
  }

  public String getPayerSecret() {
    return payerSecret;
  }

  public void setPayerSecret(String payerSecret) {
    this.payerSecret = payerSecret;
  }

  public String getPolicies() {
    return policies;
  }

  public void setPolicies(String policies) {
    this.policies = policies;
  }

  /** Never shows the payer secret. */
  @Override
  public String toString() {
    return "PixQuotaDictProperties{" + baseUrl + ", participant " + participant + ", " + policies + "}";
  }
}
