package io.pixquota.bacen.dict;

/** DICT has no entry for the key (404 {@code NotFound}), or said so within the negative cache's time. */
public final class DictNotFoundException extends DictException {
  private static final long serialVersionUID = 1L;
  private final boolean cached;

  DictNotFoundException(DictKey key, boolean cached) {
    super("no DICT entry for " + key + (cached ? " (negative cache: not asked again)" : ""), null);
    this.cached = cached;
  }

  /** Whether the answer came from the negative cache, with no lookup. */
  public boolean cached() {
    return cached;
  }
}
