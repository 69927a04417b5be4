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
    for (String[] g : new String[][] {{"standing", "payers with standing: lookups"}, {"new", "new payers: lookups"}}) {
      row(out, g[1], runs, r -> Long.toString(r.count(g[0])));
      row(out, "  served (200)", runs, r -> served(r, g[0]));
      row(out, "  refused by DICT (429)", runs, r -> Long.toString(r.countStarting(g[0], "429")));
      row(out, "  refused by the mirror", runs, r -> Long.toString(r.countStarting(g[0], "refused")));
    }
    row(out, "scanner lookups sent to DICT", runs, r -> Long.toString(r.scannerSent()));
    row(out, "  of which 404", runs, r -> Long.toString(r.count("scanner", "404")));
    row(out, "  of which 429", runs, r -> Long.toString(r.countStarting("scanner", "429")));
    row(out, "scanner refused by the mirror", runs, r -> Long.toString(r.countStarting("scanner", "refused")));
    for (String kind : new String[] {"user", "reserve", "participant"}) {
      row(out, "  by " + (kind.equals("user") ? "its user bucket" : kind.equals("reserve") ? "the reserve"
          : "no slot in max wait"), runs, r -> Long.toString(r.count("scanner", "refused: " + kind)));
    }
    TreeSet<String> policies = new TreeSet<>();
    runs.forEach(r -> policies.addAll(r.providerRefusedByPolicy().keySet()));
    row(out, "DICT's 429s, by policy", runs, r -> "");
    for (String p : policies) {
      row(out, "  " + p, runs, r -> Long.toString(r.providerRefusedByPolicy().getOrDefault(p, 0L)));
    }
    row(out, "DICT participant bucket, lowest", runs, r -> ResultTable.number(Math.round(r.participantMin())));
    row(out, "mirror round trips per lookup", runs, r -> r.throughMirror()
        ? String.format(Locale.ROOT, "%.3f", r.roundTripsPerLookup()) : "-");
    row(out, "  per lookup it refused", runs, r -> r.throughMirror()
        ? String.format(Locale.ROOT, "%.4f", r.roundTripsPerRefusal()) : "-");
    out.println();
    DictResult sdk = results.get("sdk");
    if (sdk != null) {
      out.println(sdk.providerRefusals() == 0
          ? "Through the SDK: 0 x 429 from DICT; the scanner was refused by the mirror without calling DICT."
          : "Through the SDK: DICT answered 429 to " + sdk.providerRefusals() + " lookups the mirror let through.");
    }
  }

  private static String served(DictResult r, String group) {
    long all = r.count(group);
    return all == 0 ? "0" : String.format(Locale.ROOT, "%d (%.0f%%)", r.count(group, "200"),
        100.0 * r.count(group, "200") / all);
  }

  private static void row(PrintStream out, String label, List<DictResult> runs, Function<DictResult, String> cell) {
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-38s", label));
    for (DictResult r : runs) {
      line.append(String.format(Locale.ROOT, "%18s", cell.apply(r)));
    }
    out.println(line.toString().stripTrailing());
  }
}
