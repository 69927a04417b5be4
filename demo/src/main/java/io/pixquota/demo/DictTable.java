package io.pixquota.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/** The DICT scenario's runs side by side, one row per figure. */
final class DictTable {
  private DictTable() {}

  static void print(PrintStream out, Map<String, DictResult> results) {
    List<DictResult> runs = new ArrayList<>(results.values());
    row(out, "", runs, r -> r.name.equals("sdk") ? "through the SDK" : r.name);
    row(out, "honest lookups", runs, r -> Long.toString(r.honestTotal()));
    row(out, "  served (200)", runs, r -> Long.toString(r.honest("200")));
    TreeSet<String> policies = new TreeSet<>();
    runs.forEach(r -> policies.addAll(r.providerRefusedByPolicy().keySet()));
    row(out, "  refused by DICT (429)", runs, r -> Long.toString(r.honestRefused() - r.honest("refused locally",
        "throttled")));
    row(out, "  refused by the mirror", runs, r -> Long.toString(r.honest("refused locally", "throttled")));
    row(out, "scanner lookups sent to DICT", runs, r -> Long.toString(r.scannerSent()));
    row(out, "  of which 404", runs, r -> Long.toString(r.scanner("404")));
    row(out, "  of which 429", runs, r -> Long.toString(r.scannerSent() - r.scanner("404") - r.scanner("200")));
    row(out, "scanner refused by the mirror", runs, r -> Long.toString(r.scanner("refused locally")));
    row(out, "DICT's 429s, by policy", runs, r -> "");
    for (String p : policies) {
      row(out, "  " + p, runs, r -> Long.toString(r.providerRefusedByPolicy().getOrDefault(p, 0L)));
    }
    row(out, "DICT participant bucket, lowest", runs, r -> ResultTable.number(Math.round(r.participantMin())));
    row(out, "mirror round trips per lookup", runs, r -> r.name.equals("sdk")
        ? String.format(Locale.ROOT, "%.3f", r.roundTripsPerLookup()) : "-");
    out.println();
    DictResult sdk = results.get("sdk");
    if (sdk != null) {
      out.println(sdk.providerRefusals() == 0
          ? "Through the SDK: 0 x 429 from DICT; the scanner was refused by the mirror without calling DICT."
          : "Through the SDK: DICT answered 429 to " + sdk.providerRefusals() + " lookups the mirror let through.");
    }
  }

  private static void row(PrintStream out, String label, List<DictResult> runs, Function<DictResult, String> cell) {
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-38s", label));
    for (DictResult r : runs) {
      line.append(String.format(Locale.ROOT, "%18s", cell.apply(r)));
    }
    out.println(line.toString().stripTrailing());
  }
}
