package io.pixquota.bacen.pix;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * A Pix as {@code GET /pix/{e2eid}} returns it. Immutable.
 *
 * @param endToEndId  the Pix's end-to-end id
 * @param txid        the charge's txid, when the Pix paid one
 * @param valor       amount
 * @param chave       the receiver's key, when given
 * @param horario     when it was paid
 * @param infoPagador the payer's note, or null
 * @param devolucoes  returns of this Pix (never null)
 */
public record Pix(String endToEndId, String txid, BigDecimal valor, String chave, OffsetDateTime horario,
    String infoPagador, List<Devolucao> devolucoes) {
  public Pix {
    devolucoes = devolucoes == null ? List.of() : List.copyOf(devolucoes);
  }

  @Override
  public String toString() {
    return "Pix{endToEndId=" + PixIds.mask(endToEndId) + ", valor=" + valor + ", horario=" + horario
        + ", devolucoes=" + devolucoes.size() + "}";
  }
}
