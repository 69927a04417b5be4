package io.pixquota.mock;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Responses as API Pix writes them: JSON bodies, and RFC 7807 problems with the API's error types. */
final class Answers {
  static final String ERROR_TYPE = "https://pix.bcb.gov.br/api/v2/error/";
  static final ObjectMapper JSON = new ObjectMapper();

  /** A response not yet sent: the audit records it first, so that stats read after a response include it. */
  record Answer(int status, String contentType, byte[] body) {}

  private Answers() {}

  static Answer json(int status, Object body) throws IOException {
    return new Answer(status, "application/json", JSON.writeValueAsBytes(body));
  }

  /** {@code application/problem+json} of type {@code ERROR_TYPE + name}, with a correlationId and violations. */
  static Answer problem(int status, String name, String title, String detail, String field) throws IOException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", ERROR_TYPE + name);
    body.put("title", title);
    body.put("status", status);
    if (detail != null) {
      body.put("detail", detail);
    }
    body.put("correlationId", UUID.randomUUID().toString());
    if (field != null) {
      body.put("violacoes", List.of(Map.of("razao", detail, "propriedade", field)));
    }
    return new Answer(status, "application/problem+json", JSON.writeValueAsBytes(body));
  }

  static void send(HttpExchange exchange, Answer a) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", a.contentType() + "; charset=utf-8");
    exchange.sendResponseHeaders(a.status(), a.body().length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(a.body());
    }
  }

  static void sendProblem(HttpExchange exchange, int status, String name, String title, String detail)
      throws IOException {
    send(exchange, problem(status, name, title, detail, null));
  }
}
