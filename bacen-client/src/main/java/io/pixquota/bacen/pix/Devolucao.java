package io.pixquota.bacen.pix;

import java.math.BigDecimal;
import java.time.OffsetDateTime;

/**
 * A devolução of a Pix.
 *
 * @param id       the devolução's id given by the receiver
 * @param rtrId    the return's end-to-end id
 * @param valor    amount returned
 * @param natureza nature of the return (e.g. ORIGINAL)
 * @param horario  when it was asked for and settled
 * @param status   its status
 * @param motivo   reason, when given
 */
public record Devolucao(String id, String rtrId, BigDecimal valor, String natureza, Horario horario,
    DevolucaoStatus status, String motivo) {

  /**
   * @param solicitacao when the return was asked for
   * @param liquidacao  when it was settled, or null
   */
  public record Horario(OffsetDateTime solicitacao, OffsetDateTime liquidacao) {}
}
