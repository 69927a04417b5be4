package io.pixquota.bacen.pix;

import java.math.BigDecimal;

/**
 * A cobrança as {@code GET /cob/{txid}} returns it (the fields this SDK reads). Immutable.
 *
 * @param txid    the charge's id
 * @param status  its status
 * @param revisao revision number
 * @param valor   the original amount
 * @param chave   the receiver's key
 */
public record Cob(String txid, CobStatus status, int revisao, BigDecimal valor, String chave) {}
