package io.pixquota.bacen.dict;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * DICT's {@code PI-RateLimit-{Participant,Client}{Policy,Remaining,Reset}} headers, read as untrusted input: a
 * scope's reading counts only when its policy is one the lookup was booked on, in that scope, and its remaining is a
 * whole number within 0 and the policy's capacity. Anything else is dropped and counted
 * ({@code bacen.dict.headers.ignored}): a gateway's or a stub's header must not move the fleet's mirror.
 */
final class DictHeaders {
  /** What DICT says remains in one of the lookup's buckets, after this answer. */
  record Reading(int take, DictPolicy policy, double remaining) {}

  /** The readings, and how many header sets were dropped. */
  record Readings(List<Reading> readings, int ignored) {}

  private DictHeaders() {}

  /** The readings of an answer's headers ({@code header}: name to value, null when absent), for this plan. */
  static Readings read(Function<String, String> header, DictBuckets.Plan plan) {
    List<Reading> out = new ArrayList<>();
    int ignored = 0;
    for (String scope : new String[] {"Participant", "Client"}) {
      String name = header.apply("PI-RateLimit-" + scope + "Policy");
      String remaining = header.apply("PI-RateLimit-" + scope + "Remaining");
      if (name == null && remaining == null) {
        continue; // a scope without a policy omits its headers
      }
      Reading r = reading(plan, scope.equals("Client") ? DictPolicy.Scope.USER : DictPolicy.Scope.PSP, name,
          remaining);
      if (r == null) {
        ignored++;
      } else {
        out.add(r);
      }
    }
    return new Readings(List.copyOf(out), ignored);
  }

  private static Reading reading(DictBuckets.Plan plan, DictPolicy.Scope scope, String name, String remaining) {
    if (name == null || remaining == null || !remaining.trim().matches("[0-9]{1,12}")) {
      return null;
    }
    for (int i = 0; i < plan.policies().size(); i++) {
      DictPolicy p = plan.policies().get(i);
      if (p.name().equals(name.trim()) && p.scope() == scope) {
        double r = Double.parseDouble(remaining.trim());
        return r <= p.capacity(plan.payerType()) ? new Reading(i, p, r) : null;
      }
    }
    return null;
  }
}
