package io.pixquota.mock;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mock's API Pix: the bearer token checked, the integrator's requests in flight capped, its quota decided and
 * announced in {@code RateLimit} headers, the answer served and audited; {@code GET /policies/{name}}. Threadsafe.
 */
final class PixApi {
  private static final Logger LOG = LoggerFactory.getLogger(PixApi.class);
  private final MockConfig config;
  private final Sessions sessions;
  private final Quota quota;
  private final InFlight inFlight;
  private final Audit audit;
  private final Incident incident;
  private volatile boolean warming;

  PixApi(MockConfig config, Sessions sessions, Quota quota, InFlight inFlight, Audit audit, Incident incident) {
    this.config = config;
    this.incident = incident;
    this.sessions = sessions;
    this.quota = quota;
    this.inFlight = inFlight;
    this.audit = audit;
  }

  /** While true, requests are the mock's own warm-up: no latency. */
  void warming(boolean on) {
    this.warming = on;
  }

  /** A request below the API Pix prefix: its bearer token, the cap in flight, the quota, the answer. */
  void handle(HttpExchange exchange, String method, String path) throws IOException {
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    if (authorization == null || !authorization.startsWith("Bearer ")) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      Answers.sendProblem(exchange, 401, "AcessoNegado", "Não autorizado", "a bearer token is required");
      return;
    }
    Sessions.Session session = sessions.valid(authorization.substring("Bearer ".length()).trim());
    if (session == null) {
      Answers.sendProblem(exchange, 403, "AcessoNegado", "Acesso negado", "the bearer token is unknown or expired");
      return;
    }
    if (!method.equals("GET")) {
      Answers.sendProblem(exchange, 405, "RequisicaoInvalida", "Requisição inválida", "only GET is served");
      return;
    }
    String pix = path.substring(config.pixPrefix().length());
    if (pix.startsWith("/policies/")) {
      policies(exchange, session, pix.substring("/policies/".length()));
      return;
    }
    long arrival = System.nanoTime();
    int down = incident.status(); // counted there, not in the audit: the audit is the quota's view
    if (down != 0) {
      if (incident.retryAfterSeconds() > 0) {
        exchange.getResponseHeaders().set("Retry-After", Long.toString(incident.retryAfterSeconds()));
      }
      Answers.sendProblem(exchange, down, down == 429 ? "LimiteDeRequisicoesExcedido" : "ServicoIndisponivel",
          down == 429 ? "Limite de requisições excedido" : "Serviço indisponível", "the provider's incident");
      return;
    }
    if (!inFlight.enter(session.integrator())) {
      audit.record(session.integrator(), arrival, 429, exchange.getRequestHeaders().getFirst("X-Replica-Id"), false);
      Answers.sendProblem(exchange, 429, "LimiteDeRequisicoesExcedido", "Limite de requisições excedido",
          "more than " + inFlight.cap() + " requests in flight");
      return;
    }
    Runnable answering = inFlight.leaving(session.integrator());
    try {
      admitted(exchange, session, pix, answering);
    } finally {
      answering.run(); // a failure before any answer: out of flight all the same
    }
  }

  /** A request within the cap on calls in flight: the delay (in flight), the quota, the answer. */
  private void admitted(HttpExchange exchange, Sessions.Session session, String path, Runnable answering)
      throws IOException {
    delay();
    long arrival = System.nanoTime();
    Quota.Decision decision;
    try {
      decision = quota.acquire(session.integrator(), arrival);
    } catch (RedisSlidingWindowQuota.QuotaUnavailableException e) {
      answering.run();
      Answers.sendProblem(exchange, 503, "ServicoIndisponivel", "Serviço indisponível", "quota store unavailable");
      return;
    }
    rateLimitHeaders(exchange, decision);
    String replica = exchange.getRequestHeaders().getFirst("X-Replica-Id");
    if (!decision.allowed()) {
      audit.record(session.integrator(), arrival, 429, replica, false);
      if (config.retryAfter()) {
        exchange.getResponseHeaders().set("Retry-After", Long.toString(config.retryAfterSeconds() > 0
            ? config.retryAfterSeconds() : decision.retryAfterSeconds()));
      }
      answering.run();
      Answers.sendProblem(exchange, 429, "LimiteDeRequisicoesExcedido", "Limite de requisições excedido",
          "quota of " + config.policy() + " exceeded");
      return;
    }
    Answers.Answer answer = PixAnswers.serve(path);
    int status = answer.status();
    audit.record(session.integrator(), arrival, status, replica, true);
    Double cost = config.statusCosts().get(status);
    if (cost != null && cost > 1) {
      // charged before the answer leaves: a caller that sends its next request on this answer must find it charged
      try {
        quota.charge(session.integrator(), cost - 1, System.nanoTime());
      } catch (RedisSlidingWindowQuota.QuotaUnavailableException e) {
        LOG.warn("could not charge {} extra tokens for status {}: quota store unavailable", cost - 1, status);
      }
    }
    answering.run(); // its answer leaves: no longer in flight, as the provider counts
    Answers.send(exchange, answer);
  }

  private void policies(HttpExchange exchange, Sessions.Session session, String name) throws IOException {
    if (!name.equals(config.policyName())) {
      Answers.sendProblem(exchange, 404, "NaoEncontrado", "Política não encontrada", "no policy with this name");
      return;
    }
    Map<String, Object> body = policyJson();
    body.put("name", config.policyName());
    try {
      body.put("availableTokens", quota.state(session.integrator(), System.nanoTime()).available());
    } catch (RedisSlidingWindowQuota.QuotaUnavailableException e) {
      Answers.sendProblem(exchange, 503, "ServicoIndisponivel", "Serviço indisponível", "quota store unavailable");
      return;
    }
    Answers.send(exchange, Answers.json(200, body));
  }

  Map<String, Object> policyJson() {
    QuotaPolicy p = config.policy();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", p.kind().name());
    body.put("capacity", p.limit());
    body.put("refillTokens", p.refillTokens());
    body.put("refillPeriodMillis", p.periodMillis());
    return body;
  }

  private void rateLimitHeaders(HttpExchange exchange, Quota.Decision d) {
    QuotaPolicy p = config.policy();
    exchange.getResponseHeaders().set("RateLimit-Policy",
        "\"" + config.policyName() + "\";q=" + p.limit() + ";w=" + p.windowSeconds());
    exchange.getResponseHeaders().set("RateLimit",
        "\"" + config.policyName() + "\";r=" + d.remaining() + ";t=" + d.resetSeconds());
  }

  /** The provider's latency (and jitter), as configured; none while the mock warms itself up. */
  void delay() {
    if (warming) {
      return; // its own warm-up: the code paths, not the latency
    }
    long millis = config.latencyMs() + (config.jitterMs() > 0
        ? ThreadLocalRandom.current().nextLong(config.jitterMs() + 1) : 0);
    if (millis > 0) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
