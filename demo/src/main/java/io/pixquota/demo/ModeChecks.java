package io.pixquota.demo;

/** The demo's options, checked per mode before anything starts: each error names the option and the value. */
final class ModeChecks {
  private ModeChecks() {}

  static void check(DemoMain d) {
    if (d.foreignRate != null) {
      checkForeign(d);
    } else if (d.foreignDuringBurst) {
      throw d.bad("--foreign-during-burst goes with --foreign-rate: it says when the foreign system calls");
    }
    if (d.priorities) {
      checkPriorities(d);
    }
    if (d.failoverAtMs != null && (d.mode != DemoMain.Mode.THROTTLED || d.failoverAtMs < -600_000
        || d.failoverAtMs > 600_000 || d.foreignRate != null || d.priorities || d.inFlight != null)) {
      throw d.bad("--failover-at-ms must be within -600000..600000, with --mode THROTTLED and none of --foreign-rate, "
          + "--priorities or --in-flight, but was " + d.failoverAtMs + " with --mode " + d.mode);
    }
    if (d.callTimeoutMs != 0 && d.inFlight == null) {
      throw d.bad("--call-timeout-ms goes with --in-flight: it shows calls that time out at the client while the "
          + "provider still works on them");
    }
    if (d.callTimeoutMs < 0 || d.callTimeoutMs > 600_000) {
      throw d.bad("--call-timeout-ms must be within 0..600000, but was " + d.callTimeoutMs);
    }
  }

  static void checkForeign(DemoMain d) {
    if (!(d.foreignRate > 0 && d.foreignRate <= 1000)) {
      throw d.bad("--foreign-rate must be within (0, 1000] per second, but was "
          + ResultTable.number(d.foreignRate));
    }
    if (d.durationSeconds < 1 || d.durationSeconds > 3600) {
      throw d.bad("--duration must be within 1..3600 s, but was " + d.durationSeconds);
    }
    if (d.mode == DemoMain.Mode.DIRECT && !d.foreignDuringBurst) {
      throw d.bad("--mode DIRECT cannot run with --foreign-rate: callers back to back without the bucket would only "
          + "flood the provider; use BOTH (fixed and adaptive) or THROTTLED (adaptive)");
    }
  }

  static void checkPriorities(DemoMain d) {
    if (d.foreignRate != null) {
      throw d.bad("--priorities cannot run with --foreign-rate: run one comparison at a time");
    }
    if (d.durationSeconds < 3 || d.durationSeconds > 3600) {
      throw d.bad("--duration must be within 3..3600 s with --priorities, but was " + d.durationSeconds);
    }
    if (d.mode == DemoMain.Mode.DIRECT) {
      throw d.bad("--mode DIRECT cannot run with --priorities: priority classes are the bucket's");
    }
  }

  /** {@code --in-flight}: 3 replicas x 20 calls, 200 ms answers, a bucket that never binds, unless given. */
  static void inFlightDefaults(DemoMain d) {
    if (d.inFlight < 1 || d.inFlight > 1000) {
      throw d.bad("--in-flight must be within 1..1000, but was " + d.inFlight);
    }
    if (d.foreignRate != null || d.priorities || d.bacenUrl != null) {
      throw d.bad("--in-flight runs on its own, against the embedded mock: without --foreign-rate, --priorities "
          + "or --bacen-url");
    }
    d.replicas = d.given("--replicas") ? d.replicas : 3;
    d.latencyMs = d.given("--latency-ms") ? d.latencyMs : 200;
    d.durationSeconds = d.given("--duration") ? d.durationSeconds : 10;
    if (d.backToBackInFlight() && (d.durationSeconds < 2 || d.durationSeconds > 3600)) {
      throw d.bad("--duration must be within 2..3600 s with --in-flight (the steady part starts after 1 s), but was "
          + d.durationSeconds);
    }
    d.bucket.capacity = d.given("--capacity") ? d.bucket.capacity : 1000;
    d.bucket.rate = d.given("--rate") ? d.bucket.rate : 1000;
  }
}
