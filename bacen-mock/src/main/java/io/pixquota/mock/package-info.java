/**
 * A mock BACEN: API Pix shapes ({@code GET /api/v2/pix/{e2eid}}, {@code GET /api/v2/cob/{txid}}), OAuth2 client
 * credentials, and a quota per integrator enforced like the real provider (token bucket by default, sliding or fixed
 * window, optionally shared through Redis), with an audit of the arrivals that judges whether a client stayed inside
 * the quota. Run it with {@link io.pixquota.mock.MockMain}, or embed it with {@link io.pixquota.mock.MockBacen}.
 */
package io.pixquota.mock;

