package io.pixquota.mock;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;

/**
 * Deterministic API Pix data: the same id always gives the same body. The documented rule for unknown ids: an
 * endToEndId or txid that <b>ends in {@code 404}</b> does not exist (404 PixNaoEncontrado / CobNaoEncontrado).
 */
final class PixData {
  static final Pattern END_TO_END_ID = Pattern.compile("E[0-9A-Z]{8}[0-9]{12}[a-zA-Z0-9]{11}");
  static final Pattern TXID = Pattern.compile("[a-zA-Z0-9]{26,35}");
  private static final DateTimeFormatter E2E_TIME =
      DateTimeFormatter.ofPattern("uuuuMMddHHmm").withResolverStyle(ResolverStyle.STRICT);
  private static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  private static final String[] DEVOLUCAO_STATUS = {"EM_PROCESSAMENTO", "DEVOLVIDO", "NAO_REALIZADO"};
  private static final String[] COB_STATUS = {
      "ATIVA", "CONCLUIDA", "REMOVIDA_PELO_USUARIO_RECEBEDOR", "REMOVIDA_PELO_PSP"};

  private PixData() {}

  /** Why an endToEndId is malformed, or null when it is well formed. */
  static String endToEndIdProblem(String id) {
    if (id.length() != 32) {
      return "endToEndId must have 32 characters, but had " + id.length();
    }
    if (!END_TO_END_ID.matcher(id).matches()) {
      return "endToEndId must match E + ISPB (8) + yyyyMMddHHmm + 11 alphanumerics";
    }
    try {
      LocalDateTime.parse(id.substring(9, 21), E2E_TIME);
    } catch (DateTimeParseException e) {
      return "endToEndId carries an invalid date-time";
    }
    return null;
  }

  static String txidProblem(String txid) {
    return TXID.matcher(txid).matches() ? null : "txid must match [a-zA-Z0-9]{26,35}";
  }

  static boolean unknown(String id) {
    return id.endsWith("404");
  }

  static Map<String, Object> pix(String e2eid) {
    Random random = seeded(e2eid);
    LocalDateTime minute = LocalDateTime.parse(e2eid.substring(9, 21), E2E_TIME);
    LocalDateTime horario = minute.plusSeconds(random.nextInt(60)).plusNanos(random.nextInt(1000) * 1_000_000L);
    BigDecimal valor = money(random, 1_000_000);
    Map<String, Object> pix = new LinkedHashMap<>();
    pix.put("endToEndId", e2eid);
    pix.put("txid", alnum(random, 26 + random.nextInt(10)));
    pix.put("valor", valor.toPlainString());
    pix.put("chave", alnum(random, 8).toLowerCase() + "@example.com");
    pix.put("horario", iso(horario));
    if (random.nextBoolean()) {
      pix.put("infoPagador", "Pagamento " + random.nextInt(1000));
    }
    List<Map<String, Object>> devolucoes = new ArrayList<>();
    int count = random.nextInt(4) == 0 ? 1 + random.nextInt(2) : 0;
    for (int i = 0; i < count; i++) {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("id", "D" + alnum(random, 20));
      d.put("rtrId", "D" + e2eid.substring(1, 9) + e2eid.substring(9, 21) + alnum(random, 11));
      d.put("valor", money(random, valor.movePointRight(2).longValue()).toPlainString());
      d.put("natureza", "ORIGINAL");
      String status = DEVOLUCAO_STATUS[random.nextInt(DEVOLUCAO_STATUS.length)];
      Map<String, Object> h = new LinkedHashMap<>();
      h.put("solicitacao", iso(horario.plusMinutes(5 + i)));
      if (status.equals("DEVOLVIDO")) {
        h.put("liquidacao", iso(horario.plusMinutes(6 + i)));
      }
      d.put("horario", h);
      d.put("status", status);
      if (status.equals("NAO_REALIZADO")) {
        d.put("motivo", "Saldo insuficiente");
      }
      devolucoes.add(d);
    }
    pix.put("devolucoes", devolucoes);
    return pix;
  }

  static Map<String, Object> cob(String txid) {
    Random random = seeded(txid);
    Map<String, Object> cob = new LinkedHashMap<>();
    Map<String, Object> calendario = new LinkedHashMap<>();
    calendario.put("criacao", iso(LocalDateTime.of(2026, 1, 1, 0, 0).plusMinutes(random.nextInt(500_000))));
    calendario.put("expiracao", 3600);
    cob.put("calendario", calendario);
    cob.put("txid", txid);
    cob.put("revisao", random.nextInt(3));
    cob.put("status", COB_STATUS[random.nextInt(COB_STATUS.length)]);
    cob.put("valor", Map.of("original", money(random, 1_000_000).toPlainString()));
    cob.put("chave", alnum(random, 8).toLowerCase() + "@example.com");
    cob.put("solicitacaoPagador", "Cobranca " + random.nextInt(1000));
    return cob;
  }

  private static BigDecimal money(Random random, long maxCents) {
    return BigDecimal.valueOf(1 + (long) (random.nextDouble() * Math.max(1, maxCents - 1)))
        .movePointLeft(2).setScale(2, RoundingMode.UNNECESSARY);
  }

  private static String iso(LocalDateTime t) {
    return t.atOffset(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
  }

  private static String alnum(Random random, int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(ALNUM.charAt(random.nextInt(ALNUM.length())));
    }
    return sb.toString();
  }

  private static Random seeded(String id) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
      long seed = 0;
      for (int i = 0; i < 8; i++) {
        seed = (seed << 8) | (d[i] & 0xff);
      }
      return new Random(seed);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
