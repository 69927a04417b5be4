package io.pixquota.mock;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The mock's {@code /admin/*} endpoints: the audit ({@code GET /admin/stats}), {@code POST /admin/reset}, and a
 * provider incident ({@code POST /admin/incident?status=503&ms=5000[&retryAfter=2]}).
 */
final class MockAdmin {
  private MockAdmin() {}

  static void handle(MockBacen mock, HttpExchange exchange, String method, String path) throws IOException {
    if (!adminAllowed(exchange.getRemoteAddress().getAddress(), mock.config().adminFromAnywhere())) {
      Answers.sendProblem(exchange, 403, "AcessoNegado", "Acesso negado",
          "admin endpoints answer loopback callers only");
      return;
    }
    if (path.equals("/admin/stats") && method.equals("GET")) {
      boolean events = String.valueOf(exchange.getRequestURI().getQuery()).contains("events=true");
      Map<String, Object> integrators = new LinkedHashMap<>();
      for (String id : mock.config().integrators().keySet()) {
        Map<String, Object> stats = new LinkedHashMap<>(mock.stats(id, events));
        stats.put("inFlight", mock.inFlightStats(id));
        integrators.put(id, stats);
      }
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("policy", mock.policyJson());
      body.put("windowMillis", mock.config().policy().periodMillis());
      body.put("originNanoTime", mock.originNanoTime()); // events' atMicros count from this System.nanoTime()
      body.put("integrators", integrators);
      body.put("dict", mock.dictStats());
      body.put("incidentAnswers", mock.incidentAnswers());
      Answers.send(exchange, Answers.json(200, body));
    } else if (path.startsWith("/admin/dict/entries/") && method.equals("POST")) {
      mock.registerDictKey(path.substring("/admin/dict/entries/".length()));
      exchange.sendResponseHeaders(204, -1);
    } else if (path.equals("/admin/dict/category") && method.equals("POST")) {
      String to = query(exchange.getRequestURI().getRawQuery()).getOrDefault("to", "");
      try {
        if (to.length() != 1) {
          throw new IllegalArgumentException("to must be one letter A..H, but was '" + to + "'");
        }
        mock.dictCategory(to.charAt(0));
      } catch (IllegalArgumentException e) {
        Answers.sendProblem(exchange, 400, "RequisicaoInvalida", "Requisição inválida", e.getMessage());
        return;
      }
      exchange.sendResponseHeaders(204, -1);
    } else if (path.equals("/admin/incident") && method.equals("POST")) {
      Map<String, String> q = query(exchange.getRequestURI().getRawQuery());
      try {
        mock.incident(Integer.parseInt(q.getOrDefault("status", "503")), Long.parseLong(q.getOrDefault("ms", "")),
            Long.parseLong(q.getOrDefault("retryAfter", "0")));
      } catch (IllegalArgumentException e) { // NumberFormatException included
        Answers.sendProblem(exchange, 400, "RequisicaoInvalida", "Requisição inválida", "status, ms, retryAfter: "
            + e.getMessage());
        return;
      }
      exchange.sendResponseHeaders(204, -1);
    } else if (path.equals("/admin/reset") && method.equals("POST")) {
      mock.reset();
      exchange.sendResponseHeaders(204, -1);
    } else {
      Answers.sendProblem(exchange, 404, "NaoEncontrado", "Recurso não encontrado", "no such admin endpoint");
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          out.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
    }
    return out;
  }

  /** Admin endpoints answer loopback callers only, unless configured to answer anyone. */
  static boolean adminAllowed(InetAddress caller, boolean fromAnywhere) {
    return fromAnywhere || caller.isLoopbackAddress();
  }
}
