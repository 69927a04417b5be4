package io.pixquota.mock;

import java.io.IOException;

/** API Pix's answers, below the prefix the mock serves it under: {@code /pix/{e2eid}} and {@code /cob/{txid}}. */
final class PixAnswers {
  private PixAnswers() {}

  /** An API Pix answer; {@code path} is below the prefix ({@code /pix/...}). */
  static Answers.Answer serve(String path) throws IOException {
    if (path.startsWith("/pix/")) {
      String id = path.substring("/pix/".length());
      String invalid = PixData.endToEndIdProblem(id);
      if (invalid != null) {
        return Answers.problem(400, "RequisicaoInvalida", "Requisição inválida", invalid, "e2eid");
      }
      if (PixData.unknown(id)) {
        return Answers.problem(404, "PixNaoEncontrado", "Pix não encontrado", "no Pix with this endToEndId", null);
      }
      return Answers.json(200, PixData.pix(id));
    }
    if (path.startsWith("/cob/")) {
      String txid = path.substring("/cob/".length());
      String invalid = PixData.txidProblem(txid);
      if (invalid != null) {
        return Answers.problem(400, "RequisicaoInvalida", "Requisição inválida", invalid, "txid");
      }
      if (PixData.unknown(txid)) {
        return Answers.problem(404, "CobNaoEncontrado", "Cobrança não encontrada", "no charge with this txid", null);
      }
      return Answers.json(200, PixData.cob(txid));
    }
    return Answers.problem(404, "NaoEncontrado", "Recurso não encontrado", "no such endpoint", null);
  }
}
