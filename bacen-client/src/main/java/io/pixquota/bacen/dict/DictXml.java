package io.pixquota.bacen.dict;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * DICT's XML, read with Jackson's XML module: {@code GetEntryResponse}, a problem's type, the policies' bucket states.
 * Anything that is not the spec's shape is an {@link IllegalArgumentException} naming the element (and, for XML that
 * does not parse, the position): never the body's content, which holds an owner's name and tax id, in a message or a
 * cause, so that nothing of it reaches a log.
 */
final class DictXml {
  private static final XmlMapper XML = new XmlMapper();

  /** A policy's bucket state at the provider. */
  record PolicyState(String name, String scope, Double availableTokens, double capacity, double refillTokens,
      long refillPeriodSeconds) {}

  private DictXml() {}

  static DictEntry entry(byte[] body, String endToEndId) throws IOException {
    JsonNode e = read(body).path("Entry");
    JsonNode account = e.path("Account");
    JsonNode owner = e.path("Owner");
    DictKey.Type type;
    try {
      type = DictKey.Type.valueOf(text(e, "KeyType"));
    } catch (IllegalArgumentException bad) {
      throw new IllegalArgumentException("Entry/KeyType is not one of " + java.util.Arrays.toString(
          DictKey.Type.values()));
    }
    return new DictEntry(text(e, "Key"), type, text(account, "Participant"), text(account, "Branch"),
        text(account, "AccountNumber"), text(account, "AccountType"), text(owner, "Type"), text(owner, "TaxIdNumber"),
        text(owner, "Name"), date(e, "CreationDate"), date(e, "KeyOwnershipDate"), endToEndId);
  }

  /** The problem's name (the last segment of its type), or null when the body is not a problem. */
  static String problem(byte[] body) {
    try {
      String type = read(body).path("type").asText("");
      int slash = type.lastIndexOf('/');
      return type.isEmpty() ? null : type.substring(slash + 1);
    } catch (IOException e) {
      return null;
    }
  }

  /** {@code ListPoliciesResponse}'s or {@code GetBucketStateResponse}'s policies. */
  static List<PolicyState> policies(byte[] body) throws IOException {
    JsonNode root = read(body);
    List<PolicyState> out = new ArrayList<>();
    JsonNode policies = root.has("Policies") ? root.path("Policies").path("Policy") : root.path("Policy");
    if (policies.isArray()) {
      for (JsonNode p : policies) {
        out.add(policy(p));
      }
    } else if (!policies.isMissingNode()) {
      out.add(policy(policies));
    }
    return out;
  }

  private static PolicyState policy(JsonNode p) {
    try {
      return new PolicyState(text(p, "Name"), p.path("Scope").asText(""), p.has("AvailableTokens")
          ? Double.parseDouble(text(p, "AvailableTokens")) : null, Double.parseDouble(text(p, "Capacity")),
          Double.parseDouble(text(p, "RefillTokens")), Long.parseLong(text(p, "RefillPeriodSec")));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("a Policy's AvailableTokens, Capacity, RefillTokens or RefillPeriodSec is "
          + "not a number");
    }
  }

  /**
   * The body as a tree, read from a stream: Jackson's XML module quotes up to 500 characters of a {@code byte[]} or
   * {@code String} source in its exceptions, whatever {@code StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION} says; of
   * a stream, only its class and the position.
   */
  private static JsonNode read(byte[] body) throws IOException {
    return XML.readTree(new ByteArrayInputStream(body));
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null || v.isContainerNode() || v.asText().isEmpty()) {
      throw new IllegalArgumentException("the answer has no " + field);
    }
    return v.asText();
  }

  private static OffsetDateTime date(JsonNode node, String field) {
    try {
      return OffsetDateTime.parse(text(node, field));
    } catch (DateTimeParseException e) { // its message quotes the text: not kept
      throw new IllegalArgumentException("Entry/" + field + " is not a date-time (unreadable at index "
          + e.getErrorIndex() + ")");
    }
  }
}
