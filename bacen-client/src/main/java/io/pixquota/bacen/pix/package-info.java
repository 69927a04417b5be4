/**
 * A typed client for the API Pix ({@code GET /pix/{e2eid}}, {@code GET /cob/{txid}}) whose every call passes through
 * the shared token bucket: {@link io.pixquota.bacen.pix.PixClient}. Provider errors become a small family of
 * unchecked exceptions under {@link io.pixquota.bacen.pix.PixException}.
 */
package io.pixquota.bacen.pix;

