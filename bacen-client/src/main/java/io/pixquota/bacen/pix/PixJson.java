package io.pixquota.bacen.pix;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.pixquota.throttle.plan.ProviderPolicy;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;

/**
 * The provider's JSON bodies as this SDK's types: a {@link Pix}, a {@link Cob}, a {@link ProviderPolicy}. Unknown
 * fields are ignored; a missing required field or an unknown enum value is an {@link IOException}.
 */
final class PixJson {
  final ObjectMapper mapper = JsonMapper.builder().addModule(new JavaTimeModule())
      .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION) // a payer's name never in a message
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
  /**
   * Readers with their deserializers resolved now, not at a first call: Jackson resolves them under a lock, which
   * concurrent first answers would wait for on an event loop (BlockHound saw it in a cold WebFlux burst).
   */
  final ObjectReader tree = mapper.readerFor(JsonNode.class);
  private final ObjectReader pixReader = mapper.readerFor(Pix.class);

  Pix pix(JsonNode body) throws IOException {
    Pix pix = pixReader.readValue(body);
    if (pix.endToEndId() == null || pix.valor() == null) {
      throw new IOException("a Pix without endToEndId or valor");
    }
    return pix;
  }

  Cob cob(JsonNode body) throws IOException {
    JsonNode status = body.get("status");
    if (status == null || !status.isTextual()) {
      throw new IOException("a charge without status");
    }
    CobStatus parsed;
    try {
      parsed = CobStatus.valueOf(status.asText());
    } catch (IllegalArgumentException e) {
      throw new IOException("unknown charge status", e);
    }
    JsonNode original = body.path("valor").path("original");
    return new Cob(body.path("txid").asText(null), parsed, body.path("revisao").asInt(),
        original.isMissingNode() || original.isNull() ? null : new BigDecimal(original.asText()),
        body.path("chave").asText(null));
  }

  /**
   * {@code GET /policies/{name}}, as BACEN's DICT documents it and the mock serves it.
   *
   * @throws IllegalArgumentException for an unknown kind or unusable numbers
   */
  ProviderPolicy policy(JsonNode body) {
    String kind = body.path("kind").asText();
    double capacity = body.path("capacity").asDouble();
    double refill = body.path("refillTokens").asDouble();
    Duration period = Duration.ofMillis(body.path("refillPeriodMillis").asLong());
    return switch (kind) {
      case "BUCKET", "TOKEN_BUCKET" -> ProviderPolicy.tokenBucket(capacity, refill, period);
      case "SLIDING", "SLIDING_WINDOW" -> ProviderPolicy.slidingWindow(capacity, period);
      case "FIXED", "FIXED_WINDOW" -> ProviderPolicy.fixedWindow(capacity, period);
      default -> throw new IllegalArgumentException("unknown policy kind '" + kind + "'");
    };
  }
}
