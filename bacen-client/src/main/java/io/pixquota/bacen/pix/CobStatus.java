package io.pixquota.bacen.pix;

/** Status of a cobrança (charge). */
public enum CobStatus { ATIVA, CONCLUIDA, REMOVIDA_PELO_USUARIO_RECEBEDOR, REMOVIDA_PELO_PSP }
