package io.pixquota.bacen.pix;

/** Status of a devolução (refund of a Pix). */
public enum DevolucaoStatus { EM_PROCESSAMENTO, DEVOLVIDO, NAO_REALIZADO }
