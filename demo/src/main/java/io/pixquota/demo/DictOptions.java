package io.pixquota.demo;

import picocli.CommandLine.Option;

/** The demo's DICT scenario options ({@code --dict} and what goes with it). */
final class DictOptions {
  /** Who scans: one end-user id for all its lookups, or a new one for each. */
  enum Scanner { ROTATE, FIXED }

  @Option(names = "--dict", description = "The DICT scan scenario: honest payers of two replicas (with standing, "
      + "and new ones) and a scanner, direct vs through the SDK's mirror of DICT's policies.")
  boolean dict;

  @Option(names = "--dict-counting", defaultValue = "later:F", description = "With --dict: the DICT policies, "
      + "v1.2.0 or later:<category A..H> (default ${DEFAULT-VALUE}: a 404 costs the participant 3, a small bucket).")
  String counting;

  @Option(names = "--scanner", defaultValue = "rotate", description = "With --dict: rotate (a new end-user id for "
      + "every lookup: no user bucket ever stops it; the default) or fixed (one id).")
  String scanner;

  @Option(names = "--scanner-threads", defaultValue = "2", description = "With --dict: the scanner's threads, 20 "
      + "lookups a second each (default ${DEFAULT-VALUE}; 1..64).")
  int scannerThreads;

  @Option(names = "--dict-reserve", description = "With --dict: the share of each participant bucket kept for "
      + "payers with standing, 0..1 (default: the SDK's, 0.5).")
  Double reserve;
}
