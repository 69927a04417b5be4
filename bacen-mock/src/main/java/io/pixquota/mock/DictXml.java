package io.pixquota.mock;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

/**
 * The DICT's XML bodies, as the spec's schema names their elements: {@code GetEntryResponse}, the policies' bucket
 * states, and RFC 7807 problems ({@code application/problem+xml}, types under
 * {@code https://dict.pi.rsfn.net.br/api/v1/error/}).
 */
final class DictXml {
  static final String ERROR_TYPE = "https://dict.pi.rsfn.net.br/api/v1/error/";
  private static final String CREATED = "2024-03-01T12:00:00.000Z";

  private DictXml() {}

  static Answers.Answer entry(String key, String keyType, String participant) {
    int n = Math.floorMod(key.hashCode(), 10_000_000);
    String owner = keyType.equals("CNPJ") ? "LEGAL_PERSON" : "NATURAL_PERSON";
    String body = head("GetEntryResponse") + "<Entry><Key>" + esc(key) + "</Key><KeyType>" + keyType + "</KeyType>"
        + "<Account><Participant>" + participant + "</Participant><Branch>0001</Branch><AccountNumber>"
        + String.format("%010d", n) + "</AccountNumber><AccountType>CACC</AccountType><OpeningDate>" + CREATED
        + "</OpeningDate></Account><Owner><Type>" + owner + "</Type><TaxIdNumber>"
        + String.format("%011d", (long) n * 7 % 100_000_000_000L) + "</TaxIdNumber><Name>Titular " + n
        + "</Name></Owner><CreationDate>" + CREATED + "</CreationDate><KeyOwnershipDate>" + CREATED
        + "</KeyOwnershipDate></Entry></GetEntryResponse>";
    return xml(200, "application/xml", body);
  }

  /** A policy's bucket state; {@code available} < 0: not shown (a user-scope policy, kept per payer). */
  static String policy(DictPolicies.Policy p, double available, double capacity) {
    return "<Policy><Name>" + p.name() + "</Name><Scope>" + p.scope() + "</Scope>"
        + (available < 0 ? "" : "<AvailableTokens>" + (long) Math.max(0, available) + "</AvailableTokens>")
        + "<Capacity>" + (long) capacity + "</Capacity><RefillTokens>" + number(p.refillTokens())
        + "</RefillTokens><RefillPeriodSec>" + p.refillPeriodSeconds() + "</RefillPeriodSec></Policy>";
  }

  static Answers.Answer policies(String category, String policiesXml) {
    return xml(200, "application/xml", head("ListPoliciesResponse") + "<Category>" + category + "</Category>"
        + "<Policies>" + policiesXml + "</Policies></ListPoliciesResponse>");
  }

  static Answers.Answer bucketState(String category, String policyXml) {
    return xml(200, "application/xml", head("GetBucketStateResponse") + "<Category>" + category + "</Category>"
        + policyXml + "</GetBucketStateResponse>");
  }

  static Answers.Answer problem(int status, String name, String title, String detail) {
    String body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><problem xmlns=\"urn:ietf:rfc:7807\"><type>"
        + ERROR_TYPE + name + "</type><title>" + esc(title) + "</title><status>" + status + "</status>"
        + (detail == null ? "" : "<detail>" + esc(detail) + "</detail>") + "<correlationId>" + UUID.randomUUID()
        + "</correlationId></problem>";
    return xml(status, "application/problem+xml", body);
  }

  private static String head(String root) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><" + root + "><ResponseTime>" + Instant.now()
        + "</ResponseTime><CorrelationId>" + UUID.randomUUID() + "</CorrelationId>";
  }

  private static String number(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  private static Answers.Answer xml(int status, String type, String body) {
    return new Answers.Answer(status, type, body.getBytes(StandardCharsets.UTF_8));
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
