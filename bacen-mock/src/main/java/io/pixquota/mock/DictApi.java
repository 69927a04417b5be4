package io.pixquota.mock;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The judge's DICT, under its prefix ({@code /api/v1} by default, as the published specification 1.8.0):
 * {@code GET {prefix}/entries/{Key}} (the participant known by {@code PI-RequestingParticipant}, as the real DICT
 * knows it by its mTLS certificate: no OAuth token), {@code GET {prefix}/policies[/{policy}]}, and
 * {@code POST {prefix}/settlements/{EndToEndId}}, which stands for the settlement of the lookup's payment (its
 * credit).
 * Every lookup answer carries the {@code PI-RateLimit-*} headers; an empty bucket answers 429 {@code RateLimited}.
 */
final class DictApi {
  private static final Pattern ISPB = Pattern.compile("[0-9]{8}");
  private static final Pattern PAYER = Pattern.compile("[A-Za-z0-9]{1,64}");
  private static final Pattern E2E = Pattern.compile("E[0-9A-Z]{8}[0-9]{12}[0-9A-Za-z]{11}");

  private final DictState state;
  private final DictDirectory directory = new DictDirectory();
  private final Runnable delay;
  private final String entries;
  private final String policies;
  private final String settlements;

  DictApi(DictPolicies table, String prefix, Runnable delay) {
    this.state = new DictState(table);
    this.delay = delay;
    this.entries = prefix + "/entries/";
    this.policies = prefix + "/policies";
    this.settlements = prefix + "/settlements/";
  }

  boolean handles(String path) {
    return path.startsWith(entries) || path.equals(policies) || path.startsWith(policies + "/")
        || path.startsWith(settlements);
  }

  DictState state() {
    return state;
  }

  DictDirectory directory() {
    return directory;
  }

  void handle(HttpExchange exchange, String method, String path) throws IOException {
    String participant = exchange.getRequestHeaders().getFirst("PI-RequestingParticipant");
    if (participant == null || !ISPB.matcher(participant).matches()) {
      Answers.send(exchange, DictXml.problem(400, "BadRequest", "Bad request",
          "PI-RequestingParticipant must be the participant's 8-digit ISPB"));
      return;
    }
    if (path.startsWith(entries) && method.equals("GET")) {
      entry(exchange, participant, path.substring(entries.length()));
    } else if (path.startsWith(policies) && method.equals("GET")) {
      policies(exchange, participant, path.length() > policies.length() + 1
          ? path.substring(policies.length() + 1) : null);
    } else if (path.startsWith(settlements) && method.equals("POST")) {
      boolean credited = state.settle(path.substring(settlements.length()));
      if (credited) {
        exchange.sendResponseHeaders(204, -1);
      } else {
        Answers.send(exchange, DictXml.problem(404, "NotFound", "Not found",
            "no lookup of that end-to-end id awaits its payment (unknown, or credited already)"));
      }
    } else {
      Answers.send(exchange, DictXml.problem(405, "MethodNotAllowed", "Method not allowed", method + " " + path));
    }
  }

  private void entry(HttpExchange exchange, String participant, String key) throws IOException {
    String payer = exchange.getRequestHeaders().getFirst("PI-PayerId");
    String e2eid = exchange.getRequestHeaders().getFirst("PI-EndToEndId");
    String payerType = exchange.getRequestHeaders().getFirst("PI-PayerType");
    String keyType = DictDirectory.type(key);
    String bad = payer == null || !PAYER.matcher(payer).matches() ? "PI-PayerId is required: 1 to 64 letters or digits"
        : e2eid == null || !E2E.matcher(e2eid).matches()
            ? "PI-EndToEndId is required: an end-to-end id of 32 characters"
        : keyType == null ? "the key is not a CPF, a CNPJ, a phone, an e-mail or an EVP"
        : payerType != null && !payerType.equals("NATURAL_PERSON") && !payerType.equals("LEGAL_PERSON")
            ? "PI-PayerType must be NATURAL_PERSON or LEGAL_PERSON" : null;
    if (bad != null) {
      Answers.send(exchange, DictXml.problem(400, "BadRequest", "Bad request", bad));
      return;
    }
    delay.run();
    DictState.Outcome o = state.lookup(participant, payer, "LEGAL_PERSON".equals(payerType), keyType, e2eid,
        () -> directory.exists(key) ? 200 : 404);
    for (Map.Entry<String, String> h : o.headers().entrySet()) {
      exchange.getResponseHeaders().set(h.getKey(), h.getValue());
    }
    Answers.send(exchange, switch (o.status()) {
      case 200 -> DictXml.entry(key, keyType, participant);
      case 404 -> DictXml.problem(404, "NotFound", "Not found", "no entry for that key");
      default -> DictXml.problem(429, "RateLimited", "Too many requests",
          "a rate-limiting policy's bucket is empty; try again later");
    });
  }

  private void policies(HttpExchange exchange, String participant, String name) throws IOException {
    DictPolicies table = state.table();
    String category = table.category() == '-' ? "A" : String.valueOf(table.category());
    if (name == null) {
      StringBuilder all = new StringBuilder();
      for (DictPolicies.Policy p : table.policies()) {
        all.append(xml(participant, p));
      }
      Answers.send(exchange, DictXml.policies(category, all.toString()));
      return;
    }
    DictPolicies.Policy p = table.policy(name);
    if (p == null) {
      Answers.send(exchange, DictXml.problem(404, "NotFound", "Not found", "no policy " + name));
      return;
    }
    Answers.send(exchange, DictXml.bucketState(category, xml(participant, p)));
  }

  private String xml(String participant, DictPolicies.Policy p) {
    if (p.scope() == DictPolicies.Scope.USER) {
      return DictXml.policy(p, -1, p.capacity());
    }
    double[] s = state.state(participant, p);
    return DictXml.policy(p, s[0], s[1]);
  }
}
