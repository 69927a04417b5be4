package io.pixquota.throttle.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The last change of a bucket's rate generation ({@code token_bucket.lua}'s field {@code j}): a cut, or a longer hold,
 * started {@code generation} from {@code previous} at {@code atMicros} (the bucket's clock), the rate factor going
 * from {@code before} to {@code after}, the hold in force from {@code heldMicros} (the one before, or {@code at}) to
 * {@code holdMicros}. The script keeps the tokens booked ahead, in their order, and adds the tokens of the added hold,
 * so a slot booked under {@code previous} moves by this change alone, without a round trip: {@link #moved}.
 */
public record GenerationChange(long previous, long generation, long atMicros, double before, double after,
    long heldMicros, long holdMicros) {
  private static final Pattern TEXT = Pattern.compile("(\\d+):(\\d+):(\\d+):([^:]+):([^:]+):(\\d+):(\\d+)");

  /**
   * A slot booked under {@link #previous} at {@code slotMicros}, at the new rate: {@code max(hold, at + (hold - held) +
   * (slot - at) * before / after)}, rounded up; every call booked under {@code previous} was booked at a factor of at
   * most {@code before}, so the tokens it still needed at {@code at} are refilled within that much once the added
   * hold is paid. -1 for a slot that had come by {@code at}: its call books again.
   */
  public long moved(long slotMicros) {
    if (slotMicros <= atMicros) {
      return -1;
    }
    double slot = Math.ceil(Math.max(holdMicros, atMicros + (double) (holdMicros - heldMicros)
        + (double) (slotMicros - atMicros) * before / after));
    return slot >= BucketStep.MAX_WAIT_MICROS ? BucketStep.MAX_WAIT_MICROS : (long) slot;
  }

  /** The field's text, as the step writes it. */
  String text() {
    return previous + ":" + generation + ":" + atMicros + ":" + before + ":" + after + ":" + heldMicros + ":"
        + holdMicros;
  }

  /**
   * Reads a field as the script does: null when it is not seven values of their ranges (whole numbers of 0 .. 2^53 -
   * 1, factors in (0, 1], the previous generation below the new one, at <= held <= hold).
   */
  public static GenerationChange parse(String text) {
    Matcher m = text == null ? null : TEXT.matcher(text);
    if (m == null || !m.matches()) {
      return null;
    }
    Double previous = StoredState.whole(m.group(1));
    Double generation = StoredState.whole(m.group(2));
    Double at = StoredState.whole(m.group(3));
    Double before = StoredState.finite(m.group(4));
    Double after = StoredState.finite(m.group(5));
    Double held = StoredState.whole(m.group(6));
    Double hold = StoredState.whole(m.group(7));
    if (previous == null || generation == null || at == null || before == null || after == null || held == null
        || hold == null || previous >= generation || before <= 0 || before > 1 || after <= 0 || after > 1
        || held < at || hold < held) {
      return null;
    }
    return new GenerationChange(previous.longValue(), generation.longValue(), at.longValue(), before, after,
        held.longValue(), hold.longValue());
  }
}
